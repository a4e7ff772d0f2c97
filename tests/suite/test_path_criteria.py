"""Criteria on the whole path and on the world a run left: ``tool_sequence`` in each match mode
with each argument matcher (holding and failing, with the reason), ``turns`` bounds and
``final_state`` by equality (the differing key named) and by a predicate; invalid
configurations refused with the suite line."""

from __future__ import annotations

import itertools
import random
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from pydantic import TypeAdapter, ValidationError

from trajguard.core.normalize import normalize
from trajguard.core.shape import shape
from trajguard.errors import SuiteError
from trajguard.suite import Criterion, import_object, load_suite, parse_criterion
from trajguard.suite import evaluate_criteria as evaluate
from trajguard.suite._call_sequence import executed_calls

ADAPTER: TypeAdapter[Any] = TypeAdapter(Criterion)


def run(
    *calls: tuple[str, dict[str, Any]],
    users: int = 1,
    state: Any = None,
    extra: Mapping[str, Any] | None = None,
    subagent_calls: tuple[tuple[str, dict[str, Any]], ...] = (),
) -> dict[str, Any]:
    """An ATIF run: ``users`` user turns, then one agent step per call, then an answer."""
    steps: list[dict[str, Any]] = []
    for turn in range(users):
        steps.append({"source": "user", "message": f"turn {turn}"})
        steps.append({"source": "agent", "message": "ok"})
    for index, (name, arguments) in enumerate(calls):
        call_id = f"c{index}"
        steps.append(
            {
                "source": "agent",
                "message": "",
                "tool_calls": [
                    {"tool_call_id": call_id, "function_name": name, "arguments": arguments}
                ],
                "observation": {"results": [{"source_call_id": call_id, "content": "ok"}]},
            }
        )
    steps.append({"source": "agent", "message": "done"})
    trajectory: dict[str, Any] = {
        "schema_version": "ATIF-v1.7",
        "session_id": "s",
        "agent": {"name": "tester", "version": "1"},
        "steps": [{"step_id": i, **s} for i, s in enumerate(steps, start=1)],
    }
    extras = dict(extra or {})
    if state is not None:
        extras["final_state"] = state
    if extras:
        trajectory["extra"] = extras
    if subagent_calls:
        child = run(*subagent_calls)
        child["trajectory_id"] = "child"
        trajectory["subagent_trajectories"] = [child]
    return trajectory


def criterion(raw: Mapping[str, Any]) -> Any:
    return ADAPTER.validate_python(parse_criterion(raw))


def judge(raw: Mapping[str, Any], trajectory: Mapping[str, Any], resolve: Any = None) -> Any:
    normalized = normalize(trajectory)
    (result,) = evaluate(
        [criterion(raw)], normalized, shape(normalized), resolve=resolve or import_object
    )
    assert result.criterion == next(iter(raw))
    assert (result.reason == "") is result.passed, "a reason exactly when it failed"
    return result


LOOKUP = ("lookup", {"city": "Paris", "days": 3})
BOOK = ("book", {"city": "Paris", "date": "2026-05-01", "note": "window seat please"})
PAY = ("pay", {"amount": 120, "card": {"last4": "4242", "brand": "visa"}})


# --- match modes ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("mode", "calls", "made", "passed", "reason"),
    [
        ("strict", ["lookup", "book"], [LOOKUP, BOOK], True, ""),
        ("strict", ["book", "lookup"], [LOOKUP, BOOK], False, "call 1 was lookup, expected book"),
        ("strict", ["lookup"], [LOOKUP, BOOK], False, "2 calls, expected 1: call 2 was book("),
        ("strict", ["lookup", "book", "pay"], [LOOKUP, BOOK], False, "no call matched pay"),
        ("strict", [], [], True, ""),
        ("unordered", ["book", "lookup"], [LOOKUP, BOOK], True, ""),
        ("unordered", ["book"], [LOOKUP, BOOK], False, "calls not expected: lookup("),
        ("unordered", ["book", "lookup", "pay"], [LOOKUP, BOOK], False, "no call matched pay"),
        ("unordered", ["book", "book"], [BOOK, LOOKUP], False, "no call matched book"),
        ("superset", ["book"], [LOOKUP, BOOK, PAY], True, ""),
        ("superset", ["pay", "lookup"], [LOOKUP, BOOK, PAY], True, ""),
        ("superset", ["book", "book"], [LOOKUP, BOOK], False, "no call matched book"),
        ("superset", ["refund"], [LOOKUP], False, "no call matched refund"),
        ("subset", ["lookup", "book", "pay"], [BOOK], True, ""),
        ("subset", ["lookup", "book"], [], True, ""),
        ("subset", ["lookup"], [LOOKUP, LOOKUP], False, "calls not expected: lookup("),
        ("subset", ["lookup", "book"], [BOOK, PAY], False, "calls not expected: pay("),
    ],
)
def test_match_modes(
    mode: str, calls: list[str], made: list[Any], passed: bool, reason: str
) -> None:
    result = judge({"tool_sequence": {"mode": mode, "calls": calls}}, run(*made))
    assert result.passed is passed
    assert reason in result.reason
    if not passed:
        assert "(the calls: " in result.reason or "(no tool was called)" in result.reason


