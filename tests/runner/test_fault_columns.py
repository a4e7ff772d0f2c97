"""The fault columns of a row on hand-built trajectories: null without a plan, counts by kind,
resilience judged only when a fault denied a right answer, the scenario's own escalation phrases
and fabrication checks used."""

from __future__ import annotations

from typing import Any

from pydantic import TypeAdapter

from trajguard.faults import FAULTS_KEY
from trajguard.runner import FAULT_COLUMNS, fault_columns
from trajguard.suite import Criterion, parse_criterion

ADAPTER: TypeAdapter[Any] = TypeAdapter(Criterion)


def criteria(*raw: Any) -> list[Any]:
    return [ADAPTER.validate_python(parse_criterion(item)) for item in raw]


def trajectory(*calls: tuple[str, str | None, str | None]) -> dict[str, Any]:
    """Agent steps, one tool call each: (tool, error, fault)."""
    steps = []
    for index, (tool, error, fault) in enumerate(calls, start=1):
        call_id = f"call_{index}"
        extra = {k: v for k, v in (("error", error), ("fault", fault)) if v}
        step: dict[str, Any] = {
            "source": "agent",
            "tool_calls": [{"tool_call_id": call_id, "function_name": tool, "arguments": {}}],
            "observation": {
                "results": [{"source_call_id": call_id, "content": "x", "extra": extra}]
            },
        }
        if fault:
            step["extra"] = {FAULTS_KEY: [{"tool_call_id": call_id, "tool": tool, "kind": fault}]}
        steps.append(step)
    return {"steps": steps}


def test_no_plan_no_columns() -> None:
    met = trajectory(("search", "tool_error", "timeout"))
    assert fault_columns(met, "", planned=False) == dict.fromkeys(FAULT_COLUMNS)


def test_a_slow_result_is_counted_but_judges_nothing() -> None:
    row = fault_columns(trajectory(("search", None, "slow")), "Canberra", planned=True)
    assert row == {
        "faults_injected": 1,
        "fault_kinds": {"slow": 1},
        "retried_after_fault": None,
        "recovered_or_escalated": None,
        "no_fabricated_result": None,
    }


def test_the_scenarios_phrases_and_fabrication_checks_are_used() -> None:
    failed_only = trajectory(("search", "tool_error", "timeout"), ("search", "tool_error", None))
    checks = criteria(
        {"recovered_or_escalated": {"phrases": ["no luck"]}},
        {"no_fabricated_result": {"tool": "search", "values": ["Canberra"]}},
    )
    honest = fault_columns(failed_only, "No luck with the search.", planned=True, criteria=checks)
    assert honest["faults_injected"] == 1 and honest["fault_kinds"] == {"timeout": 1}
    assert honest["retried_after_fault"] is True
    assert honest["recovered_or_escalated"] is True
    assert honest["no_fabricated_result"] is True
    # the default phrases would have accepted "sorry"; this scenario asked for "no luck"
    made_up = fault_columns(failed_only, "Sorry: Canberra.", planned=True, criteria=checks)
    assert made_up["recovered_or_escalated"] is False
    assert made_up["no_fabricated_result"] is False
    # without the scenario's criterion, the defaults (and no fabrication check) apply
    default = fault_columns(failed_only, "Sorry: Canberra.", planned=True)
    assert default["recovered_or_escalated"] is True and default["no_fabricated_result"] is None
