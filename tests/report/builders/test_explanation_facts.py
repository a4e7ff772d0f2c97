"""A changed scenario's explanation: criteria counted as by hand, exemplars as brute force
finds them, real nights named right, hostile labels kept as text."""

from __future__ import annotations

import functools
import itertools
import random
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from trajguard import pipeline
from trajguard._text import has_control
from trajguard.report._explanation import explanation_section
from trajguard.report._format import md
from trajguard.report.builders._explanation_facts import explanation, medoid, sequence_distance
from trajguard.report.builders._failed_criteria import failed_labels, legacy_label

NIGHTS = Path(__file__).resolve().parents[3] / "benchmarks" / "data" / "real-nights-2026-12-01"
PATHS = ({"": "base"}, {"": "cand"})


def _row(
    index: int, sequence: tuple[str, ...], *, passed: bool | None, **extra: Any
) -> dict[str, Any]:
    return {
        "run_id": f"s/base/{index}",
        "batch_id": extra.pop("batch_id", "b1"),
        "scenario": "s",
        "variant": "base",
        "run_index": index,
        "status": extra.pop("status", "ok"),
        "passed": passed,
        "crashed": extra.pop("crashed", False),
        "tool_sequence": list(sequence),
        "step_count": extra.pop("step_count", 2 + len(sequence)),
        "failed_criteria": extra.pop("failed_criteria", []),
        "criteria": extra.pop("criteria", None),
        **extra,
    }


def _stored(**held: bool) -> list[dict[str, Any]]:
    return [
        {"criterion": name, "held": ok, "reason": "" if ok else "why", "error": False}
        for name, ok in held.items()
    ]


# --- criteria -------------------------------------------------------------------------------


def test_legacy_labels_name_the_tool_of_a_tool_criterion() -> None:
    assert legacy_label("tool_not_called: get_weather called 1 times, expected none") == (
        "tool_not_called: get_weather"
    )
    assert legacy_label("tool_called: calculator called 0 times, expected 1..∞") == (
        "tool_called: calculator"
    )
    assert legacy_label("final_output_contains: final output does not contain 'x'") == (
        "final_output_contains"
    )


def test_failed_labels_read_the_stored_criteria_and_fall_back_to_the_failure_text() -> None:
    stored = {
        "failed_criteria": ["tool_called: a called 0 times"],
        "criteria": _stored(**{"tool_called: a": False, "max_steps: 8": True}),
    }
    assert failed_labels(stored) == ({"tool_called: a"}, True)
    legacy = {
        "failed_criteria": ["no crash: the run ended as timeout", "tool_called: a called 0 times"]
    }
    assert failed_labels(legacy) == ({"no crash", "tool_called: a"}, False)
    crashed_stored = {"failed_criteria": ["no crash: the run ended as agent_error"], "criteria": []}
    assert failed_labels(crashed_stored) == ({"no crash"}, True)


def _random_side(rng: random.Random, n: int, names: list[str]) -> list[dict[str, Any]]:
    rows = []
    for i in range(n):
        held = {name: rng.random() < 0.6 for name in names}
        crashed = rng.random() < 0.1
        status = "agent_error" if crashed else rng.choice(["ok", "ok", "ok", "harness_error"])
        passed = None if status == "harness_error" else (not crashed and all(held.values()))
        failed = [f"{k.split(': ')[0]}: why" for k, ok in held.items() if not ok]
        if crashed:
            failed = ["no crash: the run ended as agent_error", *failed]
        rows.append(
            _row(
                i,
                tuple(rng.choice("ab") for _ in range(rng.randint(0, 3))),
                passed=passed,
                status=status,
                crashed=crashed,
                failed_criteria=failed,
                criteria=None if status == "harness_error" else _stored(**held),
            )
        )
    return rows


