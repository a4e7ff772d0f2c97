"""``trajguard ab`` with the suite's pairwise judge, end to end against a scripted pairwise judge
(an OpenAI-compatible server on 127.0.0.1, reached through litellm; benchmarks/_scripted_judge.py):
the answer, the position-bias figure and the comparison.json fields; a judge that echoes its API
key leaves it in no output file (issue 35, item 4)."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from trajguard import pipeline
from trajguard.cli import main
from trajguard.comparison import Answer
from trajguard.pipeline import ReportOptions
from trajguard.results import SCHEMA_FILE
from trajguard.runner import BatchOptions

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from _scripted_judge import AGENT, pairwise_server

KEY = "sk-pairwise-echo-4f9c2a7e1b"


@pytest.fixture(autouse=True)
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "repeats_agent.py").write_text(AGENT)
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "repeats_agent", raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)  # litellm sends it; the echoing judge returns it
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    return tmp_path


@pytest.fixture
def judge(request: pytest.FixtureRequest) -> Iterator[dict[str, Any]]:
    with pairwise_server(request.param, seed=5) as server:
        yield server


def suite(api_base: str, *, b_mix: str, both_orders: float, runs: int) -> Path:
    """Variant A answers "Paris." every time; B from ``b_mix`` (weights of the four answers)."""
    path = Path("suite.yaml")
    path.write_text(
        f"""name: pairwise
defaults: {{runs: {runs}, concurrency: 2, timeout_s: 20, model: openai/judge,
            api_base: "{api_base}"}}
pairwise:
  rubric: "The answer names the capital of France in a full sentence."
  model: openai/judge
  api_base: "{api_base}"
  both_orders: {both_orders}
variants:
  b: {{params: {{mix: "{b_mix}"}}}}
scenarios:
  - id: capital
    agent: {{kind: callable, function: "repeats_agent:answer", params: {{mix: "1,0,0,0"}}}}
    input: What is the capital of France?
    pass: [{{final_output_contains: "Paris"}}]
"""
    )
    return path


def ab(path: Path) -> pipeline.ABOutcome:
    return pipeline.ab(
        path,
        variants=("base", "b"),
        options=BatchOptions(seed=3),
        reports=Path("reports"),
        report=ReportOptions(plots=False),
    )


def comparison(outcome: pipeline.ABOutcome) -> dict[str, Any]:
    document = json.loads((outcome.report.parent / "comparison.json").read_text())
    jsonschema.Draft202012Validator(json.loads(SCHEMA_FILE.read_text())).validate(document)
    return document


@pytest.mark.parametrize("judge", ["consistent"], indirect=True)
def test_a_judge_that_prefers_b_answers_helped(judge: dict[str, Any]) -> None:
    outcome = ab(suite(judge["api_base"], b_mix="0,1,0,0", both_orders=0.5, runs=10))
    result = outcome.result
    assert result.answer is Answer.HELPED  # the pass rate is 100 % on both sides: the judge's
    assert result.metric("pass_rate").p_adjusted > 0.05
    pairwise = result.pairwise
    assert pairwise is not None
    assert (pairwise.pairs, pairwise.b_preferred, pairwise.a_preferred) == (10, 10, 0)
    assert 0 < pairwise.both_orders < 10
    asked = judge["questions"]
    assert len(asked) == 10 + pairwise.both_orders  # nothing shared, nothing cached
    b_shown_first = [first == "The capital of France is Paris." for first, _ in asked]
    assert 0 < sum(b_shown_first) < len(asked)  # the order drawn per pair
    assert pairwise.position_bias == 0.0 and pairwise.contradictions == 0
    assert pairwise.p_value == pytest.approx(2 / 2**10)
    assert pairwise.p_adjusted <= 0.05 and pairwise.answer(0.05) is Answer.HELPED
    saved = comparison(outcome)["ab"]["pairwise"]
    assert saved["pairs"] == 10 and saved["b_preferred"] == 10 and saved["judge_failures"] == 0
    assert saved["position_bias"] == 0.0 and len(saved["judgements"]) == 10
    assert {len(j["orders"]) for j in saved["judgements"]} == {1, 2}
    report = outcome.report.read_text()
    assert "## Pairwise judge" in report and "**By the pairwise judge, b helped**" in report
    page = (outcome.report.parent / "report.html").read_text()
    assert "By the pairwise judge, b helped" in page
    # The same document renders the same report again from comparison.json alone.
    source = outcome.report.parent / "comparison.json"
    assert main(["report", str(source), "--out", "again", "--no-plots"]) == 0
    assert (Path("again") / outcome.report.name).read_text() == report


@pytest.mark.parametrize("judge", ["first-1.0"], indirect=True)
def test_a_judge_that_always_prefers_the_first_answer_is_measured_and_finds_nothing(
    judge: dict[str, Any],
) -> None:
    outcome = ab(suite(judge["api_base"], b_mix="0.4,0.3,0.15,0.15", both_orders=1.0, runs=8))
    pairwise = outcome.result.pairwise
    assert pairwise is not None and pairwise.pairs == pairwise.both_orders == 8
    assert pairwise.position_bias == 1.0 and pairwise.contradictions == 8
    low, high = pairwise.position_bias_ci
    assert 0 < low < high <= 1.0
    assert pairwise.ties == 8 and pairwise.p_value == 1.0
    assert pairwise.answer(0.05) is Answer.NO_DETECTABLE_DIFFERENCE
    saved = comparison(outcome)["ab"]["pairwise"]
    assert saved["position_bias"] == 1.0 and saved["contradictions"] == 8
    assert "first was preferred by +1.00" in outcome.report.read_text()


@pytest.mark.parametrize("judge", ["echo-key"], indirect=True)
def test_a_judge_that_echoes_its_key_fails_apart_and_the_key_lands_nowhere(
    judge: dict[str, Any],
) -> None:
    outcome = ab(suite(judge["api_base"], b_mix="0,1,0,0", both_orders=0.5, runs=6))
    pairwise = outcome.result.pairwise
    assert pairwise is not None and pairwise.pairs == 0 and pairwise.judge_failures == 6
    assert pairwise.answer(0.05) is Answer.NO_DETECTABLE_DIFFERENCE
    assert outcome.result.answer is Answer.NO_DETECTABLE_DIFFERENCE  # nothing else differed
    assert all("[REDACTED]" in failure for failure in pairwise.failures)
    assert outcome.result.metric("crash_rate").estimate == 0  # never the agent's crashes
    files = [p for p in Path().rglob("*") if p.is_file()]
    assert any(p.suffix == ".parquet" for p in files) and any(p.suffix == ".html" for p in files)
    assert [p for p in files if KEY.encode() in p.read_bytes()] == []
    assert KEY not in outcome.headline
