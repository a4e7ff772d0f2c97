"""The gating paths test_gating.py does not reach, each against an independent computation:
the combined test with steps, tokens and tool order (scipy's Brunner-Munzel and Welch t, edit
distances by hand, every arrangement enumerated); the suite-level Fisher combination of a
behaviour metric and the Westfall-Young adjustment of the suite tests (every joint arrangement
of the strata enumerated); constant batches; N = 3 across the whole family."""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pytest
from rapidfuzz.distance import Levenshtein
from scipy import stats
from trajguard_testkit.exact import arrangements, boschloo_greater
from trajguard_testkit.rows import frame
from trajguard_testkit.rows import run_row as run

from trajguard.comparison import CompareConfig, Resampling, Verdict, compare_runsets


def _bm(b, c):
    # scipy's Brunner-Munzel statistic, positive when the candidate tends higher; clipped as
    # docs/explanation/statistics.md says (an arm without spread gives an infinite statistic).
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        s = stats.brunnermunzel(b, c, distribution="normal").statistic
    return float(np.clip(np.nan_to_num(s, nan=0.0, posinf=1e12, neginf=-1e12), -1e12, 1e12))


def _welch(b, c):
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = stats.ttest_ind(c, b, equal_var=False).statistic
    return float(np.clip(np.nan_to_num(t, nan=0.0, posinf=1e12, neginf=-1e12), -1e12, 1e12))


def _order(seqs, in_c):
    def mean(pairs):
        return np.mean([Levenshtein.normalized_distance(a, b) for a, b in pairs])

    cand = [s for s, f in zip(seqs, in_c, strict=True) if f]
    base = [s for s, f in zip(seqs, in_c, strict=True) if not f]
    within = (mean(itertools.combinations(base, 2)) + mean(itertools.combinations(cand, 2))) / 2
    return mean([(a, b) for a in base for b in cand]) - within


def _rank(values):
    values = np.asarray(values, dtype=float)
    return np.array([np.mean(values >= v - 1e-9 * max(1.0, abs(v))) for v in values])


ALL_FOUR = ("pass_rate", "step_count", "prompt_tokens", "tool_sequence")


def test_combined_test_with_steps_tokens_and_order_by_enumeration():
    base = [
        run("a", passed=True, tools=("calc",), steps=3, prompt=100),
        run("a", passed=True, tools=("calc", "calc"), steps=5, prompt=130),
        run("a", passed=False, tools=("weather",), steps=3, prompt=90),
        run("a", passed=True, tools=("calc",), steps=4, prompt=110),
    ]
    cand = [
        run("a", passed=False, tools=("weather", "calc"), steps=5, prompt=150),
        run("a", passed=False, tools=("weather",), steps=6, prompt=140),
        run("a", passed=True, tools=("calc",), steps=3, prompt=120),
        run("a", passed=False, tools=("weather", "weather"), steps=5, prompt=160),
    ]
    config = CompareConfig(metrics=ALL_FOUR, gating=frozenset(ALL_FOUR), suite_share=0.0)
    gate = compare_runsets(frame(base), frame(cand), config=config).scenario("a").gate
    runs = base + cand
    passed = np.array([r["passed"] for r in runs])
    steps = np.array([r["step_count"] for r in runs], float)
    tokens = np.log([r["prompt_tokens"] for r in runs])
    seqs = ["".join(t[0] for t in r["tool_sequence"]) for r in runs]
    rows = []
    for m in arrangements(8, 4):
        rows.append(
            (
                boschloo_greater(int(passed[~m].sum()), 4, int(passed[m].sum()), 4),
                _bm(steps[~m], steps[m]),
                _welch(tokens[~m], tokens[m]),
                _order(seqs, m),
            )
        )
    table = np.array(rows)
    p = np.column_stack([table[:, 0], _rank(table[:, 1]), _rank(table[:, 2]), _rank(table[:, 3])])
    combined = -np.log(p).sum(axis=1)
    expected = np.mean(combined >= combined[-1] - 1e-9)  # candidates last: the last arrangement
    assert set(gate.metrics) == set(ALL_FOUR)
    assert gate.p_value == pytest.approx(expected, rel=1e-6)
    # Exact: the law is the enumerated one, its floor the smallest attainable p-value.
    assert gate.floor == pytest.approx(min(_rank(combined)))


def test_a_constant_metric_does_not_enter_the_combination():
    base = [run("a", passed=i < 3, steps=3) for i in range(4)]
    cand = [run("a", passed=i < 1, steps=3) for i in range(4)]
    config = CompareConfig(
        metrics=("pass_rate", "step_count"),
        gating=frozenset({"pass_rate", "step_count"}),
        suite_share=0.0,
    )
    gate = compare_runsets(frame(base), frame(cand), config=config).scenario("a").gate
    assert gate.metrics == ("pass_rate",)
    fisher = stats.fisher_exact([[3, 1], [1, 3]], alternative="greater").pvalue
    assert gate.p_value == pytest.approx(fisher)


def test_constant_batches_in_every_scenario_raise_nothing():
    gating = ("pass_rate", "crash_rate", "tool_usage", "tool_sequence", "step_count")
    base = [run(s, passed=True) for s in "abc" for _ in range(5)]
    cand = [run(s, passed=True) for s in "abc" for _ in range(5)]
    cmp = compare_runsets(
        frame(base), frame(cand), config=CompareConfig(metrics=gating, gating=frozenset(gating))
    )
    for s in "abc":
        gate = cmp.scenario(s).gate
        assert (gate.p_value, gate.p_adjusted, gate.metrics) == (1.0, 1.0, ())
    assert cmp.family.suite
    assert all(t.p_value == 1.0 and t.verdict is Verdict.INCONCLUSIVE for t in cmp.family.suite)
    # No scenario can produce a p-value below 1: none costs the step-down anything.
    assert cmp.family.critical == pytest.approx(cmp.family.alpha_scenarios)
    assert not cmp.regressed