@pytest.mark.parametrize("seed", range(20))
def test_criteria_failure_rates_are_the_counts_by_hand(seed: int) -> None:
    rng = random.Random(seed)
    names = ["tool_called: a", "tool_not_called: b", "max_steps: 5"]
    sides = [_random_side(rng, rng.randint(1, 15), names) for _ in range(2)]
    result = explanation(
        pd.DataFrame(sides[0]),
        pd.DataFrame(sides[1]),
        alpha=0.05,
        crash_statuses={"agent_error", "timeout"},
        paths=PATHS,
    )
    by_hand: list[Counter[str]] = []
    judged: list[int] = []
    for rows in sides:
        counted = [r for r in rows if r["status"] != "harness_error"]
        judged.append(len(counted))
        tally: Counter[str] = Counter()
        for r in counted:
            tally.update(c["criterion"] for c in r["criteria"] if not c["held"])
            if r["status"] == "agent_error":
                tally["no crash"] += 1
        by_hand.append(tally)
    found = {s.criterion: s for s in result.criteria}
    assert set(found) == set(by_hand[0]) | set(by_hand[1])
    for label, shift in found.items():
        assert (shift.baseline.hits, shift.baseline.n) == (by_hand[0][label], judged[0])
        assert (shift.candidate.hits, shift.candidate.n) == (by_hand[1][label], judged[1])
        assert shift.baseline.low <= shift.baseline.hits / max(judged[0], 1) <= shift.baseline.high
        expected = by_hand[1][label] / judged[1] - by_hand[0][label] / judged[0]
        assert shift.moved == pytest.approx(expected)
    moves = [abs(s.moved) for s in result.criteria]
    assert moves == sorted(moves, reverse=True)
    assert result.criteria_known


# --- exemplars ------------------------------------------------------------------------------


@functools.cache
def _levenshtein(a: tuple[str, ...], b: tuple[str, ...]) -> int:
    if not a or not b:
        return len(a) + len(b)
    return min(
        _levenshtein(a[1:], b) + 1,
        _levenshtein(a, b[1:]) + 1,
        _levenshtein(a[1:], b[1:]) + (a[0] != b[0]),
    )


def test_sequence_distance_is_levenshtein() -> None:
    sequences = [s for n in range(4) for s in itertools.product("abc", repeat=n)]
    for a, b in itertools.product(sequences, repeat=2):
        assert sequence_distance(a, b) == _levenshtein(a, b)


@pytest.mark.parametrize("seed", range(40))
def test_the_medoid_is_the_brute_force_one_whatever_the_row_order(seed: int) -> None:
    rng = random.Random(seed)
    rows = [
        _row(
            i,
            tuple(rng.choice("abc") for _ in range(rng.randint(0, 3))),
            passed=False,
            step_count=rng.randint(2, 6),
            batch_id=rng.choice(["b1", "b2"]),
        )
        for i in range(rng.randint(1, 9))
    ]
    frame = pd.DataFrame(rows)
    sequences = [tuple(r["tool_sequence"]) for r in rows]
    costs = [sum(_levenshtein(s, t) for t in sequences) for s in sequences]
    chosen = medoid(frame)
    assert chosen is not None
    assert costs[chosen] == min(costs)
    # deterministic: the same run whatever order the rows come in
    shuffled = frame.sample(frac=1, random_state=seed).reset_index(drop=True)
    again = medoid(shuffled)
    assert again is not None
    assert shuffled.iloc[again]["run_id"] == frame.iloc[chosen]["run_id"]
    assert shuffled.iloc[again]["batch_id"] == frame.iloc[chosen]["batch_id"]


def test_ties_go_to_the_more_common_sequence_then_the_lower_index() -> None:
    rows = [
        _row(0, ("a",), passed=False),
        _row(1, ("b",), passed=False),
        _row(2, ("b",), passed=False),
        _row(3, ("c", "c", "c"), passed=False),
    ]
    # a and b are both at distance 1 from each other; b is more common, so a b run wins,
    # and of the two b runs the lower index.
    assert medoid(pd.DataFrame(rows)) == 1


def test_a_regression_pairs_a_typical_failing_run_with_a_typical_passing_one() -> None:
    base = [_row(i, ("calc",), passed=True) for i in range(6)] + [
        _row(6, ("weather",), passed=False)
    ]
    cand = [_row(i, ("weather",), passed=False) for i in range(5)] + [
        _row(5, ("calc",), passed=True)
    ]
    result = explanation(
        pd.DataFrame(base),
        pd.DataFrame(cand),
        alpha=0.05,
        crash_statuses={"agent_error"},
        paths=PATHS,
    )
    pair = result.exemplars
    assert pair is not None
    assert pair.baseline is not None and pair.candidate is not None
    assert (pair.baseline.passed, pair.baseline.sequence) == (True, ("calc",))
    assert (pair.candidate.passed, pair.candidate.sequence) == (False, ("weather",))
    assert pair.candidate.command == "trajguard show cand --run s/base/0"
    assert not pair.shared_path


