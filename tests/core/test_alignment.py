"""Two runs aligned by what their steps did: equal steps pair, the same tools called otherwise
pair as changed, the rest stay on their side; the alignment is the cheapest, and the lines say
which run did what (the calculator case of issue 39)."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from trajguard.core import FIRST_DIVERGENCE, align_codes, align_steps, aligned_steps
from trajguard.core._alignment import GAP, NEW_ARGUMENTS, SAME_CALLS


def _call_step(name: str, arguments: dict[str, Any], result: str, call: str = "c1") -> dict:
    return {
        "source": "agent",
        "message": "",
        "tool_calls": [{"tool_call_id": call, "function_name": name, "arguments": arguments}],
        "observation": {"results": [{"source_call_id": call, "content": result}]},
    }


def _run(*steps: dict) -> dict[str, Any]:
    return {"steps": [{"source": "user", "message": "What is 17 * 23?"}, *steps]}


def calculator_pair() -> tuple[dict[str, Any], dict[str, Any]]:
    """Issue 39's case: A formatted the expression as a template and could not evaluate it."""
    a = _run(
        _call_step("calculator", {"expression": "{17} * {23}"}, "cannot evaluate"),
        {"source": "agent", "message": "I could not compute it."},
    )
    b = _run(
        _call_step("calculator", {"expression": "17 * 23"}, "391"),
        {"source": "agent", "message": "17 * 23 = 391."},
    )
    return a, b


def test_the_calculator_case_shows_each_runs_call_and_result_marked() -> None:
    a, b = calculator_pair()
    alignment = align_steps(a, b)
    assert [(s.op, s.a, s.b) for s in alignment.steps] == [
        ("same", 0, 0),
        ("changed", 1, 1),
        ("changed", 2, 2),
    ]
    assert alignment.first_divergence == 1
    lines = aligned_steps(a, b)
    assert lines[0] == "  user: What is 17 * 23?"
    assert lines[1].startswith("~ agent: changed calculator's arguments and result")
    assert lines[1].endswith(FIRST_DIVERGENCE)
    assert lines[2] == '    A: calculator(expression="{17} * {23}") → cannot evaluate'
    assert lines[3] == '    B: calculator(expression="17 * 23") → 391'
    # no line shows B's result as if both runs had it
    assert [line for line in lines if "391" in line and not line.startswith("    B: ")] == []
    assert lines[-2:] == ["    A: 'I could not compute it.'", "    B: '17 * 23 = 391.'"]


def test_a_run_that_retried_shows_the_extra_call_on_its_side_only() -> None:
    ok = _call_step("search", {"q": "paris"}, "Paris is the capital")
    a = _run(_call_step("search", {"q": "pari"}, "no result", "c0"), ok)
    b = _run(ok)
    alignment = align_steps(a, b)
    assert [(s.op, s.a, s.b) for s in alignment.steps] == [
        ("same", 0, 0),
        ("a", 1, None),
        ("same", 2, 1),
    ]
    lines = aligned_steps(a, b)
    assert lines[1].startswith('- agent: search(q="pari") → no result')
    assert lines[2] == '  agent: search(q="paris") → Paris is the capital'


def test_steps_of_different_tools_never_pair_and_a_comes_before_b() -> None:
    a = _run(_call_step("lookup_country", {"x": 1}, "Australia"))
    b = _run(_call_step("get_weather", {"x": 1}, "sunny"))
    assert [s.op for s in align_steps(a, b).steps] == ["same", "a", "b"]
    lines = aligned_steps(a, b)
    assert lines[1].startswith("- agent: lookup_country(") and FIRST_DIVERGENCE in lines[1]
    assert lines[2].startswith("+ agent: get_weather(") and FIRST_DIVERGENCE not in lines[2]


def test_equal_runs_are_all_same_and_have_no_divergence() -> None:
    a, _ = calculator_pair()
    alignment = align_steps(a, a)
    assert {s.op for s in alignment.steps} == {"same"} and alignment.first_divergence is None
    assert all(line.startswith("  ") for line in aligned_steps(a, a))


def test_keys_compare_arguments_as_json_writes_them() -> None:
    a = _run(_call_step("f", {"n": 1, "m": [1, 2]}, "ok"))
    b = _run(_call_step("f", {"m": [1, 2], "n": 1}, "ok"))  # key order does not matter
    assert align_steps(a, b).first_divergence is None
    c = _run(_call_step("f", {"m": [1, 2], "n": 1.0}, "ok"))  # as the normalised diff shows it
    assert [s.op for s in align_steps(a, c).steps] == ["same", "changed"]


def test_a_long_result_is_cut_around_where_it_differs_and_lines_stay_bounded() -> None:
    common = "word " * 200_000
    a = _run(_call_step("read", {"path": "x"}, common + "old ending"))
    b = _run(_call_step("read", {"path": "x"}, common + "new ending"))
    lines = aligned_steps(a, b, width=100, max_lines=10)
    assert max(len(line) for line in lines) < 200
    assert "old ending" in lines[2] and "new ending" in lines[3]
    many = _run(*[_call_step("t", {"i": i}, "r") for i in range(300)])
    cut = aligned_steps(many, _run(), max_lines=10)
    assert len(cut) == 11 and cut[-1] == "… (291 more lines not shown)"


def test_a_middle_too_large_to_align_is_shown_as_a_then_b() -> None:
    a = [("k", "a", str(i)) for i in range(5)]
    b = [("k", "a", str(i + 10)) for i in range(5)]
    assert [s.op for s in align_codes(a, b)] == ["changed"] * 5
    assert [s.op for s in align_codes(a, b, limit=24)] == ["a"] * 5 + ["b"] * 5


def _cost(op: str, a: tuple[str, ...] | None, b: tuple[str, ...] | None) -> int:
    if op in ("a", "b"):
        return GAP
    assert a is not None and b is not None
    return 0 if a[2] == b[2] else SAME_CALLS if a[1] == b[1] else NEW_ARGUMENTS


def _best(a: Sequence[tuple[str, ...]], b: Sequence[tuple[str, ...]]) -> int:
    """The least cost by brute recursion (the reference the alignment must reach)."""

    @functools.cache
    def best(i: int, j: int) -> int:
        if i == len(a) or j == len(b):
            return GAP * (len(a) - i + len(b) - j)
        options = [best(i + 1, j) + GAP, best(i, j + 1) + GAP]
        if a[i][0] == b[j][0]:
            options.append(best(i + 1, j + 1) + _cost("changed", a[i], b[j]))
        return min(options)

    return best(0, 0)


codes = st.lists(
    st.tuples(st.sampled_from("xy"), st.sampled_from("pq"), st.sampled_from("uvw")).map(
        lambda t: (t[0], t[0] + t[1], t[0] + t[1] + t[2])
    ),
    max_size=7,
)


@settings(max_examples=150, deadline=None)
@given(codes, codes)
def test_the_alignment_is_the_cheapest_and_keeps_both_runs_in_order(
    a: list[tuple[str, ...]], b: list[tuple[str, ...]]
) -> None:
    steps = align_codes(a, b)
    assert [s.a for s in steps if s.a is not None] == list(range(len(a)))
    assert [s.b for s in steps if s.b is not None] == list(range(len(b)))
    for s in steps:
        if s.op in ("same", "changed"):
            assert s.a is not None and s.b is not None and a[s.a][0] == b[s.b][0]
            assert (s.op == "same") == (a[s.a][2] == b[s.b][2])
    total = sum(
        _cost(s.op, None if s.a is None else a[s.a], None if s.b is None else b[s.b]) for s in steps
    )
    assert total == _best(a, b)