def _per_scenario_tvd_p(b_tools, c_tools):
    """Each arrangement of one scenario (3 + 3 runs): the tool-mix TVD's permutation p."""
    runs = b_tools + c_tools
    names = sorted({t for r in runs for t in r})
    mix = np.array([[r.count(t) for t in names] + [1] for r in runs], float)
    tvd = []
    for m in arrangements(6, 3):
        c, b = mix[m].sum(0), mix[~m].sum(0)
        tvd.append(0.5 * np.abs(c / c.sum() - b / b.sum()).sum())
    return _rank(tvd)


def _per_scenario_cmh_terms(b_pass, c_pass):
    values = np.array(b_pass + c_pass)
    return [(int(values[~m].sum()), int(values[m].sum())) for m in arrangements(6, 3)]


def _cmh_z(pairs):
    num = var = 0.0
    for xb, xc in pairs:
        n, t = 6, xb + xc
        num += 3 * t / n - xc
        var += 3 * 3 * t * (n - t) / (n * n * (n - 1))
    return num / math.sqrt(var) if var else 0.0


SUITE = {
    # scenario: (baseline passed, candidate passed, baseline tools, candidate tools)
    "a": ([1, 1, 0], [0, 0, 1], [("c",), ("c",), ("c", "c")], [("w",), ("w",), ("c",)]),
    "b": ([1, 0, 1], [0, 0, 0], [("c",), ("w",), ("c",)], [("w",), ("w", "w"), ("c",)]),
}


def test_suite_tool_test_and_westfall_young_by_enumerating_the_strata():
    # Two scenarios of 3 + 3 runs: 20 x 20 joint arrangements. The suite's tool test is the
    # Fisher combination of the scenarios' TVD permutation p-values, its pass-rate test the
    # CMH score; Westfall-Young adjusts the two on the joint arrangements.
    base, cand = [], []
    for s, (bp, cp, bt, ct) in SUITE.items():
        base += [run(s, passed=bool(v), tools=t) for v, t in zip(bp, bt, strict=True)]
        cand += [run(s, passed=bool(v), tools=t) for v, t in zip(cp, ct, strict=True)]
    config = CompareConfig(
        metrics=("pass_rate", "tool_usage"),
        gating=frozenset({"pass_rate", "tool_usage"}),
        suite_share=0.5,
        resampling=Resampling(n_resamples=39_999),
    )
    cmp = compare_runsets(frame(base), frame(cand), config=config)
    tvd_p = [_per_scenario_tvd_p(bt, ct) for _, _, bt, ct in SUITE.values()]
    cmh = [_per_scenario_cmh_terms(bp, cp) for bp, cp, _, _ in SUITE.values()]
    joint_tools, joint_z = [], []
    for i, j in itertools.product(range(20), range(20)):
        joint_tools.append(-np.log(tvd_p[0][i]) - np.log(tvd_p[1][j]))
        joint_z.append(_cmh_z([cmh[0][i], cmh[1][j]]))
    p_tools, p_pass = _rank(joint_tools), _rank(joint_z)
    observed = 19 * 20 + 19  # the last arrangement of each scenario: candidates last
    by_metric = {t.metric: t for t in cmp.family.suite}
    assert by_metric["tool_usage"].p_value == pytest.approx(p_tools[observed], abs=0.01)
    assert by_metric["pass_rate"].p_value == pytest.approx(p_pass[observed], abs=0.01)
    # Westfall-Young step-down min-p over the two suite tests, from the exact joint law.
    obs = {"pass_rate": p_pass[observed], "tool_usage": p_tools[observed]}
    first, second = sorted(obs, key=obs.get)
    both = np.minimum(p_pass, p_tools)
    last = p_pass if second == "pass_rate" else p_tools
    adj_first = np.mean(both <= obs[first] + 1e-12)
    adj_second = max(adj_first, np.mean(last <= obs[second] + 1e-12))
    assert by_metric[first].p_adjusted == pytest.approx(adj_first, abs=0.01)
    assert by_metric[second].p_adjusted == pytest.approx(adj_second, abs=0.01)


def test_n3_whole_family_with_behaviour_gates():
    # Three runs per side, every gating metric, several scenarios: each scenario's law is
    # exact (20 arrangements), and no p-value below 1/20 can exist.
    base = [run(s, passed=True, tools=("calc",)) for s in "abcd" for _ in range(3)]
    cand = [run(s, passed=False, tools=("weather",)) for s in "abcd" for _ in range(3)]
    gating = ("pass_rate", "crash_rate", "tool_usage", "failing_paths")
    cmp = compare_runsets(frame(base), frame(cand), config=CompareConfig(metrics=gating))
    for s in "abcd":
        gate = cmp.scenario(s).gate
        assert "exact" in gate.test and "failing_paths" in gate.metrics
        assert gate.p_value == pytest.approx(1 / 20)
        assert gate.floor == pytest.approx(1 / 20)
    # Four exact scenarios at 1/20: the first step's size is 1 - (19/20)^4 > alpha.
    assert cmp.scenario("a").gate.p_adjusted == pytest.approx(1 - (19 / 20) ** 4)
    assert not any(g.gate.reachable for g in cmp.scenarios)