def test_the_list_form_is_strict_and_the_label_names_mode_and_calls() -> None:
    parsed = criterion({"tool_sequence": ["lookup", {"name": "book"}]})
    assert parsed.mode == "strict"
    assert parsed.label == "tool_sequence (strict): lookup → book"
    assert judge({"tool_sequence": ["lookup", "book"]}, run(LOOKUP, BOOK)).passed


def test_labels_tell_apart_criteria_that_differ_in_arguments_only() -> None:
    paris = criterion({"tool_sequence": [{"name": "book", "arguments": {"city": "Paris"}}]})
    rome = criterion({"tool_sequence": [{"name": "book", "arguments": {"city": "Rome"}}]})
    assert paris.label == "tool_sequence (strict): book({'city': 'Paris'})"
    assert paris.label != rome.label
    many = [
        {"name": "book", "arguments": {"city": c}}
        for c in ("Paris", "Rome", "Oslo", "Lima", "Kyiv", "Bern")
    ]
    long_one = criterion({"tool_sequence": {"mode": "superset", "calls": many}})
    other = criterion({"tool_sequence": {"mode": "superset", "calls": [*many[:5], many[0]]}})
    assert len(long_one.label) < 160 and "… #" in long_one.label
    assert long_one.label != other.label


def test_the_matching_is_not_greedy() -> None:
    """The first expected entry fits both calls, the second only the first call: a greedy
    pairing would give the first call to the first entry and fail."""
    calls = [{"name": "lookup"}, {"name": "lookup", "arguments": {"city": "Paris"}}]
    made = [("lookup", {"city": "Paris"}), ("lookup", {"city": "Rome"})]
    assert judge({"tool_sequence": {"mode": "unordered", "calls": calls}}, run(*made)).passed


def test_subagent_calls_count_after_the_roots_and_unexecuted_calls_do_not() -> None:
    trajectory = run(LOOKUP, subagent_calls=(BOOK,))
    assert judge({"tool_sequence": ["lookup", "book"]}, trajectory).passed
    trajectory["steps"][-2]["tool_calls"][0]["extra"] = {"executed": False}
    failed = judge({"tool_sequence": ["lookup", "book"]}, trajectory)
    assert "call 1 was book, expected lookup" in failed.reason


# --- argument matchers ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("arguments", "passed", "reason"),
    [
        ({"city": "Paris"}, True, ""),
        ({"city": "paris"}, False, "argument 'city': 'Paris' is not 'paris'"),
        ({"city": {"exact": "Paris"}}, True, ""),
        ({"date": {"regex": r"^2026-05-\d\d$"}}, True, ""),
        ({"date": {"regex": r"^2025-"}}, False, "does not match regex '^2025-'"),
        ({"note": {"contains": "window"}}, True, ""),
        ({"note": {"contains": "aisle"}}, False, "does not contain 'aisle'"),
        ({"note": {"ignore": True}, "city": "Paris"}, True, ""),
        ({"seat": {"ignore": True}}, True, ""),
        ({"seat": "12A"}, False, "argument 'seat' is missing"),
        ({"seat": {"regex": "."}}, False, "argument 'seat' is missing"),
    ],
)
def test_argument_matchers_on_text(arguments: dict[str, Any], passed: bool, reason: str) -> None:
    raw = {"tool_sequence": [{"name": "book", "arguments": arguments}]}
    result = judge(raw, run(BOOK))
    assert result.passed is passed
    assert reason in result.reason
    if not passed:
        assert result.reason.startswith("call 1 (book): ")


