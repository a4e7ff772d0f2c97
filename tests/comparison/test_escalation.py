"""Escalation: the design's levels, which scenarios go on, and where they stop."""

from __future__ import annotations

import pandas as pd
import pytest
from trajguard_testkit.rows import pass_rows as rows

from trajguard.comparison import (
    CompareConfig,
    EscalationDesign,
    Look,
    Verdict,
    compare_runsets,
    drive,
)
from trajguard.comparison._escalation import escalation_plan, later_look, leaning
from trajguard.errors import TrajguardError


def test_design_levels_add_up_to_alpha():
    d = escalation_plan(first=20, max_runs=60, alpha=0.05, scenarios=4)
    assert d.looks == (20, 40, 60)
    assert d.alpha_first == pytest.approx(0.04)
    # Linear spending of 0.01 / 4 scenarios over the two later looks.
    assert d.thresholds == pytest.approx((0.00125, 0.00125))
    assert d.alpha_first + d.scenarios * sum(d.thresholds) == pytest.approx(0.05)
    with pytest.raises(TrajguardError, match="must be above the runs per scenario"):
        escalation_plan(first=20, max_runs=20, alpha=0.05, scenarios=4)


CONFIG = CompareConfig(metrics=("pass_rate", "crash_rate", "tool_usage"), suite_share=0.0)


def test_leaning_scenarios_go_on_and_quiet_ones_stop():
    base = pd.DataFrame(rows("lean", 12, 20) + rows("quiet", 10, 20) + rows("gone", 18, 20))
    cand = pd.DataFrame(
        rows("lean", 7, 20) + rows("quiet", 11, 20) + rows("gone", 0, 20, tools=("weather",))
    )
    design = escalation_plan(first=20, max_runs=60, alpha=0.05, scenarios=3)
    first = compare_runsets(base, cand, config=CONFIG.with_updates(alpha=design.alpha_first))
    decided = leaning(first, design)
    assert decided["lean"] is None  # combined p between the family's level and 0.2
    assert first.scenario("lean").gate.p_value <= design.lean
    assert "quiet at the first look" in decided["quiet"].reason
    assert decided["gone"].regressed and "first look" in decided["gone"].reason


def test_later_look_stops_regressed_only_below_its_threshold():
    design = escalation_plan(first=20, max_runs=60, alpha=0.05, scenarios=3)
    strong = compare_runsets(
        pd.DataFrame(rows("s", 24, 40)), pd.DataFrame(rows("s", 4, 40)), config=CONFIG
    ).scenario("s")
    stop, seen = later_look(strong, design, 1, ())
    assert stop is not None and stop.regressed == ("pass_rate",)
    assert seen[0].p_value <= design.thresholds[0]
    weak = compare_runsets(
        pd.DataFrame(rows("s", 24, 40)), pd.DataFrame(rows("s", 17, 40)), config=CONFIG
    ).scenario("s")
    stop, seen = later_look(weak, design, 1, ())
    assert weak.gate.p_value > design.thresholds[0]
    if weak.gate.p_value <= design.lean:
        assert stop is None  # still leaning: next look
    last, _ = later_look(weak, design, 2, seen)
    assert last is not None and not last.regressed


def test_the_escalation_design_settles_the_gating_verdicts():
    base = pd.DataFrame(rows("a", 18, 20) + rows("b", 12, 20))
    cand = pd.DataFrame(rows("a", 2, 20) + rows("b", 11, 20))
    design = EscalationDesign(runs={"a": 20, "b": 20}, max_runs=40, config=CONFIG)
    first = design.first()
    assert first.runs == {"a": 20, "b": 20}
    # "a" regressed at the first look, "b" is quiet: no second look.
    assert design.after(first, base, cand) is None
    config = design.final_config(CONFIG)
    assert config.alpha == pytest.approx(design.plan.alpha_first)
    final = design.settle(compare_runsets(base, cand, config=config))
    assert final.regressed
    assert final.scenario("a").metric("pass_rate").verdict is Verdict.REGRESSED
    assert any(
        "escalation: 20 candidate runs" in n for n in final.scenario("a").metric("pass_rate").notes
    )


def test_a_fixed_sample_regression_the_design_did_not_decide_is_inconclusive():
    base = pd.DataFrame(rows("a", 18, 20) + rows("b", 12, 20))
    cand = pd.DataFrame(rows("a", 2, 20) + rows("b", 11, 20))
    fixed = compare_runsets(base, cand, config=CONFIG)
    assert fixed.regressed
    design = EscalationDesign(runs={"a": 20, "b": 20}, max_runs=40, config=CONFIG)
    undecided = design.settle(fixed)
    assert not undecided.regressed
    pass_rate = undecided.scenario("a").metric("pass_rate")
    assert pass_rate.verdict is Verdict.INCONCLUSIVE
    assert any("escalation design, which decides here, did not" in n for n in pass_rate.notes)


def test_the_look_loop_gives_more_runs_only_to_the_leaning_scenario():
    base = pd.DataFrame(rows("lean", 12, 20) + rows("quiet", 10, 20))
    # Every look's candidate runs are drawn from one prepared table per scenario.
    pool = {
        "lean": pd.DataFrame(rows("lean", 7, 20) + rows("lean", 7, 20) + rows("lean", 7, 20)),
        "quiet": pd.DataFrame(rows("quiet", 11, 20) + rows("quiet", 11, 20)),
    }
    made = {"lean": 0, "quiet": 0}
    looks: list[Look] = []

    def run_look(look: Look) -> None:
        looks.append(look)
        made.update(look.runs or {})

    def sides() -> tuple[pd.DataFrame, pd.DataFrame]:
        cand = pd.concat([pool[s].head(n) for s, n in made.items()], ignore_index=True)
        return base, cand

    design = EscalationDesign(runs={"lean": 20, "quiet": 20}, max_runs=60, config=CONFIG)
    drive(design, run_look=run_look, sides=sides)
    assert looks[0].runs == {"lean": 20, "quiet": 20}
    assert all(set(look.runs or ()) == {"lean"} for look in looks[1:])
    assert made["quiet"] == 20 and made["lean"] > 20
    assert set(design.stops) == {"lean", "quiet"}
