"""Naming a run (id or scenario/variant/index, nearest ids on a miss) and showing it: steps,
criteria with their reasons, hostile strings escaped, old run sets, runs without trajectory."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from trajguard_testkit.runsets import make_row, write_runset

from trajguard._text import CONTROL
from trajguard.runs import RunNotFound, list_runs, read_run, render_run, resolve_run

REPO = Path(__file__).resolve().parents[2]
OLD_NIGHT = REPO / "benchmarks" / "data" / "real-nights-2026-12-01" / "edited-seed1"


def test_a_run_is_named_by_its_id_or_scenario_variant_index(small_runset: Path) -> None:
    lines = list_runs(small_runset)
    assert resolve_run("capital/base/3", lines, runset=small_runset).run_index == 3
    renamed = [replace(line, run_id=f"id-{i}") for i, line in enumerate(lines)]
    found = resolve_run("capital/base/4", renamed, runset=small_runset)
    assert found.run_id == "id-4"
    assert resolve_run("id-7", renamed, runset=small_runset).scenario == "greeting"


def test_an_unknown_run_lists_the_nearest_ids(small_runset: Path) -> None:
    with pytest.raises(RunNotFound) as caught:
        read_run(small_runset, "capital/base/9")
    assert caught.value.exit_code == 2
    assert len(caught.value.nearest) == 5 and caught.value.nearest[0] == "capital/base/5"
    assert "trajguard runs" in str(caught.value)
    with pytest.raises(RunNotFound) as nothing_close:
        read_run(small_runset, "zzzzzzzzzzzzzzzzzzzz")
    assert nothing_close.value.nearest == ()


def test_show_run_gives_steps_results_criteria_and_reasons(small_runset: Path) -> None:
    text = render_run(read_run(small_runset, "capital/base/4"))
    assert "run capital/base/4 · scenario capital · variant base · index 4" in text
    assert "step 2 · agent · m · 10 prompt + 5 completion tokens" in text
    assert '→ get_weather({"x": 0})' in text
    assert "← ok" in text  # the result joined to its call
    assert "✗ tool_called: lookup_country — lookup_country called 0 times, expected 1..∞" in text
    assert "✗ tool_not_called: get_weather — get_weather called 1 times, expected none" in text
    assert '✓ final_output_contains: "Canberra"' in text
    assert "final output:\n  The capital is Canberra." in text


def test_a_run_without_trajectory_says_what_it_cannot_show(small_runset: Path) -> None:
    text = render_run(read_run(small_runset, "greeting/terse/2"))
    assert "steps: none stored: a harness error" in text
    assert "not judged (a harness error)" in text
    assert "error: " in text and "endpoint unreachable" in text


def test_an_old_run_set_shows_failed_criteria_and_says_held_ones_are_unknown() -> None:
    text = render_run(read_run(OLD_NIGHT, "multiply/base/0"))
    assert "✗ no crash — the run ended as agent_error" in text
    assert "✗ tool_not_called: get_weather called 2 times, expected none" in text
    assert "the criteria that held are unknown" in text
    assert "no final answer after 6 model calls (max_steps)" in text


HOSTILE = "\x1b[31mred\x1b[0m \x1b]8;;https://evil.example/\x07click\x1b]8;;\x07 nul\x00 \u202eabc"


def test_hostile_strings_are_shown_escaped_never_raw(tmp_path: Path) -> None:
    huge = "A" * 1_000_000 + "\x1b[2J"
    row = make_row(
        "hostile",
        0,
        ["get_weather"],
        HOSTILE,
        message="\n".join(["line " + HOSTILE] * 50),
        error_message=None,
    )
    row["error_type"] = "Boom\x1b[1m"
    row["error_message"] = HOSTILE + "\n" + huge
    runset = write_runset(tmp_path / "rs", [row])
    text = render_run(read_run(runset, "hostile/base/0"))
    assert not any(m.group() != "\n" for m in CONTROL.finditer(text)), "a raw control character"
    assert "\\x1b[31mred" in text and "\\x1b]8;;https://evil.example/\\x07" in text
    assert "nul\\x00" in text and "\\u202eabc" in text
    assert "… (38 more lines)" in text  # the 50-line message folded after 12 lines
    assert "Boom\\x1b[1m" in text
    assert huge.replace("\x1b", "\\x1b") in text, "the whole error is shown"


def test_a_run_that_crashed_before_its_first_step_says_what_its_row_says() -> None:
    row = {
        "run_id": "s/base/0",
        "scenario": "s",
        "variant": "base",
        "run_index": 0,
        "status": "crash",
        "crashed": True,
        "passed": False,
        "error_type": "LookupError",
        "error_message": "no such thing\n  at agents/mine.py:2",
        "failed_criteria": ["no crash: the run ended as crash (LookupError: no such thing)"],
        "criteria": None,
        "trajectory": None,
    }
    text = render_run(row)
    said = "the run ended as crash (LookupError) before any step was recorded"
    assert f"steps: none stored: {said}" in text
    assert f"not judged against its criteria: {said}" in text
    assert "✗ no crash — the run ended as crash" in text
    assert "store schema" not in text and "imported" not in text, "no guess"
    assert "  at agents/mine.py:2" in text
