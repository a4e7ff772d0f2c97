"""Escalation: the design's levels, which scenarios go on, and where they stop."""

from __future__ import annotations

import pandas as pd
import pytest
from trajguard_testkit.rows import pass_rows as rows

from trajguard.compare import (
    CompareConfig,
    Verdict,
    apply_escalation,
    compare_runsets,
    escalation_design,
    later_look,
    leaning,
)
from trajguard.errors import TrajguardError


def test_design_levels_add_up_to_alpha():
    d = escalation_design(first=20, max_runs=60, alpha=0.05, scenarios=4)
    assert d.looks == (20, 40, 60)
    assert d.alpha_first == pytest.approx(0.04)
    # Linear spending of 0.01 / 4 scenarios over the two later looks.
    assert d.thresholds == pytest.approx((0.00125, 0.00125))
    assert d.alpha_first + d.scenarios * sum(d.thresholds) == pytest.approx(0.05)
    with pytest.raises(TrajguardError, match="must be above the runs per scenario"):
        escalation_design(first=20, max_runs=20, alpha=0.05, scenarios=4)


CONFIG = CompareConfig(metrics=("pass_rate", "crash_rate", "tool_multiset"), suite_share=0.0)


def test_leaning_scenarios_go_on_and_quiet_ones_stop():
    base = pd.DataFrame(rows("lean", 12, 20) + rows("quiet", 10, 20) + rows("gone", 18, 20))
    cand = pd.DataFrame(
        rows("lean", 7, 20) + rows("quiet", 11, 20) + rows("gone", 0, 20, tools=("weather",))
    )
    design = escalation_design(first=20, max_runs=60, alpha=0.05, scenarios=3)
    first = compare_runsets(base, cand, config=CONFIG.with_updates(alpha=design.alpha_first))
    decided = leaning(first, design)
    assert decided["lean"] is None  # combined p between the family's level and 0.2
    assert first.scenario("lean").gate.p_value <= design.lean
    assert "quiet at the first look" in decided["quiet"].reason
    assert decided["gone"].regressed and "first look" in decided["gone"].reason


def test_later_look_stops_regressed_only_below_its_threshold():
    design = escalation_design(first=20, max_runs=60, alpha=0.05, scenarios=3)
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


def test_apply_escalation_sets_the_gating_verdicts():
    base = pd.DataFrame(rows("a", 18, 20) + rows("b", 12, 20))
    cand = pd.DataFrame(rows("a", 2, 20) + rows("b", 11, 20))
    design = escalation_design(first=20, max_runs=40, alpha=0.05, scenarios=2)
    first = compare_runsets(base, cand, config=CONFIG.with_updates(alpha=design.alpha_first))
    stops = {s: stop for s, stop in leaning(first, design).items() if stop is not None}
    final = apply_escalation(first, stops, first)
    assert final.regressed
    assert final.scenario("a").metric("pass_rate").verdict is Verdict.REGRESSED
    assert any(
        "escalation: 20 candidate runs" in n for n in final.scenario("a").metric("pass_rate").notes
    )
    # A fixed-sample regression the design did not decide becomes inconclusive.
    undecided = apply_escalation(first, {}, first)
    assert not undecided.regressed
    assert undecided.scenario("a").metric("pass_rate").verdict is Verdict.INCONCLUSIVE
