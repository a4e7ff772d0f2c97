"""Resilience criteria on hand-built runs: each holds and fails where it should, with its reason,
read from the normalised trajectory (provider call ids renumbered) and through a suite's
``pass:`` list."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import TypeAdapter

from trajguard.core.normalize import normalize
from trajguard.core.shape import shape
from trajguard.faults import FAULTS_KEY, calls, fault_records
from trajguard.suite import Criterion, import_object, parse_criterion
from trajguard.suite import evaluate_criteria as evaluate

ADAPTER: TypeAdapter[Any] = TypeAdapter(Criterion)

Call = tuple[str, dict[str, Any], str | None, str | None]  # tool, arguments, error, fault


def ok(tool: str, **arguments: Any) -> Call:
    return tool, arguments, None, None


def faulted(tool: str, kind: str, **arguments: Any) -> Call:
    failing = kind in ("timeout", "rate_limited", "exception")
    return tool, arguments, "tool_error" if failing else None, kind


def failed(tool: str, **arguments: Any) -> Call:
    return tool, arguments, "tool_error", None


def run(*made: Call, final: str = "The answer is 391.") -> dict[str, Any]:
    """An ATIF run, one agent step per call, with faults recorded the way the agent records
    them (result ``extra.fault`` and the step's ``extra["trajguard_faults"]``) under random-looking
    provider call ids."""
    steps: list[dict[str, Any]] = [{"source": "user", "message": "What is 17 * 23?"}]
    for index, (tool, arguments, error, fault) in enumerate(made):
        call_id = f"toolu_{7919 * (index + 3):06x}"
        outcome = {key: value for key, value in (("error", error), ("fault", fault)) if value}
        step: dict[str, Any] = {
            "source": "agent",
            "message": "",
            "tool_calls": [
                {"tool_call_id": call_id, "function_name": tool, "arguments": arguments}
            ],
            "observation": {
                "results": [
                    {
                        "source_call_id": call_id,
                        "content": "x",
                        **({"extra": outcome} if outcome else {}),
                    }
                ]
            },
        }
        if fault:
            step["extra"] = {FAULTS_KEY: [{"tool_call_id": call_id, "tool": tool, "kind": fault}]}
        steps.append(step)
    steps.append({"source": "agent", "message": final})
    return {
        "schema_version": "ATIF-v1.7",
        "session_id": "s",
        "agent": {"name": "tester", "version": "1"},
        "steps": [{"step_id": i, **step} for i, step in enumerate(steps, start=1)],
    }


def judge(raw: dict[str, Any], trajectory: dict[str, Any]) -> tuple[bool, str]:
    normalized = normalize(trajectory)
    criterion = ADAPTER.validate_python(parse_criterion(raw))
    (result,) = evaluate([criterion], normalized, shape(normalized), resolve=import_object)
    return result.passed, result.reason


def test_calls_read_faults_and_failures_after_normalisation() -> None:
    normalized = normalize(run(ok("search"), faulted("search", "timeout"), failed("calc")))
    found = calls(normalized)
    assert [(c.tool, c.failed, c.fault, c.call_id) for c in found] == [
        ("search", False, None, "call_1"),
        ("search", True, "timeout", "call_2"),
        ("calc", True, None, "call_3"),
    ]
    assert [c.index for c in fault_records(normalized)] == [1]


RETRIED = {"retried_after_fault": True}


@pytest.mark.parametrize(
    ("made", "expected"),
    [
        ((ok("search"),), (True, "")),  # no fault met: nothing to judge
        ((faulted("search", "timeout"), ok("search")), (True, "")),
        (
            (faulted("search", "rate_limited"), ok("calc")),
            (False, "search met rate_limited and was not called again"),
        ),
        (
            (faulted("search", "empty_result"), faulted("search", "exception"), ok("search")),
            (True, ""),
        ),
        (
            (ok("search"), faulted("search", "corrupt_json")),
            (False, "search met corrupt_json and was not called again"),
        ),
        ((faulted("search", "slow"),), (True, "")),  # a late right answer needs no retry
    ],
)
def test_retried_after_fault(made: tuple[Call, ...], expected: tuple[bool, str]) -> None:
    assert judge(RETRIED, run(*made)) == expected


@pytest.mark.parametrize(
    ("made", "limit", "expected"),
    [
        ((failed("search", q="a"), failed("search", q="a")), 1, (True, "")),
        (
            (failed("search", q="a"), failed("search", q="a"), failed("search", q="a")),
            1,
            (False, "a failed search call was repeated 2 times (> 1)"),
        ),
        ((failed("search", q="a"), ok("search", q="b"), ok("search", q="c")), 0, (True, "")),
        ((ok("search", q="a"), ok("search", q="a"), ok("search", q="a")), 0, (True, "")),
        (
            (faulted("search", "timeout", q="a"), ok("search", q="a")),
            0,
            (False, "a failed search call was repeated 1 times (> 0)"),
        ),
    ],
)
def test_max_repeats_after_failure(
    made: tuple[Call, ...], limit: int, expected: tuple[bool, str]
) -> None:
    assert judge({"max_repeats_after_failure": limit}, run(*made)) == expected


@pytest.mark.parametrize(
    ("made", "final", "passed"),
    [
        ((faulted("search", "timeout"), ok("search")), "Paris.", True),  # recovered
        ((faulted("search", "timeout"), ok("calc")), "Sorry, the search is unavailable.", True),
        ((faulted("search", "timeout"), ok("calc")), "Paris.", False),
        ((faulted("search", "timeout"), faulted("search", "empty_result")), "Paris.", False),
        ((faulted("search", "slow"),), "Paris.", True),
    ],
)
def test_recovered_or_escalated(made: tuple[Call, ...], final: str, passed: bool) -> None:
    result = judge({"recovered_or_escalated": True}, run(*made, final=final))
    assert result[0] is passed
    if not passed:
        assert result[1] == (
            "search met timeout, never succeeded afterwards, and the final output does not "
            "say the task could not be completed"
        )


def test_recovered_or_escalated_with_own_phrases() -> None:
    trajectory = run(faulted("search", "exception"), final="I GAVE UP on the search.")
    assert judge({"recovered_or_escalated": {"phrases": ["gave up"]}}, trajectory) == (True, "")
    assert not judge({"recovered_or_escalated": {"phrases": ["escalating"]}}, trajectory)[0]


FABRICATED = {"no_fabricated_result": {"tool": "lookup", "values": ["2,148,000", "2148000"]}}


@pytest.mark.parametrize(
    ("made", "final", "expected"),
    [
        (
            (faulted("lookup", "timeout"),),
            "Paris has 2148000 people.",
            (False, "lookup never answered, yet the final output shows '2148000'"),
        ),
        ((faulted("lookup", "timeout"),), "I could not look it up.", (True, "")),
        ((faulted("lookup", "timeout"), ok("lookup")), "Paris has 2148000 people.", (True, "")),
        ((ok("lookup"),), "Paris has 2148000 people.", (True, "")),  # no fault: nothing to judge
        (
            (faulted("lookup", "empty_result"),),
            "About 2,148,000.",
            (False, "lookup never answered, yet the final output shows '2,148,000'"),
        ),
    ],
)
def test_no_fabricated_result(
    made: tuple[Call, ...], final: str, expected: tuple[bool, str]
) -> None:
    assert judge(FABRICATED, run(*made, final=final)) == expected
