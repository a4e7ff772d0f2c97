"""The report's judge-consistency figures, from the runs' ``judge_calls`` (issue 25)."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from trajguard.compare import CompareConfig, compare_runsets
from trajguard.report import build_document, render_report
from trajguard.results import ReportKind
from trajguard.store import RunSet


def run(passed: bool = True) -> dict:
    return {
        "scenario": "s",
        "variant": "main",
        "status": "ok",
        "passed": passed,
        "step_count": 3,
        "tool_sequence": [],
        "tool_counts": {},
        "prompt_tokens": 100,
        "completion_tokens": 20,
        "duration_s": 1.0,
    }


def render(base: list[dict], cand: list[dict], config: CompareConfig) -> str:
    b, c = pd.DataFrame(base), pd.DataFrame(cand)
    document = build_document(
        compare_runsets(b, c, config=config),
        kind=ReportKind.COMPARE,
        baseline=RunSet(path="b", manifest={"suite": "t"}, runs=b),
        candidate=RunSet(path="c", manifest={"suite": "t"}, runs=c),
    )
    return render_report(document)


def judged(verdicts: list[str], passed: bool) -> dict:
    samples = [
        {"verdict": v, "reason": "", "prompt_tokens": 9, "completion_tokens": 3} for v in verdicts
    ]
    record = {
        "criterion": 'judge: "names Paris"',
        "model": "local/smollm2",
        "samples_wanted": len(verdicts),
        "held": passed,
        "error": None,
        "samples": samples,
    }
    return {**run(passed=passed), "judge_calls": json.dumps([record])}


def test_a_disagreeing_judge_is_flagged_in_the_headline_and_the_table():
    stable = [judged(["PASS"] * 3, True) for _ in range(6)] + [judged(["FAIL"] * 3, False)] * 2
    noisy = [judged(["PASS", "FAIL", "PASS"], True) for _ in range(4)] + [
        judged(["FAIL", "PASS", "FAIL"], False) for _ in range(4)
    ]
    text = render(stable, noisy, CompareConfig())
    assert "## Judge consistency" in text
    assert (
        '| s | baseline | judge: "names Paris" | local/smollm2 | 3 | 8 | 0% | 0% | 75% | stable |'
        in text
    )
    # every run disagrees; each run's own variance is 2/9, the total 1/4: 89% is noise
    assert (
        '| s | candidate | judge: "names Paris" | local/smollm2 | 3 | 8 | 100% | 89% | 50% | '
        "**unstable** |" in text
    )
    assert (
        "- **Unstable judge:** s (candidate)" in text
        and "disagree in 100% of runs (limit 20%)" in text
    )


def test_one_sample_or_a_failed_judgement_is_not_measured():
    rows = [judged(["PASS"], True) for _ in range(3)] + [
        {
            **judged(["PASS", None], True),
            "judge_calls": json.dumps([{"samples_wanted": 2, "error": "x", "samples": []}]),
        }
    ]
    assert compare_runsets(pd.DataFrame(rows), pd.DataFrame(rows)).judges == ()


@pytest.mark.parametrize("calls", [None, "", "not json", "{}"])
def test_runs_without_judge_calls_have_no_figures(calls):
    rows = [{**run(), "judge_calls": calls} for _ in range(3)]
    assert compare_runsets(pd.DataFrame(rows), pd.DataFrame(rows)).judges == ()


def test_a_gating_judge_sampled_once_says_its_noise_is_unknown_in_the_headline():
    rows = [judged(["PASS"], True) for _ in range(5)] + [judged(["FAIL"], False)] * 3
    comparison = compare_runsets(pd.DataFrame(rows), pd.DataFrame(rows))
    assert [(j.side, j.runs, j.model) for j in comparison.judged_once] == [
        ("baseline", 8, "local/smollm2"),
        ("candidate", 8, "local/smollm2"),
    ]
    text = render(rows, rows, CompareConfig())
    headline = text.split("\n## ")[0]
    (line,) = [x for x in headline.splitlines() if "Judge noise unknown" in x]
    assert 's, judge: "names Paris" (local/smollm2) gave one verdict per run' in line
    assert "Set `samples: 3`" in line


def test_a_judge_sampled_once_is_not_in_the_headline_when_the_pass_rate_does_not_gate():
    rows = [judged(["PASS"], True) for _ in range(5)] + [judged(["FAIL"], False)] * 3
    config = CompareConfig(gating=frozenset({"crash_rate"}))
    assert "Judge noise unknown" not in render(rows, rows, config)
    sampled = [judged(["PASS"] * 3, True) for _ in range(8)]
    assert "Judge noise unknown" not in render(sampled, sampled, CompareConfig())