def test_sides_on_one_path_are_said_to_share_it() -> None:
    base = [_row(i, ("calc",), passed=i % 2 == 0) for i in range(6)]
    cand = [_row(i, ("calc",), passed=i % 3 == 0) for i in range(6)]
    result = explanation(
        pd.DataFrame(base),
        pd.DataFrame(cand),
        alpha=0.05,
        crash_statuses={"agent_error"},
        paths=PATHS,
    )
    assert result.exemplars is not None and result.exemplars.shared_path
    assert result.exemplars.diff == ()
    text = "\n".join(explanation_section(result, 0.05))
    assert "share their typical path" in text


def test_a_pooled_baseline_run_is_opened_from_its_own_batch() -> None:
    base = [_row(0, ("calc",), passed=True, batch_id="old")]
    cand = [_row(0, ("weather",), passed=False)]
    result = explanation(
        pd.DataFrame(base),
        pd.DataFrame(cand),
        alpha=0.05,
        crash_statuses=set(),
        paths=({"": "baselines/demo", "old": "baselines/demo/history/x"}, {"": "cand"}),
    )
    assert result.exemplars is not None and result.exemplars.baseline is not None
    assert result.exemplars.baseline.command == (
        "trajguard show baselines/demo/history/x --run s/base/0"
    )


def test_hostile_labels_and_sequences_stay_text_in_the_markdown() -> None:
    hostile = "\x1b]8;;http://evil\x07click\x1b]8;;\x07 ``` </details> <script>x</script>"
    base = [_row(0, (hostile,), passed=True)]
    cand = [_row(0, ("weather", hostile), passed=False, criteria=_stored(**{hostile: False}))]
    result = explanation(
        pd.DataFrame(base),
        pd.DataFrame(cand),
        alpha=0.05,
        crash_statuses=set(),
        paths=PATHS,
    )
    text = "\n".join(explanation_section(result, 0.05))
    assert not has_control(text, keep="\n")
    assert "<script>" not in text
    assert text.count("<details>") == text.count("</details>")


# --- the real nights ------------------------------------------------------------------------


def _report(night: str, tmp_path: Path, explain: str = "changed") -> tuple[Any, str]:
    out = tmp_path / night / "report.md"
    outcome = pipeline.compare(
        NIGHTS / "baseline",
        NIGHTS / night,
        report=out,
        options=pipeline.ReportOptions(plots=False, explain=explain),  # type: ignore[arg-type]
    )
    return outcome, out.read_text()


def test_an_edited_night_names_the_broken_criteria_and_the_tool_change(tmp_path: Path) -> None:
    outcome, text = _report("edited-seed1", tmp_path)
    facts = outcome.document.scenarios
    for scenario, criterion, bad_tool in (
        ("greeting", "tool_not_called: get_weather", "get_weather"),
        ("multiply", "tool_called: calculator", "get_weather"),
    ):
        explained = facts[scenario].explanation
        assert explained is not None
        assert explained.criteria[0].criterion == criterion
        assert explained.criteria[0].moved > 0.3
        pair = explained.exemplars
        assert pair is not None and pair.candidate is not None and pair.baseline is not None
        assert pair.candidate.passed is False and pair.baseline.passed is True
        assert bad_tool in pair.candidate.sequence and bad_tool not in pair.baseline.sequence
        assert pair.diff[0].startswith(("step_count", "steps", "tool_calls"))
        assert any(line.startswith("tool_calls:") for line in pair.diff)
        assert f"{md(criterion, limit=200)} failed" in text
    assert facts["capital"].explanation is None
    assert re.search(r"open it with `trajguard show \S+edited-seed1 --run greeting/base/\d+`", text)


def test_an_unedited_night_draws_no_contrast(tmp_path: Path) -> None:
    outcome, text = _report("unedited-seed1", tmp_path)
    assert all(f.explanation is None for f in outcome.document.scenarios.values())
    assert "What it looks like" not in text
    outcome, text = _report("unedited-seed1", tmp_path, explain="all")
    for facts in outcome.document.scenarios.values():
        assert facts.explanation is not None and facts.explanation.exemplars is not None
        assert facts.explanation.exemplars.rule.startswith("the scenario did not change")