@pytest.mark.parametrize(
    ("arguments", "passed"),
    [
        ({"amount": 120}, True),
        ({"amount": 120.0}, True),  # JSON numbers
        ({"amount": "120"}, False),  # text is not a number
        ({"amount": {"regex": "^1[0-9]{2}$"}}, True),  # a number is matched in its JSON form
        ({"card": {"contains": {"last4": "4242"}}}, True),
        ({"card": {"contains": {"last4": "0000"}}}, False),
        ({"card": {"last4": "4242"}}, False),  # exact: the whole object
        ({"card": {"exact": {"last4": "4242", "brand": "visa"}}}, True),
    ],
)
def test_argument_matchers_on_numbers_and_objects(arguments: dict[str, Any], passed: bool) -> None:
    raw = {"tool_sequence": [{"name": "pay", "arguments": arguments}]}
    assert judge(raw, run(PAY)).passed is passed


def test_contains_on_a_list_and_booleans_are_not_numbers() -> None:
    made = ("tag", {"labels": ["urgent", "billing"], "notify": True})
    ok = [{"name": "tag", "arguments": {"labels": {"contains": "billing"}}}]
    assert judge({"tool_sequence": ok}, run(made)).passed
    both = [{"name": "tag", "arguments": {"labels": {"contains": ["billing", "urgent"]}}}]
    assert judge({"tool_sequence": both}, run(made)).passed
    missing = [{"name": "tag", "arguments": {"labels": {"contains": "sales"}}}]
    assert not judge({"tool_sequence": missing}, run(made)).passed
    one = [{"name": "tag", "arguments": {"notify": 1}}]
    assert "argument 'notify': True is not 1" in judge({"tool_sequence": one}, run(made)).reason
    true = [{"name": "tag", "arguments": {"notify": True}}]
    assert judge({"tool_sequence": true}, run(made)).passed


def test_strict_arguments_refuse_an_argument_not_named() -> None:
    named = {"city": "Paris", "date": {"ignore": True}}
    loose = [{"name": "book", "arguments": named}]
    assert judge({"tool_sequence": loose}, run(BOOK)).passed
    strict = [{"name": "book", "arguments": named, "strict_arguments": True}]
    failed = judge({"tool_sequence": strict}, run(BOOK))
    assert "argument 'note' is not expected (strict_arguments)" in failed.reason
    every = {**named, "note": {"ignore": True}}
    assert judge(
        {"tool_sequence": [{"name": "book", "arguments": every, "strict_arguments": True}]},
        run(BOOK),
    ).passed


def test_arguments_that_are_not_an_object_do_not_match_named_arguments() -> None:
    made = ("book", "not json {")  # a model's unparsed arguments
    assert judge({"tool_sequence": ["book"]}, run(made)).passed  # type: ignore[arg-type]
    failed = judge({"tool_sequence": [{"name": "book", "arguments": {"city": "Paris"}}]}, run(made))  # type: ignore[arg-type]
    assert "its arguments are not an object" in failed.reason


def test_matchers_in_every_mode() -> None:
    wanted = [{"name": "book", "arguments": {"date": {"regex": "^2026-"}}}]
    for mode in ("unordered", "superset", "subset"):
        raw = {"tool_sequence": {"mode": mode, "calls": wanted}}
        assert judge(raw, run(BOOK)).passed
        other = ("book", {**BOOK[1], "date": "2025-12-24"})
        failed = judge(raw, run(other))
        assert not failed.passed and "book(" in failed.reason


# --- turns ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "users", "passed", "reason"),
    [
        ({"turns": 3}, 3, True, ""),
        ({"turns": 3}, 2, False, "2 user turns, expected 3..3"),
        ({"turns": {"min": 2}}, 4, True, ""),
        ({"turns": {"min": 2}}, 1, False, "1 user turn, expected 2..∞"),
        ({"turns": {"max": 2}}, 2, True, ""),
        ({"turns": {"max": 2}}, 3, False, "3 user turns, expected 0..2"),
        ({"turns": {"min": 1, "max": 1}}, 1, True, ""),
    ],
)
def test_turns_bounds(raw: dict[str, Any], users: int, passed: bool, reason: str) -> None:
    result = judge(raw, run(users=users))
    assert result.passed is passed
    assert result.reason == reason


def test_turns_labels() -> None:
    assert criterion({"turns": 3}).label == "turns: 3"
    assert criterion({"turns": {"min": 2}}).label == "turns: 2..∞"


