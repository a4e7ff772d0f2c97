"""Every design produces its own record: the fields of the document's design record it fills —
its name and, under its name, its own record (escalation's stops beside it) — so the pipeline
asks the design instead of testing its type. Each design here runs one look on a clear break."""

from __future__ import annotations

import pandas as pd
import pytest
from trajguard_testkit.rows import pass_rows as rows

from trajguard.comparison import (
    BudgetedDesign,
    BudgetOutcome,
    CompareConfig,
    Design,
    EscalationDesign,
    EscalationPlan,
    FixedDesign,
    Look,
    SequentialDesign,
    SequentialOutcome,
    drive,
)
from trajguard.results import DesignRecord

CONFIG = CompareConfig(metrics=("pass_rate", "crash_rate"), suite_share=0.0)
BASE = pd.DataFrame(rows("broken", 19, 20) + rows("steady", 10, 20))
OWN = {"sequential": SequentialOutcome, "escalation": EscalationPlan, "budget": BudgetOutcome}
SLOTS = ("sequential", "escalation", "budget")


def _design(name: str) -> Design:
    runs = {"broken": 12, "steady": 12}
    if name == "sequential":
        return SequentialDesign(runs=runs, config=CONFIG)
    if name == "escalation":
        return EscalationDesign(runs=runs, max_runs=24, config=CONFIG)
    if name == "budget":
        return BudgetedDesign(
            budget=72.0, cost=dict.fromkeys(runs, 1.0), own_runs=dict.fromkeys(runs), config=CONFIG
        )
    return FixedDesign()


def _run(design: Design) -> None:
    made: dict[str, int] = {"broken": 12, "steady": 12}

    def run_look(look: Look) -> None:
        made.update(look.runs or {})

    def sides() -> tuple[pd.DataFrame, pd.DataFrame]:
        n_broken, n_steady = made["broken"], made["steady"]
        cand = rows("broken", 0, n_broken) + rows("steady", n_steady // 2, n_steady)
        return BASE, pd.DataFrame(cand)

    drive(design, run_look=run_look, sides=sides)


def _record(design: Design, unit: str = "runs") -> DesignRecord:
    return DesignRecord(unit=unit, **design.record())


@pytest.mark.parametrize("name", ["fixed", "sequential", "escalation", "budget"])
def test_a_design_fills_its_name_and_under_it_its_own_record(name: str) -> None:
    design = _design(name)
    _run(design)
    record = _record(design)
    assert record.name == design.name == name
    assert [s for s in SLOTS if getattr(record, s) is not None] == ([name] if name in OWN else [])
    if name in OWN:
        assert isinstance(getattr(record, name), OWN[name])
    else:
        assert record == DesignRecord()


def test_each_record_is_the_design_s_state_after_its_looks() -> None:
    sequential = _design("sequential")
    _run(sequential)
    assert isinstance(sequential, SequentialDesign)
    assert _record(sequential).sequential is sequential.outcome
    assert "broken" in sequential.outcome.stopped

    escalation = _design("escalation")
    _run(escalation)
    assert isinstance(escalation, EscalationDesign)
    record = _record(escalation, unit="runs per variant")
    assert record.escalation is escalation.plan and record.unit == "runs per variant"
    assert record.stops == tuple(escalation.stops.values())
    assert {stop.scenario for stop in record.stops} == {"broken", "steady"}

    budget = _design("budget")
    _run(budget)
    assert isinstance(budget, BudgetedDesign)
    assert _record(budget).budget is budget.outcome
    assert budget.outcome.regressed.get("broken")
