"""Pass criteria: every kind passes and fails on hand-built runs, with the reason it gives;
``parse_criterion`` turns the suite forms into the tagged form and rejects malformed ones."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from pydantic import TypeAdapter, ValidationError

from trajguard.core.normalize import normalize
from trajguard.core.shape import shape
from trajguard.errors import SuiteError
from trajguard.suite import KINDS, Criterion, import_object, load_suite, parse_criterion
from trajguard.suite import evaluate_criteria as evaluate

ADAPTER: TypeAdapter[Any] = TypeAdapter(Criterion)
IS_NUMBER = "trajguard.examples.predicates:answered_with_a_number"
NO_TOOL_ERRORS = "trajguard.examples.predicates:every_tool_call_succeeded"


def call(name: str, **arguments: Any) -> tuple[str, dict[str, Any]]:
    return name, arguments


def run(
    *calls: tuple[str, dict[str, Any]] | str,
    final: str | None = "The answer is 391.",
    tokens: tuple[int, int] = (10, 5),
    subagents: list[dict[str, Any]] | None = None,
    errors: Mapping[int, str] | None = None,
) -> dict[str, Any]:
    """An ATIF v1.7 run: a user step, one agent step per tool call, then the final answer.

    Every agent step carries ``tokens`` (prompt, completion); ``errors`` maps a call's index to
    an ``extra.error`` code on its observation result.
    """
    steps: list[dict[str, Any]] = [{"source": "user", "message": "What is 17 * 23?"}]
    for index, item in enumerate(calls):
        name, arguments = (item, {}) if isinstance(item, str) else item
        call_id = f"toolu_{index:03d}"
        result: dict[str, Any] = {"source_call_id": call_id, "content": "ok"}
        if errors and index in errors:
            result["extra"] = {"error": errors[index]}
        steps.append(
            {
                "source": "agent",
                "message": "",
                "tool_calls": [
                    {"tool_call_id": call_id, "function_name": name, "arguments": arguments}
                ],
                "observation": {"results": [result]},
                "metrics": {"prompt_tokens": tokens[0], "completion_tokens": tokens[1]},
            }
        )
    if final is not None:
        steps.append(
            {
                "source": "agent",
                "message": final,
                "metrics": {"prompt_tokens": tokens[0], "completion_tokens": tokens[1]},
            }
        )
    trajectory: dict[str, Any] = {
        "schema_version": "ATIF-v1.7",
        "session_id": "sess-1",
        "agent": {"name": "tester", "version": "1"},
        "steps": [{"step_id": i, **step} for i, step in enumerate(steps, start=1)],
    }
    if subagents:
        trajectory["subagent_trajectories"] = copy.deepcopy(subagents)
    return trajectory


def sub(*calls: tuple[str, dict[str, Any]] | str, tid: str = "child", **kwargs: Any) -> dict:
    child = run(*calls, final="done", **kwargs)
    child["trajectory_id"] = tid
    return child


def criterion(raw: Mapping[str, Any]) -> Any:
    return ADAPTER.validate_python(parse_criterion(raw))


def judge(raw: Mapping[str, Any], trajectory: Mapping[str, Any]) -> tuple[bool, str]:
    normalized = normalize(trajectory)
    (result,) = evaluate([criterion(raw)], normalized, shape(normalized), resolve=import_object)
    assert result.criterion == next(iter(raw))
    if result.passed:
        assert result.reason == "", "a criterion that holds gives no reason"
    return result.passed, result.reason


# --- tool_called ------------------------------------------------------------------------------


def test_tool_called_scalar_means_at_least_once() -> None:
    assert judge({"tool_called": "calculator"}, run("calculator")) == (True, "")
    assert judge({"tool_called": "calculator"}, run("calculator", "calculator"))[0]
    assert judge({"tool_called": "calculator"}, run("get_weather")) == (
        False,
        "calculator called 0 times, expected 1..∞",
    )


@pytest.mark.parametrize(
    ("bounds", "count", "passed", "reason"),
    [
        ({"min": 0, "max": 0}, 0, True, ""),
        ({"min": 0, "max": 0}, 1, False, "lookup called 1 times, expected 0..0"),
        ({"min": 0}, 0, True, ""),
        ({"min": 2, "max": 2}, 2, True, ""),
        ({"min": 2, "max": 2}, 1, False, "lookup called 1 times, expected 2..2"),
        ({"min": 2, "max": 2}, 3, False, "lookup called 3 times, expected 2..2"),
        ({"min": 1, "max": 3}, 3, True, ""),
        ({"min": 1, "max": 3}, 4, False, "lookup called 4 times, expected 1..3"),
        ({"min": 2}, 7, True, ""),
        ({"min": 2}, 1, False, "lookup called 1 times, expected 2..∞"),
        ({"max": 2}, 0, False, "lookup called 0 times, expected 1..2"),
    ],
)
def test_tool_called_bounds(bounds: dict[str, int], count: int, passed: bool, reason: str) -> None:
    trajectory = run(*["lookup"] * count, "calculator")
    assert judge({"tool_called": {"name": "lookup", **bounds}}, trajectory) == (passed, reason)


def test_tool_called_counts_calls_inside_subagents() -> None:
    trajectory = run("calculator", subagents=[sub("lookup", "lookup", tid="a")])
    assert judge({"tool_called": {"name": "lookup", "min": 2, "max": 2}}, trajectory)[0]
    assert judge({"tool_called": {"name": "lookup", "max": 1}}, trajectory) == (
        False,
        "lookup called 2 times, expected 1..1",
    )


def test_tool_called_min_above_max_is_rejected() -> None:
    # {max: 0} with the default min of 1 could never pass; say so when the suite is loaded.
    with pytest.raises(ValidationError, match=r"min \(1\) is greater than max \(0\)"):
        criterion({"tool_called": {"name": "lookup", "max": 0}})
    with pytest.raises(ValidationError, match=r"min \(3\) is greater than max \(2\)"):
        criterion({"tool_called": {"name": "lookup", "min": 3, "max": 2}})


def test_impossible_bounds_are_a_suite_error_with_file_and_line(tmp_path: Path) -> None:
    suite_file = tmp_path / "suite.yaml"
    suite_file.write_text(
        """name: bounds
