"""`pipeline.ab` honours the suite's tolerance bands, as `nightly` does (they used to be ignored).

A drop of about 50 points in pass rate is significant at 20 runs per variant; the suite says 60
points are tolerable for one scenario and nothing for the other, so the first scenario changed
within tolerance and the second regressed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from trajguard import pipeline
from trajguard.comparison import Verdict
from trajguard.runner import BatchOptions

pytestmark = pytest.mark.live

AGENT = """
from trajguard.capture import LLMResponse

async def agent(ctx):
    ctx.recorder.user(ctx.input)
    good = ctx.variant == "base" or ctx.seed % 2 == 0
    ctx.recorder.agent_step(LLMResponse(content="391" if good else "no idea"))
    return None
"""

SUITE = """
name: bands
variants:
  worse: {}
scenarios:
  - id: tolerant
    agent: {kind: callable, function: "bands_agent:agent"}
    input: What is 17 * 23?
    pass: [{final_output_contains: "391"}]
    tolerances: {pass_rate: 0.6}
  - id: strict
    agent: {kind: callable, function: "bands_agent:agent"}
    input: And 23 * 17?
    pass: [{final_output_contains: "391"}]
"""


def test_ab_applies_each_scenarios_tolerance_band(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "bands_agent.py").write_text(AGENT)
    (tmp_path / "suite.yaml").write_text(SUITE)
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    outcome = pipeline.ab(
        Path("suite.yaml"),
        variants=("base", "worse"),
        options=BatchOptions(runs=20, seed=11),
        report=pipeline.ReportOptions(plots=False),
    )
    per_scenario = outcome.result.per_scenario
    tolerant, strict = per_scenario.scenario("tolerant"), per_scenario.scenario("strict")
    for scenario in (tolerant, strict):
        rate = scenario.metric("pass_rate")
        assert rate.estimate is not None and rate.estimate < -0.3
        assert rate.p_adjusted <= 0.05, "the drop is significant in both scenarios"
    assert tolerant.metric("pass_rate").verdict is Verdict.CHANGED_WITHIN_TOLERANCE
    assert strict.metric("pass_rate").verdict is Verdict.REGRESSED
    assert "changed within tolerance" in outcome.report.read_text()
