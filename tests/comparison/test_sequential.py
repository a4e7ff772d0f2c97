"""The sequential gate (nightly --sequential) and the A/B stopping rule: tolerance band, --gate,
crash statuses, agreement of verdicts / JUnit / exit code with the gate, and the A/B wording."""

from __future__ import annotations

from dataclasses import replace

import pandas as pd
import pytest
from scipy import stats

from trajguard.comparison import (
    CompareConfig,
    Decision,
    Look,
    LookRecord,
    SequentialDesign,
    SequentialOutcome,
    Stop,
    Verdict,
    compare_runsets,
    drive,
    split_runs,
)
from trajguard.comparison._arms import Arm
from trajguard.comparison._sequential import decide_ab_look, decide_look, gating_alpha
from trajguard.report import build_document, junit_xml
from trajguard.results import ReportKind
from trajguard.stats import Action, obf_thresholds
from trajguard.store import RunSet


def run(scenario="s", passed=True, status="ok", steps=3, variant="main", prompt=100):
    return {
        "scenario": scenario,
        "variant": variant,
        "status": status,
        "passed": passed,
        "step_count": steps,
        "tool_sequence": [],
        "tool_counts": {},
        "prompt_tokens": prompt,
        "completion_tokens": 10,
        "duration_s": 1.0,
    }


def arms(rows, **kw):
    return split_runs(pd.DataFrame(rows), **kw)


# ---- tolerance band (statistics.md section 2) ------------------------------------------------


def test_significant_drop_inside_the_band_does_not_stop_regressed():
    base = arms([run(passed=True) for _ in range(150)])
    cand = arms([run(passed=i >= 12) for i in range(150)])  # 92%: 8 points, p ~ 1e-4
    p = stats.boschloo_exact([[150, 138], [0, 12]], alternative="greater").pvalue
    assert p < 0.001
    plan = (150,)
    inside = decide_look(base, cand, look=0, plan=plan, alpha=0.025)
    assert inside["s"].action is Action.STOP_WITHIN_TOLERANCE
    assert inside["s"].metrics == ()
    tight = CompareConfig(tolerances={"pass_rate": 0.05})
    outside = decide_look(base, cand, look=0, plan=plan, alpha=0.025, config=tight)
    assert outside["s"].action is Action.STOP_REGRESSED
    assert outside["s"].metrics == ("pass_rate",)
    # Per-scenario bands from the suite file apply too.
    own = CompareConfig(scenario_tolerances={"s": {"pass_rate": 0.05}})
    assert decide_look(base, cand, look=0, plan=plan, alpha=0.025, config=own)["s"].action is (
        Action.STOP_REGRESSED
    )


def test_inside_the_band_at_an_early_look_keeps_running():
    base = arms([run(passed=True) for _ in range(150)])
    cand = arms([run(passed=i >= 4) for i in range(50)])  # 92% after the first of three looks
    decision = decide_look(base, cand, look=0, plan=(50, 100, 150), alpha=0.05)
    assert decision["s"].action is Action.CONTINUE


# ---- --gate: the gating metrics are the configured ones ------------------------------------


def test_gate_option_selects_the_metrics_the_rule_tests():
    base = arms([run(passed=True, steps=3 + i % 2) for i in range(30)])
    cand = arms([run(passed=i % 2 == 0, steps=9 + i % 2) for i in range(30)])
    default = decide_look(base, cand, look=0, plan=(30,), alpha=0.025)["s"]
    assert default.action is Action.STOP_REGRESSED and default.metrics == ("pass_rate",)
    steps_only = CompareConfig(gating=frozenset({"step_count"}))
    gated = decide_look(base, cand, look=0, plan=(30,), alpha=0.05, config=steps_only)["s"]
    assert gated.action is Action.STOP_REGRESSED and gated.metrics == ("step_count",)
    assert gated.label == "stop: regressed (steps)"
    # A gate without the pass rate ignores the pass-rate drop.
    crash_only = CompareConfig(gating=frozenset({"crash_rate"}))
    quiet = decide_look(base, cand, look=0, plan=(30,), alpha=0.05, config=crash_only)["s"]
    assert quiet.action is Action.STOP_NO_REGRESSION


def _gate(config: CompareConfig, baseline: pd.DataFrame, candidate: pd.DataFrame):
    """The sequential design driven by the one look loop; each look reads a slice of a
    prepared candidate (nothing is run)."""
    design = SequentialDesign(runs={"s": 30}, config=config)
    made = {"runs": 0}

    def run_look(look: Look) -> None:
        made["runs"] = (look.runs or {}).get("s", 0)

    def sides() -> tuple[pd.DataFrame, pd.DataFrame]:
        return baseline, candidate.groupby("scenario").head(made["runs"]).reset_index(drop=True)

    drive(design, run_look=run_look, sides=sides)
    return design.outcome


