"""The report's design section is found by the type of the design's record: each record type
renders its section, a fixed design none."""

from __future__ import annotations

from trajguard.comparison import (
    BudgetOutcome,
    BudgetRecord,
    Decision,
    EscalationRecord,
    EscalationStop,
    FixedRecord,
    LookRecord,
    SequentialOutcome,
    SequentialRecord,
    Stop,
)
from trajguard.comparison._escalation import escalation_plan
from trajguard.report import escalation_section, sequential_section
from trajguard.report._design import design_section
from trajguard.stats import Action


def test_a_sequential_record_renders_the_sequential_section() -> None:
    stop = Stop(runs=4, decision=Decision(action=Action.STOP_REGRESSED, metrics=("pass_rate",)))
    outcome = SequentialOutcome(
        max_runs=12,
        plan=(4, 8, 12),
        alpha=0.0125,
        looks=(LookRecord(look=0, runs=4, decisions={"a": "stop: regressed"}),),
        stopped={"a": stop},
    )
    section = design_section(SequentialRecord(outcome=outcome))
    assert section == ["", sequential_section(outcome)]
    assert section[1].startswith("## Sequential design")


def test_an_escalation_record_renders_its_plan_with_its_stops_and_unit() -> None:
    plan = escalation_plan(first=10, max_runs=30, alpha=0.05, scenarios=2)
    stop = EscalationStop(scenario="a", runs=10, reason="quiet at the first look")
    record = EscalationRecord(plan=plan, stops=(stop,), unit="runs per variant")
    section = design_section(record)
    assert section == ["", escalation_section(plan, {"a": stop}, unit="runs per variant")]
    assert section[1].startswith("## Escalation design")
    assert "quiet at the first look" in section[1]


def test_a_budget_record_renders_the_budgeted_section() -> None:
    outcome = BudgetOutcome(
        budget=60.0,
        spent=24.0,
        runs={"a": 12},
        stops={"a": "no regression detected at look 1"},
        thresholds=(0.001, 0.004, 0.008),
    )
    section = design_section(BudgetRecord(outcome=outcome))
    assert section[0] == ""
    assert section[1].startswith("## Budgeted design")
    assert "| a | 12 | no regression detected at look 1 |" in section[1]


def test_a_fixed_design_has_no_section() -> None:
    assert design_section(FixedRecord()) == []
    assert design_section(FixedRecord(unit="runs per variant")) == []
