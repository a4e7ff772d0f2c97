"""The sequential design section: the nightly gate's wording and the A/B wording."""

from __future__ import annotations

from trajguard.comparison import Decision, LookRecord, SequentialOutcome, Stop
from trajguard.report import sequential_section
from trajguard.stats import Action


def _outcome(stopped: dict[str, Decision]) -> SequentialOutcome:
    return SequentialOutcome(
        max_runs=30,
        plan=(10, 20, 30),
        alpha=0.0125,
        looks=(
            LookRecord(look=0, runs=10, decisions={s: d.action.value for s, d in stopped.items()}),
        ),
        stopped={s: Stop(runs=10, decision=d) for s, d in stopped.items()},
    )


def test_nightly_section_states_the_band_and_gate():
    outcome = _outcome(
        {"a": Decision(action=Action.STOP_REGRESSED, metrics=("pass_rate",), detail="pass rate")}
    )
    text = sequential_section(outcome)
    assert "**Sequential gate: regressed.**" in text
    assert "outside the tolerance band" in text
    assert "| a | look 1 | 10 | stop: regressed (pass rate) |" in text


def test_ab_section_has_ab_wording():
    different = "B higher pass rate than A: 7/7 vs 0/7"
    outcome = SequentialOutcome(
        max_runs=20,
        plan=(7, 14, 20),
        alpha=0.0125,
        variants=("A", "B"),
        looks=(LookRecord(look=0, runs=7, decisions={"s": "stop: different", "t": "continue"}),),
        stopped={
            "s": Stop(runs=7, decision=Decision(action=Action.STOP_DIFFERENT, detail=different)),
            "t": Stop(runs=20, decision=Decision(action=Action.STOP_NO_DIFFERENCE)),
        },
    )
    text = sequential_section(outcome)
    assert text.startswith("## Sequential design (A/B)")
    assert "Sequential gate" not in text and "regressed" not in text
    assert "exits 0" in text and "no futility stop" in text
    assert "| s | look 1 | 7 | stop: different (B higher pass rate than A: 7/7 vs 0/7) |" in text
    assert not outcome.regressed


def test_scenarios_with_their_own_runs_are_named_with_their_looks_and_count_in_the_plan():
    stop = Decision(action=Action.STOP_NO_REGRESSION)
    outcome = SequentialOutcome(
        max_runs=30,
        plan=(10, 20, 30),
        alpha=0.0125,
        looks=(LookRecord(look=0, runs=10, decisions={"a": stop.action.value, "b": "x"}),),
        stopped={"a": Stop(runs=10, decision=stop), "b": Stop(runs=4, decision=stop)},
        own_plans={"b": (4, 8, 12)},
    )
    text = sequential_section(outcome)
    # planned: a's 30 and b's own 12; made: 10 + 4
    assert "14 of 42 planned runs made (67% saved)." in text
    assert "Scenarios with their own `runs:`: b at 4, 8, 12." in text