def test_sequential_design_honours_crash_statuses_and_gate():
    baseline = pd.DataFrame([run(passed=True) for _ in range(30)])
    # Half the candidate's runs time out (no pass/fail): a crash only if timeouts count.
    candidate = pd.DataFrame(
        [run(passed=None, status="timeout") if i % 2 else run() for i in range(30)]
    )

    def gate(config: CompareConfig) -> SequentialOutcome:
        return _gate(config, baseline, candidate)

    assert gate(CompareConfig()).regressed
    agent_errors_only = CompareConfig(crash_statuses=frozenset({"agent_error"}))
    assert not gate(agent_errors_only).regressed
    # --gate pass_rate alone: a crash is a failed run, so the timeouts fail the pass rate...
    pass_only = gate(CompareConfig(gating=frozenset({"pass_rate"})))
    assert pass_only.regressed
    assert pass_only.gating == ("pass_rate",)
    assert pass_only.alpha == pytest.approx(gating_alpha(0.05, 1, 1))
    # ...unless timeouts are not counted as crashes: then they have no pass/fail.
    no_timeouts = CompareConfig(
        gating=frozenset({"pass_rate"}), crash_statuses=frozenset({"agent_error"})
    )
    assert not gate(no_timeouts).regressed


# ---- the comparison follows the gate: headline, JUnit, exit-code flag -----------------------


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


def test_apply_gate_makes_verdicts_junit_and_flag_agree_with_the_gate():
    cfg = CompareConfig(metrics=("pass_rate", "crash_rate"))
    base = pd.DataFrame([run("a") for _ in range(20)] + [run("b") for _ in range(20)])
    cand = pd.DataFrame(
        [run("a", passed=i >= 12) for i in range(20)] + [run("b", passed=i >= 1) for i in range(20)]
    )
    fixed = compare_runsets(base, cand, config=cfg)
    assert fixed.scenario("a").verdict is Verdict.REGRESSED and fixed.regressed
    # The gate did not stop "a" regressed, but did stop "b" on its pass rate.
    gate = _outcome(
        {
            "a": Decision(action=Action.STOP_NO_REGRESSION),
            "b": Decision(action=Action.STOP_REGRESSED, metrics=("pass_rate",), detail="pass rate"),
        }
    )
    design = SequentialDesign(runs={"a": 30, "b": 30}, config=cfg)
    design.outcome = gate
    gated = design.settle(fixed)
    a, b = gated.scenario("a"), gated.scenario("b")
    assert a.metric("pass_rate").verdict is Verdict.INCONCLUSIVE
    assert any("sequential design, which decides here" in n for n in a.metric("pass_rate").notes)
    assert b.metric("pass_rate").verdict is Verdict.REGRESSED
    assert b.verdict is Verdict.REGRESSED and a.verdict is not Verdict.REGRESSED
    assert gated.regressed == gate.regressed is True
    assert gated.verdict is Verdict.REGRESSED

    def junit(comparison):
        sides = {
            role: RunSet(path=role, manifest={"suite": "t"}, runs=frame)
            for role, frame in (("baseline", base), ("candidate", cand))
        }
        return junit_xml(build_document(comparison, kind=ReportKind.NIGHTLY, **sides))

    xml = junit(gated)
    assert 'failures="1"' in xml and 'name="b"' in xml
    # A quiet gate: nothing regressed anywhere, whatever the fixed-sample tests said.
    design.outcome = _outcome({"a": Decision(action=Action.STOP_NO_REGRESSION)})
    quiet = design.settle(fixed)
    assert not quiet.regressed and quiet.verdict is not Verdict.REGRESSED
    assert 'failures="0"' in junit(quiet)


# ---- A/B: "stop: different", with the direction, and its own section ------------------------


def _ab_arms(x_a: int, x_b: int, n: int) -> tuple[dict[str, Arm], dict[str, Arm]]:
    side_a = arms([run(passed=i < x_a, variant="A") for i in range(n)])
    side_b = arms([run(passed=i < x_b, variant="B") for i in range(n)])
    return side_a, side_b


@pytest.mark.parametrize(("x_a", "x_b", "word"), [(20, 0, "lower"), (0, 20, "higher")])
def test_ab_look_stops_different_with_the_direction(x_a, x_b, word):
    plan = (20, 40, 60)
    decision = decide_ab_look(*_ab_arms(x_a, x_b, 20), ("A", "B"), look=0, plan=plan, alpha=0.05)
    d = decision["s"]
    assert d.action is Action.STOP_DIFFERENT
    assert d.action is not Action.STOP_REGRESSED
    assert d.detail.startswith(f"B {word} pass rate than A")
    # The threshold is the two-sided split: alpha / 2 per direction.
    side = "greater" if x_a > x_b else "less"
    p = stats.boschloo_exact([[x_a, x_b], [20 - x_a, 20 - x_b]], alternative=side).pvalue
    assert p <= obf_thresholds(0.025, [1 / 3, 2 / 3, 1])[0]


def test_ab_last_look_without_a_difference():
    decision = decide_ab_look(
        *_ab_arms(10, 11, 20), ("A", "B"), look=2, plan=(7, 14, 20), alpha=0.05
    )
    assert decision["s"].action is Action.STOP_NO_DIFFERENCE
    early = decide_ab_look(*_ab_arms(10, 11, 7), ("A", "B"), look=0, plan=(7, 14, 20), alpha=0.05)
    assert early["s"].action is Action.CONTINUE


def test_combine_reports_within_tolerance():
    from trajguard.stats import combine

    done, within = Action.STOP_NO_REGRESSION, Action.STOP_WITHIN_TOLERANCE
    assert combine([done, within]) is within
    assert combine([within, Action.CONTINUE]) is Action.CONTINUE


def test_decision_label_and_replace():
    d = Decision(action=Action.STOP_REGRESSED, metrics=("pass_rate",), detail="pass rate")
    assert d.label == "stop: regressed (pass rate)"
    assert replace(d, detail="").label == "stop: regressed"
