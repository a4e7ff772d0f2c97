"""The gating family: per-scenario combined tests, step-down over scenarios, suite-level tests,
each checked against an independent computation (exact enumeration, scipy, statsmodels)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats
from trajguard_testkit.exact import arrangements, boschloo_greater
from trajguard_testkit.rows import frame
from trajguard_testkit.rows import run_row as run

from trajguard.comparison import CompareConfig, Resampling, Verdict, compare_runsets

PASS_ONLY = CompareConfig(metrics=("pass_rate",), gating=frozenset({"pass_rate"}), suite_share=0.0)


def test_one_rate_alone_is_its_conditional_exact_test_fisher():
    # Only the pass rate varies: ordering arrangements by Boschloo's p-value with the margins
    # fixed is Fisher's one-sided test.
    base = [run("a", passed=i < 4) for i in range(5)]
    cand = [run("a", passed=i < 1) for i in range(5)]
    cmp = compare_runsets(frame(base), frame(cand), config=PASS_ONLY)
    gate = cmp.scenario("a").gate
    fisher = stats.fisher_exact([[4, 1], [1, 4]], alternative="greater").pvalue
    assert gate.p_value == pytest.approx(fisher)
    assert gate.p_adjusted == pytest.approx(fisher)  # one scenario: nothing to adjust
    assert "exact" in gate.test


def _combined_by_enumeration(base, cand):
    """Fisher combination of the pass rate's Boschloo p and the tool-mix TVD's permutation p,
    its own permutation p-value, every arrangement enumerated with scipy."""
    runs = base + cand
    n_b, n_c = len(base), len(cand)
    passed = np.array([r["passed"] for r in runs])
    tools = sorted({t for r in runs for t in r["tool_counts"]})
    mix = np.array([[r["tool_counts"].get(t, 0) for t in tools] + [1] for r in runs], float)
    masks = list(arrangements(n_b + n_c, n_c))
    p_pass, tvd = [], []
    for m in masks:
        p_pass.append(boschloo_greater(int(passed[~m].sum()), n_b, int(passed[m].sum()), n_c))
        c, b = mix[m].sum(0), mix[~m].sum(0)
        tvd.append(0.5 * np.abs(c / c.sum() - b / b.sum()).sum())
    tvd = np.array(tvd)
    p_tvd = np.array([np.mean(tvd >= t - 1e-12) for t in tvd])
    combined = -np.log(np.array(p_pass)) - np.log(p_tvd)
    observed = combined[-1]  # candidates last: the last combination
    return np.mean(combined >= observed - 1e-9), combined


TOOLS = CompareConfig(
    metrics=("pass_rate", "tool_usage"),
    gating=frozenset({"pass_rate", "tool_usage"}),
    suite_share=0.0,
)


def test_combined_test_of_a_scenario_by_enumeration():
    base = [run("a", passed=i < 3, tools=("calc",) if i < 3 else ("weather",)) for i in range(4)]
    cand = [run("a", passed=i < 1, tools=("weather", "weather")) for i in range(4)]
    cmp = compare_runsets(frame(base), frame(cand), config=TOOLS)
    gate = cmp.scenario("a").gate
    expected, _ = _combined_by_enumeration(base, cand)
    assert gate.metrics == ("pass_rate", "tool_usage")
    assert gate.p_value == pytest.approx(expected, rel=1e-6)


def test_step_down_over_scenarios_by_enumeration():
    # Two exact scenarios and a constant one: the first-step adjusted p-value is the chance,
    # over the product of the scenarios' exact null laws, that one of them is this small.
    s1 = (
        [run("a", passed=i < 3, tools=("calc",)) for i in range(4)],
        [run("a", passed=False, tools=("weather",)) for _ in range(4)],
    )
    s2 = (
        [run("b", passed=i < 2, tools=("calc",) if i % 2 else ("weather",)) for i in range(4)],
        [run("b", passed=i < 2, tools=("calc",)) for i in range(4)],
    )
    s3 = ([run("c")] * 4, [run("c")] * 4)
    cmp = compare_runsets(frame(s1[0] + s2[0] + s3[0]), frame(s1[1] + s2[1] + s3[1]), config=TOOLS)
    laws = []
    for base, cand in (s1, s2):
        _, combined = _combined_by_enumeration(base, cand)
        laws.append(np.array([np.mean(combined >= v - 1e-9) for v in combined]))
    observed = [cmp.scenario(s).gate.p_value for s in "ab"]
    first = int(np.argmin(observed))
    joint = np.mean([min(x, y) <= observed[first] + 1e-12 for x, y in itertools.product(*laws)])
    assert cmp.scenario("ab"[first]).gate.p_adjusted == pytest.approx(joint)
    constant = cmp.scenario("c").gate
    assert constant.p_value == 1.0
    assert constant.metrics == ()
    # The constant scenario costs nothing: the same adjusted p-values without it.
    alone = compare_runsets(frame(s1[0] + s2[0]), frame(s1[1] + s2[1]), config=TOOLS)
    for s in "ab":
        assert alone.scenario(s).gate.p_adjusted == pytest.approx(cmp.scenario(s).gate.p_adjusted)


def test_n3_cannot_reach_and_says_so():
    base = [run(s, passed=True) for s in "abcdef" for _ in range(3)]
    cand = [run(s, passed=False) for s in "abcdef" for _ in range(3)]
    cmp = compare_runsets(frame(base), frame(cand), config=PASS_ONLY)
    gate = cmp.scenario("a").gate
    assert gate.floor == pytest.approx(1 / math.comb(6, 3))
    assert not gate.reachable
    m = cmp.scenario("a").metric("pass_rate")
    assert m.verdict is Verdict.INCONCLUSIVE
    assert any("cannot reach significance at this N" in n for n in m.notes)
    # Nothing any of the six scenarios can produce clears the first step.
    assert cmp.family.critical < gate.floor


def test_tool_change_alone_is_a_regression_for_the_nightly_and_a_difference_for_ab():
    base = [run("a", passed=i % 2 == 0, tools=("calc",)) for i in range(20)]
    cand = [run("a", passed=i % 2 == 0, tools=("weather",)) for i in range(20)]
    nightly = compare_runsets(frame(base), frame(cand), config=TOOLS)
    tools = nightly.scenario("a").metric("tool_usage")
    assert tools.verdict is Verdict.REGRESSED
    assert nightly.scenario("a").metric("pass_rate").verdict is not Verdict.REGRESSED
    assert nightly.regressed
    ab = compare_runsets(frame(base), frame(cand), config=TOOLS.with_updates(two_sided=True))
    assert ab.scenario("a").metric("tool_usage").verdict is Verdict.CHANGED
    assert not ab.regressed


def test_a_change_inside_the_band_does_not_fail_the_night():
    base = [run("a", tools=("calc",)) for _ in range(100)]
    cand = [run("a", tools=("calc",)) for _ in range(85)] + [
        run("a", tools=("weather",)) for _ in range(15)
    ]
    loose = TOOLS.with_updates(tolerances={"tool_mix": 0.2})
    cmp = compare_runsets(frame(base), frame(cand), config=loose)
    tools = cmp.scenario("a").metric("tool_usage")
    assert cmp.scenario("a").gate.p_adjusted <= 0.05
    assert tools.estimate == pytest.approx(0.075)  # 15 of 200 calls and ends moved
    assert tools.verdict is Verdict.CHANGED_WITHIN_TOLERANCE
    assert not cmp.regressed


def test_unjudged_runs_leave_the_rate_not_the_arrangement():
    # A run without a pass/fail outcome enters the tool mix but not the pass rate: in every
    # arrangement the pass rate is Boschloo's test on the judged runs it holds.
    base = [run("a", passed=True, tools=("calc",)) for _ in range(3)] + [
        run("a", passed=None, tools=("calc",))
    ]
    cand = [run("a", passed=False, tools=("calc",)) for _ in range(3)]
    cmp = compare_runsets(frame(base), frame(cand), config=PASS_ONLY)
    runs = base + cand
    judged = np.array([r["passed"] is not None for r in runs])
    passed = np.array([bool(r["passed"]) for r in runs])
    values = []
    for m in arrangements(7, 3):
        nb, nc = int((judged & ~m).sum()), int((judged & m).sum())
        xb, xc = int((passed & ~m).sum()), int((passed & m).sum())
        values.append(boschloo_greater(xb, nb, xc, nc) if nb and nc else 1.0)
    values = np.array(values)
    observed = values[-1]
    assert cmp.scenario("a").gate.p_value == pytest.approx(np.mean(values <= observed + 1e-12))


def _cmh_z(strata):
    num = var = 0.0
    for xb, nb, xc, nc in strata:
        n, t = nb + nc, xb + xc
        num += nc * t / n - xc
        var += nb * nc * t * (n - t) / (n * n * (n - 1))
    return num / math.sqrt(var) if var else 0.0


def test_suite_cmh_against_its_exact_stratified_distribution():
    # Two scenarios of 3 + 3 runs: every joint arrangement (20 x 20) enumerated.
    data = {"a": ([1, 1, 0], [0, 0, 0]), "b": ([1, 1, 1], [1, 0, 0])}
    base = [run(s, passed=bool(v)) for s, (b, _) in data.items() for v in b]
    cand = [run(s, passed=bool(v)) for s, (_, c) in data.items() for v in c]
    config = PASS_ONLY.with_updates(suite_share=0.5, resampling=Resampling(n_resamples=19_999))
    cmp = compare_runsets(frame(base), frame(cand), config=config)
    (suite,) = cmp.family.suite
    per = []
    for b, c in data.values():
        values = np.array(b + c)
        per.append(
            [(int(values[~m].sum()), 3, int(values[m].sum()), 3) for m in arrangements(6, 3)]
        )
    z = np.array([_cmh_z([x, y]) for x, y in itertools.product(*per)])
    observed = _cmh_z([(2, 3, 0, 3), (3, 3, 1, 3)])
    exact = np.mean(z >= observed - 1e-9)
    assert suite.p_value == pytest.approx(exact, abs=0.01)
    assert cmp.family.alpha_suite == pytest.approx(0.025)
    assert cmp.family.alpha_scenarios == pytest.approx(0.025)


def test_a_broad_small_drop_is_caught_by_the_suite_gate():
    # 20 scenarios, each 50 % -> 30 %: no scenario clears its step, the suite does.
    rng = np.random.default_rng(0)
    base, cand = [], []
    for s in range(20):
        base += [run(f"s{s}", passed=bool(rng.random() < 0.5)) for _ in range(20)]
        cand += [run(f"s{s}", passed=bool(rng.random() < 0.3)) for _ in range(20)]
    cmp = compare_runsets(frame(base), frame(cand), config=CompareConfig(metrics=("pass_rate",)))
    (suite,) = [t for t in cmp.family.suite if t.metric == "pass_rate"]
    assert suite.p_adjusted <= cmp.family.alpha_suite
    assert suite.verdict is Verdict.REGRESSED
    assert suite.estimate < -0.1
    assert cmp.regressed
    assert cmp.verdict is Verdict.REGRESSED
    assert cmp.family.alpha_suite == pytest.approx(0.05 * CompareConfig().suite_share)


def test_one_scenario_gives_the_suite_no_share():
    cmp = compare_runsets(frame([run("a")] * 5), frame([run("a")] * 5))
    assert cmp.family.alpha_suite == 0.0
    assert cmp.family.alpha_scenarios == 0.05
    assert cmp.family.suite == ()


def test_200_scenarios_one_broken_is_found():
    rng = np.random.default_rng(1)
    base, cand = [], []
    for s in range(200):
        rate = rng.uniform(0.3, 0.9)
        base += [run(f"s{s:03d}", passed=bool(rng.random() < rate)) for _ in range(20)]
        broken = s == 7
        cand += [
            run(
                f"s{s:03d}",
                passed=False if broken else bool(rng.random() < rate),
                tools=("weather",) if broken else ("calc",),
            )
            for _ in range(20)
        ]
    cmp = compare_runsets(
        frame(base),
        frame(cand),
        config=CompareConfig(metrics=("pass_rate", "tool_usage", "failing_paths")),
    )
    broken = cmp.scenario("s007")
    assert broken.verdict is Verdict.REGRESSED
    assert broken.gate.p_adjusted <= cmp.family.alpha_scenarios
    others = [s for s in cmp.scenarios if s.scenario != "s007"]
    assert sum(s.verdict is Verdict.REGRESSED for s in others) <= 2
    # Never below Šidák (every law is at most uniform); above it here, since the scenarios
    # whose runs all called the same tool can give few small p-values.
    sidak = 1 - (1 - cmp.family.alpha_scenarios) ** (1 / 200)
    assert sidak * (1 - 1e-9) <= cmp.family.critical < 0.05
