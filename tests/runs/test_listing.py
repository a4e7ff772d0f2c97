"""`list_runs`: every filter against counting the rows by hand, on a run set made by the row
builder (schema 2) and on a committed night of store schema 1."""

from __future__ import annotations

from pathlib import Path

import pytest

from trajguard import store
from trajguard.errors import UsageError
from trajguard.runs import RunFilter, failed_criteria_of, list_runs, parse_sequence

REPO = Path(__file__).resolve().parents[2]
OLD_NIGHT = REPO / "benchmarks" / "data" / "real-nights-2026-12-01" / "edited-seed1"


def test_every_run_is_listed_in_order_with_its_failed_criteria(small_runset: Path) -> None:
    lines = list_runs(small_runset)
    assert [line.run_id for line in lines] == [
        *(f"capital/base/{i}" for i in range(6)),
        *(f"greeting/terse/{i}" for i in range(3)),
    ]
    by_id = {line.run_id: line for line in lines}
    assert by_id["capital/base/0"].failed == ()
    assert by_id["capital/base/0"].passed is True
    assert by_id["capital/base/3"].failed == ("tool_not_called: get_weather",)
    assert by_id["capital/base/4"].failed == (
        "tool_called: lookup_country",
        "tool_not_called: get_weather",
    )
    assert by_id["capital/base/5"].failed == ('final_output_contains: "Canberra"',)
    assert by_id["capital/base/2"].tool_sequence == ("lookup_country", "calculator")
    harness = by_id["greeting/terse/2"]
    assert (harness.status, harness.passed, harness.failed) == ("harness_error", None, ())


@pytest.mark.parametrize(
    ("chosen", "expected"),
    [
        (RunFilter(scenario="capital"), 6),
        (RunFilter(variant="terse"), 3),
        (RunFilter(status="harness_error"), 1),
        (RunFilter(passed=True), 5),  # capital 0, 1, 2 and both judged greetings (no criteria)
        (RunFilter(passed=False), 3),
        (RunFilter(scenario="capital", passed=False), 3),
        (RunFilter(criterion="tool_not_called"), 2),  # by kind
        (RunFilter(criterion="tool_not_called: get_weather"), 2),  # by label
        (RunFilter(criterion='final_output_contains: "Canberra"'), 1),
        (RunFilter(criterion="tool_called: get_weather"), 0),  # no such criterion
        (RunFilter(sequence=("lookup_country",)), 3),
        (RunFilter(sequence=()), 2),  # the greeting without a call, and the harness error
        (RunFilter(sequence=("get_weather",)), 2),
        (RunFilter(scenario="capital", limit=2), 2),
    ],
)
def test_filters_keep_what_counting_by_hand_keeps(
    small_runset: Path, chosen: RunFilter, expected: int
) -> None:
    assert len(list_runs(small_runset, chosen)) == expected


def test_filters_on_an_old_night_agree_with_counting_its_rows() -> None:
    """Store schema 1: no criteria column; failed criteria are known by kind only."""
    frame = store.read_runs(OLD_NIGHT)
    assert frame["criteria"].isna().all()
    lines = list_runs(OLD_NIGHT)
    assert len(lines) == len(frame) == 80
    failed_by_hand = sum(
        any(e.startswith("tool_not_called") for e in entries)
        for entries in frame["failed_criteria"]
    )
    assert len(list_runs(OLD_NIGHT, RunFilter(criterion="tool_not_called"))) == failed_by_hand
    weather = frame[frame["scenario"] == "greeting"]
    not_passed = int((weather["passed"] == False).sum())  # noqa: E712
    assert len(list_runs(OLD_NIGHT, RunFilter(scenario="greeting", passed=False))) == not_passed
    crashed = int((frame["status"] == "agent_error").sum())
    assert len(list_runs(OLD_NIGHT, RunFilter(criterion="no crash"))) == crashed
    sequence = ("lookup_country", "calculator")
    by_hand = sum(1 for seq in frame["tool_sequence"] if tuple(seq) == sequence)
    assert len(list_runs(OLD_NIGHT, RunFilter(sequence=sequence))) == by_hand > 0


def test_failed_criteria_of_a_schema_1_row_are_kinds_with_the_crash_first() -> None:
    row = {
        "status": "agent_error",
        "crashed": False,
        "criteria": None,
        "failed_criteria": ["no crash: the run ended as agent_error", "tool_called: x called 0"],
    }
    assert failed_criteria_of(row) == ("no crash", "tool_called")


@pytest.mark.parametrize(
    ("text", "sequence"),
    [
        ("a > b", ("a", "b")),
        ("a → b → a", ("a", "b", "a")),
        ("get_weather", ("get_weather",)),
        ("", ()),
        ("(no tools)", ()),
    ],
)
def test_parse_sequence(text: str, sequence: tuple[str, ...]) -> None:
    assert parse_sequence(text) == sequence


def test_bad_filters_are_usage_errors(small_runset: Path) -> None:
    with pytest.raises(UsageError, match="--limit must be at least 1"):
        list_runs(small_runset, RunFilter(limit=0))
    with pytest.raises(UsageError, match="unknown --status 'okay'") as caught:
        list_runs(small_runset, RunFilter(status="okay"))
    assert "agent_error" in str(caught.value)
