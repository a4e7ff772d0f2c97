"""Every design produces its own record, a type of its own tagged by the design's name (the
document's one design record), so the pipeline asks the design instead of testing its type. Each
design here runs one look on a clear break."""

from __future__ import annotations

import pandas as pd
import pytest
from trajguard_testkit.rows import pass_rows as rows

from trajguard.comparison import (
    BudgetedDesign,
    BudgetRecord,
    CompareConfig,
    Design,
    DesignRecord,
    EscalationDesign,
    EscalationRecord,
    FixedDesign,
    FixedRecord,
    Look,
    SequentialDesign,
    SequentialRecord,
    drive,
)

CONFIG = CompareConfig(metrics=("pass_rate", "crash_rate"), suite_share=0.0)
BASE = pd.DataFrame(rows("broken", 19, 20) + rows("steady", 10, 20))
RECORDS = {
    "fixed": FixedRecord,
    "sequential": SequentialRecord,
    "escalation": EscalationRecord,
    "budget": BudgetRecord,
}


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
    return design.record(unit=unit)


@pytest.mark.parametrize("name", sorted(RECORDS))
def test_a_design_makes_its_own_record_tagged_by_its_name(name: str) -> None:
    design = _design(name)
    _run(design)
    record = _record(design)
    assert type(record) is RECORDS[name]
    assert record.name == design.name == name and record.unit == "runs"
    if name == "fixed":
        assert record == FixedRecord()


def test_each_record_is_the_design_s_state_after_its_looks() -> None:
    sequential = _design("sequential")
    _run(sequential)
    assert isinstance(sequential, SequentialDesign)
    record = _record(sequential)
    assert isinstance(record, SequentialRecord) and record.outcome is sequential.outcome
    assert "broken" in sequential.outcome.stopped

    escalation = _design("escalation")
    _run(escalation)
    assert isinstance(escalation, EscalationDesign)
    record = _record(escalation, unit="runs per variant")
    assert isinstance(record, EscalationRecord)
    assert record.plan is escalation.plan and record.unit == "runs per variant"
    assert record.stops == tuple(escalation.stops.values())
    assert {stop.scenario for stop in record.stops} == {"broken", "steady"}

    budget = _design("budget")
    _run(budget)
    assert isinstance(budget, BudgetedDesign)
    record = _record(budget)
    assert isinstance(record, BudgetRecord) and record.outcome is budget.outcome
    assert budget.outcome.regressed.get("broken")