scenarios:
  - id: never
    agent: {kind: callable, function: "trajguard.examples.predicates:answered_with_a_number"}
    input: hi
    pass:
      - tool_called: {name: lookup, max: 0}
"""
    )
    with pytest.raises(SuiteError) as info:
        load_suite(suite_file)
    text = str(info.value)
    assert "min (1) is greater than max (0)" in text
    assert "set min: 0" in text
    assert str(suite_file) in text
    assert ":7" in text, text


# --- tool_not_called --------------------------------------------------------------------------


def test_tool_not_called() -> None:
    assert judge({"tool_not_called": "get_weather"}, run("calculator")) == (True, "")
    assert judge({"tool_not_called": "get_weather"}, run()) == (True, "")
    assert judge(
        {"tool_not_called": "get_weather"}, run("get_weather", "calculator", "get_weather")
    ) == (False, "get_weather called 2 times, expected none")


def test_tool_not_called_sees_subagents() -> None:
    trajectory = run("calculator", subagents=[sub("get_weather")])
    assert judge({"tool_not_called": "get_weather"}, trajectory) == (
        False,
        "get_weather called 1 times, expected none",
    )


# --- tool_called_with -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("expected", "passed"),
    [
        ({"city": "Paris"}, True),  # a subset of the call's arguments
        ({"city": "Paris", "units": {"temp": "C"}}, True),
        ({"units": {"temp": "C"}}, True),  # nested subset
        ({"units": {}}, True),
        ({}, True),  # any call of the tool
        ({"city": "paris"}, False),  # values compare exactly
        ({"city": "Paris", "country": "FR"}, False),  # a key the call lacks
        ({"units": {"temp": "F"}}, False),  # nested value differs
        ({"units": {"wind": "kmh"}}, False),  # nested key missing
        ({"city": {"name": "Paris"}}, False),  # a mapping against a scalar
        ({"days": [1, 2]}, True),  # lists compare whole
        ({"days": [1]}, False),
    ],
)
def test_tool_called_with_argument_subset(expected: dict[str, Any], passed: bool) -> None:
    trajectory = run(
        call("get_weather", city="Paris", units={"temp": "C", "precision": 1}, days=[1, 2])
    )
    ok, reason = judge(
        {"tool_called_with": {"name": "get_weather", "arguments": expected}}, trajectory
    )
    assert ok is passed
    if not passed:
        seen = "{'city': 'Paris', 'units': {'temp': 'C', 'precision': 1}, 'days': [1, 2]}"
        assert reason == f"no call of get_weather had arguments {expected} (its 1 call had {seen})"


def test_tool_called_with_any_call_matches() -> None:
    trajectory = run(call("lookup", country="Japan"), call("lookup", country="France"))
    raw = {"tool_called_with": {"name": "lookup", "arguments": {"country": "France"}}}
    assert judge(raw, trajectory) == (True, "")


def test_tool_called_with_needs_the_named_tool() -> None:
    trajectory = run(call("calculator", expression="17*23"))
    raw = {"tool_called_with": {"name": "lookup", "arguments": {"expression": "17*23"}}}
    assert judge(raw, trajectory) == (
        False,
        "no call of lookup had arguments {'expression': '17*23'} (lookup was never called)",
    )
    assert not judge({"tool_called_with": {"name": "lookup", "arguments": {}}}, trajectory)[0]


def test_tool_called_with_finds_calls_inside_nested_subagents() -> None:
    grandchild = sub(
        call("lookup", country="Kenya", opts={"fields": {"capital": True}}), tid="grandchild"
    )
    child = sub(call("calculator", expression="1+1"), tid="child", subagents=[grandchild])
    trajectory = run(call("calculator", expression="2+2"), subagents=[child])
    nested = {"name": "lookup", "arguments": {"opts": {"fields": {"capital": True}}}}
    assert judge({"tool_called_with": nested}, trajectory) == (True, "")
    in_child = {"name": "calculator", "arguments": {"expression": "1+1"}}
    assert judge({"tool_called_with": in_child}, trajectory) == (True, "")
    absent = {"name": "lookup", "arguments": {"country": "Chile"}}
    assert judge({"tool_called_with": absent}, trajectory) == (
        False,
        "no call of lookup had arguments {'country': 'Chile'} (its 1 call had "
        "{'country': 'Kenya', 'opts': {'fields': {'capital': True}}})",
    )


# --- final_output_contains / final_output_matches ---------------------------------------------


def test_final_output_contains_is_case_insensitive_by_default() -> None:
    trajectory = run(final="The capital is CANBERRA.")
    assert judge({"final_output_contains": "canberra"}, trajectory) == (True, "")
    assert judge({"final_output_contains": "Sydney"}, trajectory) == (
        False,
        "final output does not contain 'Sydney' (it was 'The capital is CANBERRA.')",
    )


def test_final_output_contains_case_sensitive() -> None:
    trajectory = run(final="The capital is Canberra.")
    exact = {"final_output_contains": {"text": "Canberra", "case_sensitive": True}}
    assert judge(exact, trajectory) == (True, "")
    lower = {"final_output_contains": {"text": "canberra", "case_sensitive": True}}
    assert judge(lower, trajectory) == (
        False,
        "final output does not contain 'canberra' (it was 'The capital is Canberra.')",
    )


def test_final_output_is_the_last_agent_message() -> None:
    # the final answer, not an earlier agent message, and nothing when no agent step exists
    trajectory = run(final="391")
    trajectory["steps"][0]["message"] = "Maria asks: 17 * 23?"
    assert not judge({"final_output_contains": "Maria"}, trajectory)[0]
    no_answer = run(final=None)
    assert judge({"final_output_contains": "391"}, no_answer) == (
        False,
        "final output does not contain '391' (there was no final output)",
    )


def test_final_output_matches() -> None:
    pattern = r"\b391\b"
    assert judge({"final_output_matches": pattern}, run(final="It is 391.")) == (True, "")
    assert judge({"final_output_matches": pattern}, run(final="It is 3910.")) == (
        False,
        r"final output does not match '\\b391\\b' (it was 'It is 3910.')",
    )
    # re.search, case-sensitive unless the pattern says otherwise
    assert not judge({"final_output_matches": "canberra"}, run(final="Canberra"))[0]
    assert judge({"final_output_matches": "(?i)canberra"}, run(final="Canberra"))[0]
    assert judge({"final_output_matches": "^$"}, run(final=None))[0]


# --- max_steps / max_total_tokens -------------------------------------------------------------


def test_max_steps_counts_root_steps() -> None:
    trajectory = run("lookup", "calculator")  # user + 2 tool steps + answer = 4 root steps
    assert judge({"max_steps": 4}, trajectory) == (True, "")
    assert judge({"max_steps": 3}, trajectory) == (False, "4 steps > 3")
    with_child = run("lookup", subagents=[sub("a", "b", "c")])
    assert judge({"max_steps": 3}, with_child) == (True, ""), "subagent steps are not root steps"


def test_max_total_tokens_sums_prompt_and_completion_over_the_tree() -> None:
    trajectory = run("lookup", tokens=(20, 7))  # 2 agent steps x 27
    assert judge({"max_total_tokens": 54}, trajectory) == (True, "")
    assert judge({"max_total_tokens": 53}, trajectory) == (False, "54 tokens > 53")
    with_child = run("lookup", tokens=(20, 7), subagents=[sub(tokens=(1, 1))])
    assert judge({"max_total_tokens": 54}, with_child) == (False, "56 tokens > 54")


# --- predicate --------------------------------------------------------------------------------


def test_predicate_by_import_path() -> None:
    assert judge({"predicate": IS_NUMBER}, run(final="It is 391.")) == (True, "")
    assert judge({"predicate": IS_NUMBER}, run(final="I do not know.")) == (
        False,
        f"{IS_NUMBER} returned false",
    )
    assert judge({"predicate": NO_TOOL_ERRORS}, run("lookup", "calculator")) == (True, "")
    failing = run("lookup", "calculator", errors={1: "tool_error"})
    assert judge({"predicate": NO_TOOL_ERRORS}, failing) == (
        False,
        f"{NO_TOOL_ERRORS} returned false",
    )


def test_predicate_gets_the_normalised_trajectory_through_resolve() -> None:
    seen: list[Mapping[str, Any]] = []
    resolved: list[str] = []

    def resolve(path: str) -> Any:
        resolved.append(path)
        return lambda trajectory: seen.append(trajectory) or 0  # falsy

    normalized = normalize(run("lookup"))
    (result,) = evaluate(
        [criterion({"predicate": "my_checks:anything"})],
        normalized,
        shape(normalized),
        resolve=resolve,
    )
    assert resolved == ["my_checks:anything"]
    assert seen == [normalized]
    assert "session_id" not in seen[0], "volatile fields are gone before a predicate sees them"
    assert (result.passed, result.reason) == (False, "my_checks:anything returned false")


def test_predicate_that_raises_fails_the_criterion_with_the_error() -> None:
    # a user's check that raises must not take the batch down: it fails, and says why
    def resolve(path: str) -> Any:
        def check(trajectory: Mapping[str, Any]) -> bool:
            raise KeyError("final")

        return check

    normalized = normalize(run())
    (result,) = evaluate(
        [criterion({"predicate": "my_checks:broken"})],
        normalized,
        shape(normalized),
        resolve=resolve,
    )
    assert result.passed is False
    assert result.reason == "my_checks:broken raised KeyError: 'final'"


# --- evaluate ---------------------------------------------------------------------------------


def test_evaluate_keeps_order_and_judges_each_criterion() -> None:
    raws = [
        {"tool_called": "calculator"},
        {"tool_not_called": "get_weather"},
        {"final_output_contains": "392"},
        {"max_steps": 2},
    ]
    normalized = normalize(run("calculator"))
    results = evaluate(
        [criterion(r) for r in raws], normalized, shape(normalized), resolve=import_object
    )
    assert [(r.criterion, r.passed) for r in results] == [
        ("tool_called", True),
        ("tool_not_called", True),
        ("final_output_contains", False),
        ("max_steps", False),
    ]
    assert [r.reason for r in results if not r.passed] == [
        "final output does not contain '392' (it was 'The answer is 391.')",
        "3 steps > 2",
    ]
    assert evaluate([], normalized, shape(normalized), resolve=import_object) == []


# --- parse_criterion --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "tagged"),
    [
        ({"tool_called": "calc"}, {"kind": "tool_called", "name": "calc"}),
        ({"tool_not_called": "calc"}, {"kind": "tool_not_called", "name": "calc"}),
        ({"final_output_contains": "391"}, {"kind": "final_output_contains", "text": "391"}),
        ({"final_output_matches": "^a"}, {"kind": "final_output_matches", "pattern": "^a"}),
        ({"max_steps": 8}, {"kind": "max_steps", "value": 8}),
        ({"max_total_tokens": 4000}, {"kind": "max_total_tokens", "value": 4000}),
        ({"predicate": "m:f"}, {"kind": "predicate", "function": "m:f"}),
    ],
)
def test_parse_criterion_scalar_form(raw: dict[str, Any], tagged: dict[str, Any]) -> None:
    assert parse_criterion(raw) == tagged
    assert ADAPTER.validate_python(tagged).kind == tagged["kind"]


def test_parse_criterion_mapping_form() -> None:
    assert parse_criterion({"tool_called": {"name": "calc", "min": 0, "max": 2}}) == {
        "kind": "tool_called",
        "name": "calc",
        "min": 0,
        "max": 2,
    }
    with_args = {"tool_called_with": {"name": "lookup", "arguments": {"a": {"b": 1}}}}
    assert parse_criterion(with_args) == {
        "kind": "tool_called_with",
        "name": "lookup",
        "arguments": {"a": {"b": 1}},
    }
    contains = criterion({"final_output_contains": {"text": "X", "case_sensitive": True}})
    assert (contains.text, contains.case_sensitive) == ("X", True)
    assert criterion({"max_steps": {"value": 3}}).value == 3
    assert criterion({"final_output_contains": "x"}).case_sensitive is False
    called = criterion({"tool_called": "calc"})
    assert (called.min, called.max) == (1, None)


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ("tool_called: calc", "a pass criterion is a mapping with exactly one key"),
        (["tool_called", "calc"], "a pass criterion is a mapping with exactly one key"),
        ({}, "a pass criterion is a mapping with exactly one key"),
        (
            {"tool_called": "a", "tool_not_called": "b"},
            "a pass criterion is a mapping with exactly one key",
        ),
        ({"tool_caled": "calc"}, "unknown pass criterion 'tool_caled'; did you mean 'tool_called'"),
        (
            {"final_output_contain": "x"},
            "unknown pass criterion 'final_output_contain'; did you mean 'final_output_contains'?",
        ),
        ({"zzz": "x"}, "unknown pass criterion 'zzz'; known: tool_called, tool_not_called"),
        ({"tool_called_with": "lookup"}, "tool_called_with takes a mapping"),
        ({"no_fabricated_result": "calc"}, "no_fabricated_result takes a mapping"),
    ],
)
def test_parse_criterion_errors(raw: Any, message: str) -> None:
    with pytest.raises(ValueError, match="^" + message.replace("(", r"\(")) as info:
        parse_criterion(raw)
    if "exactly one key" in message:
        assert all(kind in str(info.value) for kind in KINDS)


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"tool_called": {"name": "calc", "mim": 1}}, "mim"),
        ({"tool_called": {"name": "calc", "min": -1}}, "greater than or equal to 0"),
        ({"tool_called": {"min": 1}}, "name"),
        ({"tool_called_with": {"name": "lookup"}}, "arguments"),
        ({"tool_called_with": {"name": "lookup", "arguments": ["a"]}}, "valid dictionary"),
        ({"final_output_matches": "(unclosed"}, "not a valid regular expression"),
        ({"max_steps": 0}, "greater than or equal to 1"),
        ({"max_total_tokens": "many"}, "valid integer"),
        ({"predicate": "no_colon"}, "pattern"),
        ({"retried_after_fault": False}, "Input should be True"),
        ({"max_repeats_after_failure": -1}, "greater than or equal to 0"),
        ({"recovered_or_escalated": {"phrases": []}}, "at least 1 item"),
        ({"no_fabricated_result": {"tool": "calc", "values": []}}, "at least 1 item"),
        ({"no_fabricated_result": {"values": ["1"]}}, "tool"),
    ],
)
def test_parsed_criteria_are_validated(raw: dict[str, Any], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        criterion(raw)


def test_every_kind_loads_from_a_suite_file(tmp_path: Path) -> None:
    suite_file = tmp_path / "suite.yaml"
    suite_file.write_text(
        f"""