# --- final_state ------------------------------------------------------------------------------

SEATED = {"bookings": [{"flight": "AF12", "seat": "12A"}], "balance": 80, "open": True}


def test_final_state_equal_holds_and_a_difference_names_the_key() -> None:
    assert judge({"final_state": {"expected": SEATED}}, run(state=SEATED)).passed
    moved = {**SEATED, "bookings": [{"flight": "AF12", "seat": "14C"}]}
    failed = judge({"final_state": {"expected": SEATED}}, run(state=moved))
    assert failed.reason == "final state differs: state.bookings[0].seat: '14C', expected '12A'"
    more = {**SEATED, "refund": 20}
    failed = judge({"final_state": {"expected": SEATED}}, run(state=more))
    assert failed.reason == "final state differs: state.refund is not expected (it is 20)"
    fewer = {k: v for k, v in SEATED.items() if k != "open"}
    failed = judge({"final_state": {"expected": SEATED}}, run(state=fewer))
    assert failed.reason == "final state differs: state.open is missing, expected True"
    flag = {**SEATED, "open": 1}
    assert (
        "state.open: 1, expected True"
        in judge({"final_state": {"expected": SEATED}}, run(state=flag)).reason
    )


def test_a_list_of_another_length_says_how_many_items_it_has() -> None:
    twice = {**SEATED, "bookings": SEATED["bookings"] * 2}
    failed = judge({"final_state": {"expected": SEATED}}, run(state=twice))
    assert failed.reason == (
        "final state differs: state.bookings has 2 items, expected 1 "
        "([{'flight': 'AF12', 'seat': '12A'}])"
    )


def test_final_state_contains_looks_at_the_keys_given_only() -> None:
    raw = {"final_state": {"expected": {"balance": 80}, "match": "contains"}}
    assert judge(raw, run(state={**SEATED, "refund": 20})).passed
    failed = judge(raw, run(state={**SEATED, "balance": 200}))
    assert failed.reason == "final state differs: state.balance: 200, expected 80"


def test_final_state_lists_at_most_three_differences() -> None:
    expected = {f"k{i}": i for i in range(5)}
    failed = judge({"final_state": {"expected": expected}}, run(state={}))
    assert failed.reason.endswith("and 2 more")


def test_a_run_without_a_final_state_fails_saying_why() -> None:
    failed = judge({"final_state": {"expected": {}}}, run())
    assert "the run recorded no final state" in failed.reason
    broken = run(extra={"final_state_error": "the final state could not be read: cycle"})
    assert judge({"final_state": {"expected": {}}}, broken).reason == (
        "the final state could not be read: cycle"
    )


def test_final_state_predicate_gets_the_state() -> None:
    seen: list[Any] = []

    def has_booking(state: Any) -> bool:
        seen.append(state)
        return bool(state["bookings"])

    raw = {"final_state": {"predicate": "checks:has_booking"}}
    result = judge(raw, run(state=SEATED), resolve=lambda _: has_booking)
    assert result.passed and seen == [SEATED]
    assert result.label == "final_state: checks:has_booking"
    failed = judge(raw, run(state={"bookings": []}), resolve=lambda _: has_booking)
    assert failed.reason == "checks:has_booking returned false for the final state {'bookings': []}"
    assert not failed.error


def test_a_final_state_predicate_that_raises_is_a_criterion_error() -> None:
    def broken(state: Any) -> bool:
        raise KeyError("bookings")

    raw = {"final_state": {"predicate": "checks:broken"}}
    result = judge(raw, run(state={}), resolve=lambda _: broken)
    assert (result.passed, result.error) == (False, True)
    assert result.reason == "checks:broken raised KeyError: 'bookings'"


