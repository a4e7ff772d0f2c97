"""The metric and tolerance tables: one entry per metric, read by every consumer."""

from __future__ import annotations

import pytest

from trajguard.comparison import (
    DEFAULT_GATING,
    METRIC_NAMES,
    METRICS,
    TOLERANCES,
    CompareConfig,
    Summary,
    metric,
    tolerance,
)
from trajguard.errors import TrajguardError


def test_every_metric_is_described_once_and_completely() -> None:
    assert len(set(METRIC_NAMES)) == len(METRICS) == 14
    assert METRIC_NAMES[-6:-3] == ("retry_rate", "recovery_rate", "no_fabrication_rate")
    assert all(m.conditional and m.tolerance == "resilience" for m in METRICS[-6:-3])
    assert METRIC_NAMES[-3:] == ("failing_paths", "cost", "user_turns")
    # conversations (issue 37): the user's messages, a count compared like steps
    user_turns = METRICS[-1]
    assert (user_turns.name, user_turns.kind, user_turns.tolerance) == (
        "user_turns",
        "shift",
        "steps",
    )
    assert user_turns.conditional and not user_turns.gating
    assert len({m.label for m in METRICS}) == len(METRICS)
    # Measured (benchmarks/bench_power.py): tool usage and failing paths catch a broken prompt;
    # steps, tokens and tool order stay diagnostic by default.
    assert {"pass_rate", "crash_rate", "tool_usage", "failing_paths"} == DEFAULT_GATING
    for m in METRICS:
        assert callable(m.evaluate)
        assert m.tolerance is None or tolerance(m.tolerance).name == m.tolerance
        assert m.equivalence_band is None or tolerance(m.equivalence_band)
        assert callable(m.joint)
    # The order seeds the permutation tests: appending keeps every report reproducible.
    assert METRIC_NAMES[:3] == ("pass_rate", "crash_rate", "step_count")


@pytest.mark.parametrize(
    ("name", "estimate", "ci", "cells"),
    [
        ("pass_rate", -0.25, (-0.4, -0.1), ("Δ -25 pts", "[-40, -10]")),
        ("step_count", 0.62, (0.5, 0.7), ("A = 0.62", "[0.5, 0.7]")),
        ("prompt_tokens", 1.2, None, ("×1.20", "—")),
        ("tool_usage", 0.3, None, ("TVD = 0.30", "—")),
        ("tool_sequence", 0.1, None, ("new +10 pts", "—")),
        ("failing_paths", 0.45, None, ("+45 pts on one path", "—")),
        ("latency", None, None, ("—", "—")),
        ("cost", 0.6, (0.5, 0.7), ("×0.60", "[0.5, 0.7]")),
    ],
)
def test_effects_are_formatted_from_the_registry(name, estimate, ci, cells) -> None:
    assert metric(name).format_effect(estimate, ci) == cells


def test_sides_values_and_plan_cells() -> None:
    assert metric("pass_rate").format_side(Summary(n=20, mean=0.35)) == "35% (n=20)"
    assert metric("latency").format_side(Summary(n=5, geometric_mean=1.5)) == "gmean 1.5 (n=5)"
    assert metric("step_count").format_side(Summary(n=4, median=6.0)) == "median 6 (n=4)"
    assert metric("tool_sequence").format_side(Summary(n=0)) == "no runs"
    assert metric("latency").heading == "latency (s)"
    assert metric("pass_rate").format_detectable(0.35) == "35 pts"
    assert metric("prompt_tokens").format_detectable(1.31) == "×1.31"
    assert metric("step_count").format_plan_baseline(0.5) == "A = 0.50"
    assert metric("crash_rate").format_difference(-0.05) == "-5 pts"
    assert metric("failing_paths").format_side(Summary(n=20, mean=0.65)) == "65% failed (n=20)"
    assert metric("failing_paths").format_difference(0.2) == "+20 pts on one path"
    assert metric("failing_paths").format_band(0.1) == "≤ 10 pts more runs failing along one path"
    assert metric("pass_rate").no_worse(0.0) and not metric("crash_rate").no_worse(0.01)


def test_tolerances_accept_their_aliases_and_check_their_ranges() -> None:
    config = CompareConfig(tolerances={"tokens": 1.3, "step_count": 0.2})
    assert config.tolerance("ratio") == config.tolerance("latency") == 1.3
    assert config.tolerance("steps") == 0.2
    assert (
        config.tolerance("pass_rate")
        == next(t for t in TOLERANCES if t.name == "pass_rate").default
    )
    scoped = CompareConfig(scenario_tolerances={"s": {"pass_rate": 0.4}}).for_scenario("s")
    assert scoped.tolerance("pass_rate") == 0.4
    for bad, fragment in (
        ({"pass_rate": 1.5}, "at most 1"),
        ({"tokens": 0.9}, "a ratio above 1"),
        ({"tools": 0.7}, "at most 0.5"),
        ({"tool_mix": 1.2}, "a share"),
        ({"speed": 2.0}, "unknown tolerance 'speed'"),
    ):
        with pytest.raises(TrajguardError, match=fragment):
            CompareConfig(tolerances=bad)


def test_earlier_names_of_tool_usage_are_still_read():
    """One name per metric (tool_usage: metric, band, report); suites and commands written with
    the earlier names keep working."""
    from trajguard.comparison import CompareConfig, metric, tolerance

    config = CompareConfig(
        metrics=("pass_rate", "tool_multiset"),
        gating=frozenset({"tool_multiset"}),
        tolerances={"tool_mix": 0.25},
    )
    assert config.metrics == ("pass_rate", "tool_usage")
    assert config.gating == frozenset({"tool_usage"})
    assert config.tolerance("tool_usage") == 0.25
    assert metric("tool_multiset") is metric("tool_usage")
    assert tolerance("tool_mix").name == "tool_usage"
    assert metric("tool_usage").label == "tool usage"
    assert metric("tool_usage").tolerance == "tool_usage"
