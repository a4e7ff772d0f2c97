"""A/B comparisons: the CMH test by hand, the plain answer, and the detectable difference."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from trajguard.comparison import Answer, CompareConfig, compare_ab
from trajguard.errors import StoreError

CFG = CompareConfig(metrics=("pass_rate", "crash_rate", "step_count", "prompt_tokens"))


def runs(variant, scenario, passes, n, steps=3, crashes=0, prompt=100):
    return [
        {
            "scenario": scenario,
            "variant": variant,
            "status": "agent_error" if i < crashes else "ok",
            "passed": i < passes,
            "step_count": steps + i % 3,
            "tool_sequence": ["calc"],
            "tool_counts": {"calc": 1},
            "prompt_tokens": prompt + 7 * i,
            "completion_tokens": 10,
            "duration_s": 1.0,
        }
        for i in range(n)
    ]


def frame(spec):
    rows = []
    for variant, scenario, passes, n in spec:
        rows += runs(variant, scenario, passes, n)
    return pd.DataFrame(rows)


def _cmh_by_hand(tables):
    num = var = 0.0
    for (a, b), (c, d) in tables:
        n = a + b + c + d
        num += a - (a + b) * (a + c) / n
        var += (a + b) * (c + d) * (a + c) * (b + d) / (n * n * (n - 1))
    return stats.chi2.sf(num * num / var, 1)


def test_helped_with_cmh_by_hand():
    spec = [
        ("A", "s1", 10, 20),
        ("B", "s1", 17, 20),
        ("A", "s2", 12, 20),
        ("B", "s2", 18, 20),
        ("A", "s3", 5, 20),
        ("B", "s3", 9, 20),
    ]
    result = compare_ab(frame(spec), "A", "B", config=CFG)
    tables = [((17, 3), (10, 10)), ((18, 2), (12, 8)), ((9, 11), (5, 15))]
    rate = result.metric("pass_rate")
    assert rate.p_value == pytest.approx(_cmh_by_hand(tables))
    assert rate.estimate == pytest.approx(np.mean([7 / 20, 6 / 20, 4 / 20]))
    assert rate.better
    assert result.answer is Answer.HELPED
    assert result.summary.startswith("B helped compared with A")
    assert result.per_scenario.config.two_sided


def test_hurt_and_no_difference():
    hurt = compare_ab(frame([("A", "s", 18, 20), ("B", "s", 5, 20)]), "A", "B", config=CFG)
    assert hurt.answer is Answer.HURT
    same = compare_ab(
        frame([("A", "s", 10, 20), ("B", "s", 11, 20), ("A", "t", 15, 20), ("B", "t", 14, 20)]),
        "A",
        "B",
        config=CFG,
    )
    assert same.answer is Answer.NO_DETECTABLE_DIFFERENCE
    assert "would have detected an average pass-rate difference" in same.summary


def test_detectable_difference_by_hand():
    result = compare_ab(
        frame([("A", "s", 10, 20), ("B", "s", 11, 20), ("A", "t", 15, 20), ("B", "t", 14, 20)]),
        "A",
        "B",
        config=CFG,
    )
    z = stats.norm.ppf(1 - 0.05 / 4) + stats.norm.ppf(0.8)
    pooled = [(21 + 1) / 42, (29 + 1) / 42]
    var = sum(p * (1 - p) * (1 / 20 + 1 / 20) for p in pooled) / 4
    assert result.detectable_difference == pytest.approx(z * math.sqrt(var))


def test_all_constant_strata_are_defined():
    result = compare_ab(frame([("A", "s", 20, 20), ("B", "s", 20, 20)]), "A", "B", config=CFG)
    rate = result.metric("pass_rate")
    assert rate.p_value == 1.0
    assert rate.odds_ratio is None
    assert result.answer is Answer.NO_DETECTABLE_DIFFERENCE
    steps = result.metric("step_count")
    assert steps.p_value == 1.0


def test_stratified_permutation_sees_a_shift_in_tokens():
    rows = []
    for s in ("s1", "s2", "s3"):
        rows += runs("A", s, 5, 10, prompt=100) + runs("B", s, 5, 10, prompt=160)
    result = compare_ab(pd.DataFrame(rows), "A", "B", config=CFG)
    tokens = result.metric("prompt_tokens")
    assert tokens.p_value < 0.01
    assert tokens.better is False
    expected = np.mean(
        [np.log(160 + 7 * np.arange(10)).mean() - np.log(100 + 7 * np.arange(10)).mean()]
    )
    assert tokens.estimate == pytest.approx(math.exp(expected))


def test_missing_variant_is_an_input_error():
    with pytest.raises(StoreError, match="no runs of variant 'C'"):
        compare_ab(frame([("A", "s", 1, 2), ("B", "s", 1, 2)]), "A", "C")


def test_behaviour_beyond_its_band_is_a_difference_for_ab():
    # Same pass rates; variant B calls another tool in every run: not a rate difference, but
    # tool usage (gating by default) differs beyond its band.
    rows = runs("A", "s", 10, 20) + [
        r | {"variant": "B", "tool_sequence": ["weather"], "tool_counts": {"weather": 1}}
        for r in runs("B", "s", 10, 20)
    ]
    result = compare_ab(pd.DataFrame(rows), "A", "B")
    assert result.answer is Answer.DIFFERENT
    assert result.per_scenario.scenario("s").metric("tool_usage").verdict.value == "changed"
    assert "s: tool usage changed (TVD = 0.50)" in result.summary
    # The scenario reads "changed" too, and the summary does not also say "no detectable
    # difference" (the contradiction a new user saw).
    assert result.per_scenario.scenario("s").verdict.value == "changed"
    assert "no detectable difference" not in result.summary.lower()
    assert result.per_scenario.family.alpha_suite == 0.0