def test_a_final_state_predicate_by_import_path(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.syspath_prepend(str(tmp_path))
    (tmp_path / "state_checks_a1.py").write_text(
        "def paid(state):\n    return state.get('balance', 0) >= 80\n"
    )
    raw = {"final_state": {"predicate": "state_checks_a1:paid"}}
    assert judge(raw, run(state=SEATED)).passed
    assert not judge(raw, run(state={"balance": 10})).passed


# --- invalid configurations -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"tool_sequence": {"mode": "exact", "calls": []}}, "'strict', 'unordered'"),
        ({"tool_sequence": {"calls": [{"nam": "x"}]}}, "nam"),
        ({"tool_sequence": {"mode": "strict"}}, "calls"),
        (
            {"tool_sequence": [{"name": "x", "arguments": {"a": {"regex": "(a+)+$"}}}]},
            "exponential",
        ),
        (
            {"tool_sequence": [{"name": "x", "arguments": {"a": {"regex": "(a|ab)*c"}}}]},
            "exponential",
        ),
        (
            {"tool_sequence": [{"name": "x", "arguments": {"a": {"regex": "(unclosed"}}}]},
            "not a valid regular expression",
        ),
        (
            {"tool_sequence": [{"name": "x", "arguments": {"a": {"regex": 3}}}]},
            "regex takes a pattern",
        ),
        (
            {"tool_sequence": [{"name": "x", "arguments": {"a": {"regex": "a" * 1001}}}]},
            "longer than 1000",
        ),
        (
            {"tool_sequence": [{"name": "x", "arguments": {"a": {"ignore": False}}}]},
            "ignore takes true",
        ),
        (
            {"tool_sequence": [{"name": "x", "strict_arguments": True}]},
            "strict_arguments needs arguments",
        ),
        ({"tool_sequence": [{"name": ""}]}, "at least 1 character"),
        ({"turns": {"min": 3, "max": 1}}, "min \\(3\\) is greater than max \\(1\\)"),
        ({"turns": {}}, "give min, max or both"),
        ({"turns": -1}, "greater than or equal to 0"),
        ({"final_state": {"expected": {"a": 1}, "predicate": "m:f"}}, "not both and not neither"),
        ({"final_state": {"match": "contains"}}, "not both and not neither"),
        ({"final_state": {"predicate": "no_colon"}}, "pattern"),
        ({"final_state": {"expected": {}, "match": "subset"}}, "'exact' or 'contains'"),
        ({"final_state": "x"}, "valid dictionary"),
    ],
)
def test_invalid_configurations_are_refused(raw: dict[str, Any], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        criterion(raw)


def test_allowed_regexes_load() -> None:
    for pattern in (r"^2026-\d\d-\d\d$", "(get|put)+", r"(\d|x)+", ".*window.*", "(ab{3})+"):
        criterion({"tool_sequence": [{"name": "x", "arguments": {"a": {"regex": pattern}}}]})


SUITE = """\
name: paths
scenarios:
  - id: trip
    agent: {kind: builtin, tools: ["trajguard.examples.demo_tools:lookup_country"]}
    input: Plan a trip
    state: {bookings: []}
    pass:
      - tool_sequence: {mode: unordred, calls: [lookup_country]}
      - tool_sequence:
          calls:
            - name: lookup_country
              argumnts: {country: France}
      - tool_sequence:
          calls:
            - name: lookup_country
              arguments: {country: {regex: "(a+)+$"}}
      - tool_sequence: [lookup_contry]
      - turns: {min: 3, max: 1}
      - final_state: {bookings: []}
      - final_state: {predicate: "state_checks_missing_zz:ok"}
"""


def problems(tmp_path: Path, text: str) -> list[SuiteError]:
    path = tmp_path / "suite.yaml"
    path.write_text(text)
    with pytest.raises(SuiteError) as info:
        load_suite(path)
    return list(getattr(info.value, "problems", None) or [info.value])


def test_a_suite_file_names_each_problem_with_its_line_and_field(tmp_path: Path) -> None:
    found = {(p.line, p.path): p.message for p in problems(tmp_path, SUITE)}
    assert (
        "'strict', 'unordered', 'subset' or 'superset'"
        in found[(8, "scenarios[0].pass[0].tool_sequence.mode")]
    )
    assert (
        "did you mean 'arguments'?"
        in found[(12, "scenarios[0].pass[1].tool_sequence.calls[0].argumnts")]
    )
    assert (
        "exponential time" in found[(16, "scenarios[0].pass[2].tool_sequence.calls[0].arguments")]
    )
    assert "min (3) is greater than max (1)" in found[(18, "scenarios[0].pass[4].turns")]
    assert (
        "unknown field 'bookings' (allowed: expected, match, predicate)"
        in found[(19, "scenarios[0].pass[5].final_state.bookings")]
    )
    assert all(m.startswith("scenario 'trip': ") for m in found.values())


def test_tool_names_and_predicates_are_checked_once_the_structure_is_valid(tmp_path: Path) -> None:
    lines = SUITE.splitlines()
    valid_structure = "\n".join([*lines[:7], lines[16], lines[19]]) + "\n"
    found = {(p.line, p.path): p.message for p in problems(tmp_path, valid_structure)}
    assert found[(8, "scenarios[0].pass[0]")] == (
        "scenario 'trip': tool_sequence names tool 'lookup_contry', which the agent is never "
        "given; did you mean 'lookup_country'?"
    )
    assert found[(9, "scenarios[0].pass[1].final_state")].startswith(
        "scenario 'trip': cannot import module 'state_checks_missing_zz'"
    )


def test_a_state_json_cannot_hold_is_refused(tmp_path: Path) -> None:
    text = SUITE.split("    pass:")[0].replace("{bookings: []}", "{day: 2026-05-01}")
    (problem,) = problems(tmp_path, text)
    assert problem.line == 6
    assert "state.day is a date" in problem.message and "quote it" in problem.message


def test_a_longer_augmenting_path_is_found() -> None:
    """Greedily, entry 0 takes call 0 and entry 1 call 1; entry 2 fits call 0 only, so entry 0
    must move to call 1 and entry 1 to call 2."""
    calls = [
        {"name": "lookup", "arguments": {"i": {"regex": "^[01]$"}}},
        {"name": "lookup", "arguments": {"i": {"regex": "^[12]$"}}},
        {"name": "lookup", "arguments": {"i": 0}},
    ]
    made = [("lookup", {"i": i}) for i in range(3)]
    assert judge({"tool_sequence": {"mode": "unordered", "calls": calls}}, run(*made)).passed


def test_the_matching_agrees_with_trying_every_assignment() -> None:
    """Random small cases (a fixed seed): the modes hold exactly when some assignment of
    entries to distinct calls (or calls to distinct entries) exists."""
    rng = random.Random(37)
    for _ in range(300):
        made = [("t", {"v": rng.randrange(3)}) for _ in range(rng.randrange(5))]
        entries = []
        for _ in range(rng.randrange(4)):
            allowed = sorted(rng.sample(range(3), rng.randrange(1, 4)))
            pattern = "^[" + "".join(map(str, allowed)) + "]$"
            entries.append({"name": "t", "arguments": {"v": {"regex": pattern}}})

        def fits(entry: dict[str, Any], call: tuple[str, dict[str, Any]]) -> bool:
            return str(call[1]["v"]) in entry["arguments"]["v"]["regex"]

        def injective(left: list[Any], right: list[Any], ok: Any) -> bool:
            return any(
                all(ok(a, b) for a, b in zip(left, chosen, strict=True))
                for chosen in itertools.permutations(right, len(left))
            )

        superset = injective(entries, made, fits)
        subset = injective(made, entries, lambda c, e: fits(e, c))
        unordered = len(entries) == len(made) and superset
        for mode, expected in (
            ("superset", superset),
            ("subset", subset),
            ("unordered", unordered),
        ):
            raw = {"tool_sequence": {"mode": mode, "calls": entries}}
            assert judge(raw, run(*made)).passed is expected, (mode, entries, made)


def test_the_calls_are_in_the_order_of_the_tool_sequence_column() -> None:
    grandchild = run(("c", {}))
    grandchild["trajectory_id"] = "grandchild"
    child = run(("b", {}))
    child.update(trajectory_id="child", subagent_trajectories=[grandchild])
    sibling = run(("d", {}))
    sibling["trajectory_id"] = "sibling"
    root = run(("a", {}))
    root["subagent_trajectories"] = [child, sibling]
    normalized = normalize(root)
    names = [name for name, _ in executed_calls(normalized)]
    assert names == list(shape(normalized).tool_calls)
    assert sorted(names) == ["a", "b", "c", "d"]


def test_the_state_is_part_of_the_config_hash_and_an_absent_one_changes_no_hash(
    tmp_path: Path,
) -> None:
    base = SUITE.split("    pass:")[0]
    hashes = []
    for seed in ("{bookings: []}", "{bookings: [AF12]}", "{}", None):
        text = base if seed else base.replace("    state: {bookings: []}\n", "")
        path = tmp_path / f"suite_{len(hashes)}.yaml"
        path.write_text(text.replace("{bookings: []}", seed or ""))
        hashes.append(load_suite(path).resolve("trip").config_hash())
    assert hashes[0] != hashes[1], "the seed is part of the hash"
    assert hashes[2] == hashes[3], "an empty state is no state: older suites keep their hash"
    assert load_suite(path).resolve("trip").state is None