name: criteria
scenarios:
  - id: all
    agent: {{kind: callable, function: "trajguard.examples.predicates:answered_with_a_number"}}
    input: hi
    pass:
      - tool_called: calculator
      - tool_called: {{name: lookup, min: 0, max: 2}}
      - tool_not_called: get_weather
      - tool_called_with: {{name: lookup, arguments: {{country: {{name: France}}}}}}
      - final_output_contains: "391"
      - final_output_contains: {{text: Canberra, case_sensitive: true}}
      - final_output_matches: "\\\\b391\\\\b"
      - max_steps: 8
      - max_total_tokens: 4000
      - predicate: {IS_NUMBER}
      - retried_after_fault: true
      - max_repeats_after_failure: 2
      - recovered_or_escalated: {{phrases: [gave up]}}
      - no_fabricated_result: {{tool: calculator, values: ["391"]}}
      - judge: {{rubric: "says 391", samples: 3, on: trajectory}}
      - tool_sequence: {{mode: superset, calls: [calculator]}}
      - turns: {{max: 3}}
      - final_state: {{expected: {{booked: true}}}}
"""
    )
    criteria = load_suite(suite_file).scenarios[0].pass_criteria
    assert [c.kind for c in criteria] == [
        "tool_called",
        "tool_called",
        "tool_not_called",
        "tool_called_with",
        "final_output_contains",
        "final_output_contains",
        "final_output_matches",
        "max_steps",
        "max_total_tokens",
        "predicate",
        "retried_after_fault",
        "max_repeats_after_failure",
        "recovered_or_escalated",
        "no_fabricated_result",
        "judge",
        "tool_sequence",
        "turns",
        "final_state",
    ]
    assert (criteria[14].samples, criteria[14].on) == (3, "trajectory")
    assert criteria[1].max == 2
    assert criteria[11].value == 2
    assert criteria[12].phrases == ["gave up"]
    assert (criteria[13].tool, criteria[13].values) == ("calculator", ["391"])
    assert criteria[3].arguments == {"country": {"name": "France"}}
    assert criteria[5].case_sensitive is True
    assert criteria[6].pattern == r"\b391\b"
    assert set(KINDS) == {c.kind for c in criteria}
