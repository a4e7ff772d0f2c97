"""Every design honours a scenario's own ``runs:`` (the one rule,
:func:`trajguard.suite.runs_per_scenario`): nights of a callable agent that needs no model, run
in-process under the fixed, sequential (nightly and A/B) and escalation designs, make the runs
the rule gives each scenario; the budgeted design's first look is given them too."""

from __future__ import annotations

from pathlib import Path

import pytest

from trajguard import pipeline
from trajguard.comparison import CompareConfig, EscalationRecord, SequentialRecord
from trajguard.errors import UsageError
from trajguard.pipeline._budget import budgeted_design
from trajguard.runner import BatchOptions, Budget, RunEstimate
from trajguard.store import read_runs
from trajguard.suite import load_suite

AGENT = """
from trajguard.capture import LLMResponse

async def agent(ctx):
    ctx.recorder.user(ctx.input)
    ctx.recorder.agent_step(LLMResponse(content="391"))
    return None
"""

SUITE = """
name: rule
defaults: {runs: 6, concurrency: 2}
variants:
  again: {}
scenarios:
  - id: own
    runs: 12
    agent: {kind: callable, function: "rule_agent:agent"}
    input: What is 17 * 23?
    pass: [{final_output_contains: "391"}]
  - id: plain
    agent: {kind: callable, function: "rule_agent:agent"}
    input: And 23 * 17?
    pass: [{final_output_contains: "391"}]
"""

QUIET = pipeline.ReportOptions(plots=False, html=False)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "rule_agent.py").write_text(AGENT)
    (tmp_path / "suite.yaml").write_text(SUITE)
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))  # as the command line imports from its cwd
    first = pipeline.run(tmp_path / "suite.yaml", out=tmp_path / "first")
    pipeline.promote(first.runset, baselines=tmp_path / "baselines")
    return tmp_path


def _made(runset: Path | None) -> dict[str, int]:
    assert runset is not None
    return read_runs(runset).groupby("scenario").size().to_dict()


def test_the_fixed_design_gives_each_scenario_its_own_runs_and_runs_n_overrides(
    project: Path,
) -> None:
    assert _made(project / "first") == {"own": 12, "plain": 6}
    night = pipeline.nightly(project / "suite.yaml", options=BatchOptions(runs=3), report=QUIET)
    assert _made(night.runset) == {"own": 3, "plain": 3}


def test_the_sequential_design_spreads_each_scenario_s_own_runs_over_its_looks(
    project: Path,
) -> None:
    # the same agent on both sides: each scenario stops at its first look (no worse), which is
    # a third of its own runs — 4 of 12 and 2 of 6 (before, both got 2 of the suite's 6)
    night = pipeline.nightly(project / "suite.yaml", sequential=True, report=QUIET)
    assert _made(night.runset) == {"own": 4, "plain": 2}
    record = night.document.design
    assert isinstance(record, SequentialRecord)
    assert record.outcome.plan_of("own") == (4, 8, 12)
    assert record.outcome.plan_of("plain") == (2, 4, 6)


def test_ab_sequential_spreads_each_scenario_s_own_runs_per_variant(project: Path) -> None:
    # two variants that answer alike: no clear difference, so every look runs (no futility)
    done = pipeline.ab(
        project / "suite.yaml", variants=("base", "again"), sequential=True, report=QUIET
    )
    rows = read_runs(done.runset)
    made = rows.groupby(["scenario", "variant"]).size().to_dict()
    assert made == {("own", "base"): 12, ("own", "again"): 12, ("plain", "base"): 6,
                    ("plain", "again"): 6}  # fmt: skip
    record = done.document.design
    assert isinstance(record, SequentialRecord) and record.outcome.plan_of("own") == (4, 8, 12)


def test_escalation_starts_each_scenario_at_its_own_runs(project: Path) -> None:
    # quiet scenarios stop after the first look: each keeps its own first look (before, both 6)
    night = pipeline.nightly(project / "suite.yaml", max_runs=16, report=QUIET)
    assert _made(night.runset) == {"own": 12, "plain": 6}
    record = night.document.design
    assert isinstance(record, EscalationRecord)
    # one scenario each: the larger N is the plan's, the other scenario's looks are its own
    assert record.plan.first == 12 and record.plan.own_looks == {"plain": (6, 11, 16)}


def test_escalation_refuses_a_scenario_whose_own_runs_reach_max_runs(project: Path) -> None:
    with pytest.raises(
        UsageError, match=r"--max-runs \(10\) must be above the runs per scenario: scenario own"
    ):
        pipeline.nightly(project / "suite.yaml", max_runs=10, report=QUIET)


def test_the_budgeted_design_s_first_look_is_the_runs_set_for_each_scenario(
    tmp_path: Path,
) -> None:
    (tmp_path / "suite.yaml").write_text(SUITE)
    suite = load_suite(tmp_path / "suite.yaml")
    prior = {"*": RunEstimate(seconds=1.0)}
    budget = Budget(max_minutes=10, prior=prior)
    design = budgeted_design(suite, BatchOptions(budget=budget), CompareConfig())
    # its own 12; no runs: set, so an even share of a third of 600 s at 0.5 s a run each
    assert design.first().runs == {"own": 12, "plain": 200}
    given = budgeted_design(suite, BatchOptions(runs=5, budget=budget), CompareConfig())
    assert given.first().runs == {"own": 5, "plain": 5}
