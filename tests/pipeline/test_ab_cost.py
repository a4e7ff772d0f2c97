"""``trajguard ab`` on cost: a prompt edit that doubles the completion tokens at the same pass rate
is flagged on cost, and only on cost; the answer says how much dearer. The model is a scripted
OpenAI-compatible server on 127.0.0.1 reached through litellm (``openai/gpt-4o-mini``, priced from
litellm's bundled map)."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pandas as pd
import pytest
from trajguard_testkit.priced import AGENT, token_server

from trajguard import pipeline
from trajguard.comparison import DEFAULT_GATING, Answer, CompareConfig, Verdict
from trajguard.pipeline import ReportOptions
from trajguard.results import SCHEMA_FILE
from trajguard.runner import BatchOptions

SUITE = """
name: prompts
defaults: {{runs: 20, concurrency: 2, timeout_s: 30, model: openai/gpt-4o-mini,
            api_base: "{api_base}"}}
variants:
  explain: {{system_prompt: "Explain your reasoning step by step, then answer."}}
scenarios:
  - id: multiply
    agent: {{kind: callable, function: "priced_agent:agent",
             system_prompt: "Answer with the result only."}}
    input: What is 17 * 23?
    pass: [{{final_output_contains: "391"}}]
  - id: again
    agent: {{kind: callable, function: "priced_agent:agent",
             system_prompt: "Answer with the result only."}}
    input: And 23 * 17?
    pass: [{{final_output_contains: "391"}}]
"""


@pytest.fixture(scope="module")
def outcome(tmp_path_factory: pytest.TempPathFactory) -> Iterator[pipeline.ABOutcome]:
    root = tmp_path_factory.mktemp("abcost")
    (root / "priced_agent.py").write_text(AGENT)
    with pytest.MonkeyPatch.context() as patch, token_server() as server:
        patch.chdir(root)
        patch.syspath_prepend(str(root))
        patch.delitem(sys.modules, "priced_agent", raising=False)
        patch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        patch.setenv("OPENAI_API_KEY", "sk-scripted-not-a-secret")
        (root / "suite.yaml").write_text(SUITE.format(api_base=server["api_base"]))
        yield pipeline.ab(
            Path("suite.yaml"),
            variants=("base", "explain"),
            options=BatchOptions(seed=4),
            config=CompareConfig(gating=DEFAULT_GATING | {"cost"}),
            reports=root / "reports",
            report=ReportOptions(plots=False),
        )


def test_the_edit_is_flagged_on_cost_and_only_on_cost(outcome: pipeline.ABOutcome) -> None:
    result = outcome.result
    runs = pd.read_parquet(outcome.runset / "runs.parquet")
    rates = runs.groupby("variant")["passed"].mean()
    assert rates["base"] == rates["explain"] == 1  # every run passes: the same pass rate
    assert result.answer is Answer.DIFFERENT
    for scenario in result.per_scenario.scenarios:
        moved = {
            m.metric
            for m in scenario.metrics
            if m.kind == "gating"
            and m.verdict is not Verdict.INCONCLUSIVE
            and m.verdict is not Verdict.UNCHANGED
        }
        assert moved == {"cost"}, scenario.scenario
        assert scenario.metric("cost").verdict is Verdict.REGRESSED
    overall = {o.metric: o for o in result.overall}
    assert overall["pass_rate"].p_value == 1.0 and overall["pass_rate"].estimate == 0
    cost = overall["cost"]
    assert cost.estimate is not None and cost.ci is not None
    assert 1.15 < cost.ci[0] < cost.estimate < cost.ci[1]
    assert f"Cost: explain was {100 * (cost.estimate - 1):.0f} % dearer per run" in result.summary


def test_the_report_and_comparison_json_say_so(outcome: pipeline.ABOutcome) -> None:
    text = outcome.report.read_text(encoding="utf-8")
    assert "**Answer: explain behaved differently.**" in text
    assert "multiply: cost worse (×" in text and "again: cost worse (×" in text
    assert "% dearer per run" in text
    cost_rows = [line for line in text.splitlines() if line.startswith("| cost |")]
    assert len(cost_rows) == 1 and "stratified permutation" in cost_rows[0]
    document: dict[str, Any] = json.loads((outcome.report.parent / "comparison.json").read_text())
    jsonschema.Draft202012Validator(json.loads(SCHEMA_FILE.read_text())).validate(document)
    (overall,) = [o for o in document["ab"]["overall"] if o["metric"] == "cost"]
    assert overall["ci"] is not None and overall["ci"][0] > 1.15
