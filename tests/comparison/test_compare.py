"""compare_runsets: input contract, exclusions, multiplicity, verdicts and degenerate batches,
checked against scipy / statsmodels computations made here."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import tost_proportions_2indep

from trajguard.comparison import CompareConfig, Comparison, Verdict, compare_runsets
from trajguard.errors import StoreError
from trajguard.outcome import classify


def run(
    scenario="s",
    status="ok",
    passed=True,
    steps=3,
    tools=("calc",),
    prompt=100,
    completion=20,
    duration=1.0,
    **extra,
):
    row = {
        "scenario": scenario,
        "variant": "main",
        "status": status,
        "passed": passed,
        "step_count": steps,
        "tool_sequence": list(tools),
        "tool_counts": {t: list(tools).count(t) for t in set(tools)},
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "duration_s": duration,
    }
    return row | extra


def table(rows):
    return pd.DataFrame(rows)


def batch(scenario, passes, n, **kw):
    return [run(scenario, passed=i < passes, **kw) for i in range(n)]


def _all_floats(obj):
    if isinstance(obj, float):
        yield obj
    elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        for f in dataclasses.fields(obj):
            if f.name != "config":
                yield from _all_floats(getattr(obj, f.name))
    elif isinstance(obj, tuple | list):
        for item in obj:
            yield from _all_floats(item)


def assert_defined(cmp: Comparison) -> None:
    assert all(math.isfinite(x) for x in _all_floats(cmp))
    for s in cmp.scenarios:
        assert isinstance(s.verdict, Verdict)
        for m in s.metrics:
            assert isinstance(m.verdict, Verdict)


def test_regression_is_detected_and_holm_adjusted_across_scenarios():
    # The per-metric Holm family (multiplicity="holm", the method before the combined test).
    base = batch("a", 19, 20) + batch("b", 15, 20) + batch("c", 10, 20)
    cand = batch("a", 6, 20) + batch("b", 15, 20) + batch("c", 11, 20)
    cmp = compare_runsets(
        table(base),
        table(cand),
        config=CompareConfig(metrics=("pass_rate", "crash_rate"), multiplicity="holm"),
    )
    raw = [
        stats.boschloo_exact([[xb, xc], [20 - xb, 20 - xc]], alternative="greater").pvalue
        for xb, xc in ((19, 6), (15, 15), (10, 11))
    ]
    crash = [1.0, 1.0, 1.0]
    holm = multipletests(raw + crash, method="holm")[1]
    got = [cmp.scenario(s).metric("pass_rate") for s in "abc"]
    assert [m.p_value for m in got] == pytest.approx(raw, rel=1e-4)
    assert [m.p_adjusted for m in got] == pytest.approx(holm[:3], rel=1e-4)
    assert got[0].verdict is Verdict.REGRESSED
    assert cmp.scenario("a").verdict is Verdict.REGRESSED
    assert cmp.regressed
    assert cmp.verdict is Verdict.REGRESSED
    assert cmp.gating_tests == 6
    assert_defined(cmp)


def test_improvement_and_within_tolerance():
    cfg = CompareConfig(metrics=("pass_rate",), gating=frozenset({"pass_rate"}))
    improved = compare_runsets(table(batch("a", 5, 20)), table(batch("a", 19, 20)), config=cfg)
    assert improved.scenario("a").metric("pass_rate").verdict is Verdict.IMPROVED
    assert improved.verdict is Verdict.IMPROVED
    assert not improved.regressed
    # A significant drop of 8 points at 150 runs per side is inside the 10-point tolerance.
    small = compare_runsets(table(batch("a", 150, 150)), table(batch("a", 138, 150)), config=cfg)
    result = small.scenario("a").metric("pass_rate")
    assert result.p_adjusted <= 0.05
    assert result.verdict is Verdict.CHANGED_WITHIN_TOLERANCE
    assert not small.regressed


def test_unchanged_only_from_equivalence():
    cfg = CompareConfig(metrics=("pass_rate",), gating=frozenset({"pass_rate"}))
    same = compare_runsets(table(batch("a", 50, 50)), table(batch("a", 50, 50)), config=cfg)
    m = same.scenario("a").metric("pass_rate")
    with np.errstate(all="ignore"):
        tost = tost_proportions_2indep(50, 50, 50, 50, -0.1, 0.1, method="score").pvalue
    assert m.p_tost == pytest.approx(tost)
    assert m.identical
    assert m.verdict is Verdict.UNCHANGED
    # Identical at 20 runs per side: the equivalence test cannot conclude.
    short = compare_runsets(table(batch("a", 20, 20)), table(batch("a", 20, 20)), config=cfg)
    assert short.scenario("a").metric("pass_rate").verdict is Verdict.INCONCLUSIVE


def test_n3_cannot_reach_significance_and_says_so():
    base = [r for s in "abcdef" for r in batch(s, 3, 3)]
    cand = [r for s in "abcdef" for r in batch(s, 0, 3)]
    cmp = compare_runsets(
        table(base),
        table(cand),
        config=CompareConfig(metrics=("pass_rate", "crash_rate"), multiplicity="holm"),
    )
    m = cmp.scenario("a").metric("pass_rate")
    assert not m.reachable
    assert m.verdict is Verdict.INCONCLUSIVE
    assert any("cannot reach significance at N=3 per side" in n for n in m.notes)
    assert m.min_p == pytest.approx(
        stats.boschloo_exact([[3, 0], [0, 3]], alternative="greater").pvalue, rel=1e-4
    )
    assert cmp.scenario("a").mde_pass_rate is None
    assert "no pass-rate drop is detectable" in cmp.scenario("a").mde_note


def test_exclusions_and_crash_definition():
    base = [*batch("a", 10, 10), *[run("a", status="harness_error", passed=None)] * 3]
    cand = [
        *batch("a", 6, 8),
        run("a", status="timeout", passed=None),
        run("a", status="agent_error", passed=False),
        run("a", status="ok", passed=True, crashed=True),
        run("a", status="harness_error", passed=None),
    ]
    cmp = compare_runsets(table(base), table(cand))
    s = cmp.scenario("a")
    assert (s.harness_excluded_baseline, s.harness_excluded_candidate) == (3, 1)
    assert (s.runs_baseline, s.runs_candidate) == (10, 11)
    crash = s.metric("crash_rate")
    assert crash.candidate.n == 11
    assert crash.candidate.mean == pytest.approx(3 / 11)  # timeout, agent_error, crashed flag
    pass_rate = s.metric("pass_rate")
    # A crash is a judged failure even when the row (written before that rule) says otherwise:
    # the timeout stored without passed and the crashed run stored as passed both count as fails.
    assert (pass_rate.candidate.n, pass_rate.candidate.mean) == (11, pytest.approx(6 / 11))
    assert not any("without passed" in n for n in pass_rate.notes)
    assert s.metric("step_count").candidate.n == 11
    frame = table(cand)
    assert classify(frame).crashed.sum() == 3
    assert classify(frame, crash_statuses={"agent_error"}).crashed.sum() == 2


def test_map_columns_as_pyarrow_pairs_are_accepted():
    rows = batch("a", 5, 6)
    pairs = [
        r
        | {
            "tool_counts": list(r["tool_counts"].items()),
            "tool_sequence": np.array(r["tool_sequence"], dtype=object),
        }
        for r in rows
    ]
    nulls = [r | {"tool_counts": None, "tool_sequence": None} for r in rows]
    a = compare_runsets(table(rows), table(pairs))
    assert a.scenario("a").metric("tool_usage").identical
    b = compare_runsets(table(rows), table(nulls))
    assert b.scenario("a").metric("tool_usage").baseline.detail == (("calc", 1.0),)
    assert_defined(b)


def test_contract_errors():
    with pytest.raises(StoreError, match="lacks column"):
        compare_runsets(
            table(batch("a", 1, 2)).drop(columns=["duration_s"]), table(batch("a", 1, 2))
        )
    with pytest.raises(StoreError, match="column passed must hold true, false or null"):
        compare_runsets(table(batch("a", 1, 2)), table([run("a", passed="yes")]))
    with pytest.raises(StoreError, match="unknown status"):
        compare_runsets(table(batch("a", 1, 2)), table([run("a", status="crashed")]))


def test_degenerate_batches_never_produce_nan():
    base = [
        *batch("const", 10, 10, steps=4, prompt=100, tools=("calc", "calc")),
        run("one", passed=True),
        run("harness_only", status="harness_error", passed=None),
        *batch("no_judge", 0, 4, tools=()),
        *batch("only_base", 2, 2),
    ]
    cand = (
        batch("const", 10, 10, steps=4, prompt=100, tools=("calc", "calc"))
        + [run("one", passed=False, steps=9)]
        + batch("harness_only", 3, 3)
        + [run("no_judge", passed=None, tools=()) for _ in range(4)]
        + batch("only_cand", 1, 1)
    )
    cmp = compare_runsets(table(base), table(cand))
    assert_defined(cmp)
    assert cmp.only_in_baseline == ("only_base",)
    assert cmp.only_in_candidate == ("only_cand",)
    empty = cmp.scenario("harness_only")
    assert empty.metric("pass_rate").verdict is Verdict.INCONCLUSIVE
    assert "no runs in the baseline batch" in empty.metric("pass_rate").notes[0]
    assert cmp.scenario("no_judge").metric("pass_rate").notes
    const = cmp.scenario("const")
    assert const.metric("step_count").identical
    assert const.metric("tool_sequence").identical


def test_pass_k_per_scenario_and_suite():
    cmp = compare_runsets(
        table(batch("a", 6, 8) + batch("b", 8, 8)), table(batch("a", 8, 8) + batch("b", 4, 8))
    )
    a = cmp.scenario("a")
    assert [p.k for p in a.pass_k_baseline] == list(range(1, 9))
    assert a.pass_k_baseline[1].estimate == pytest.approx(math.comb(6, 2) / math.comb(8, 2))
    ci = stats.binomtest(6, 8).proportion_ci(method="wilson")
    assert (a.pass_k_baseline[2].low, a.pass_k_baseline[2].high) == pytest.approx(
        (ci.low**3, ci.high**3)
    )
    suite = cmp.pass_k_candidate[1]
    assert suite.estimate == pytest.approx((1 + math.comb(4, 2) / math.comb(8, 2)) / 2)


def test_diagnostics_are_bh_adjusted():
    r = np.random.default_rng(0)
    base = [
        run(s, steps=int(r.poisson(4)), prompt=int(r.lognormal(6, 0.3)))
        for s in "abc"
        for _ in range(25)
    ]
    cand = [
        run(s, steps=int(r.poisson(4 if s != "a" else 8)), prompt=int(r.lognormal(6, 0.3)))
        for s in "abc"
        for _ in range(25)
    ]
    cmp = compare_runsets(table(base), table(cand))
    diag = [m for s in cmp.scenarios for m in s.metrics if m.kind == "diagnostic"]
    # no run met a fault, none was a conversation: those metrics are untested
    untested = {m.metric for m in diag if m.baseline.n == m.candidate.n == 0}
    assert untested == {
        "retry_rate",
        "recovery_rate",
        "no_fabrication_rate",
        "cost",
        "user_turns",
    }
    assert all(m.p_adjusted == 1.0 for m in diag if m.metric in untested)
    diag = [m for m in diag if m.metric not in untested]
    raw = np.array([m.p_value for m in diag])  # every arm has runs: the whole family
    adjusted = [m.p_adjusted for m in diag]
    assert adjusted == pytest.approx(stats.false_discovery_control(raw, method="bh"))
    steps = cmp.scenario("a").metric("step_count")
    assert steps.verdict is Verdict.REGRESSED  # diagnostic: flagged, not gating
    assert not cmp.regressed


def test_two_sided_mode_and_determinism():
    cfg = CompareConfig(two_sided=True, metrics=("pass_rate", "tool_sequence"))
    base = batch("a", 18, 20, tools=("calc", "search"))
    cand = batch("a", 6, 20, tools=("search",))
    first = compare_runsets(table(base), table(cand), config=cfg)
    m = first.scenario("a").metric("pass_rate")
    expected = stats.boschloo_exact([[18, 6], [2, 14]], alternative="two-sided").pvalue
    assert m.p_value == pytest.approx(expected, rel=1e-4)
    assert m.verdict is Verdict.REGRESSED
    assert first == compare_runsets(table(base), table(cand), config=cfg)


def test_config_validation():
    from trajguard.errors import TrajguardError

    with pytest.raises(TrajguardError, match="unknown metric"):
        CompareConfig(metrics=("pass_rate", "vibes"))
    with pytest.raises(TrajguardError, match="alpha"):
        CompareConfig(alpha=1.5)


def test_per_scenario_tolerances_widen_only_their_scenario() -> None:
    """A suite's per-scenario band applies to that scenario alone (statistics: regressed only
    outside the band)."""
    import pandas as pd

    from trajguard.comparison import CompareConfig, compare_runsets

    def table(rate: float, n: int = 40) -> pd.DataFrame:
        rows = []
        for scenario in ("strict", "loose"):
            for i in range(n):
                rows.append(
                    {
                        "scenario": scenario,
                        "status": "ok",
                        "passed": i < rate * n,
                        "step_count": 4,
                        "tool_sequence": ["t"],
                        "tool_counts": {"t": 1},
                        "prompt_tokens": 100,
                        "completion_tokens": 10,
                        "duration_s": 1.0,
                    }
                )
        return pd.DataFrame(rows)

    default = compare_runsets(table(0.95), table(0.45))
    assert default.scenario("strict").verdict.value == "regressed"
    assert default.scenario("loose").verdict.value == "regressed"
    config = CompareConfig(scenario_tolerances={"loose": {"pass_rate": 0.8}})
    widened = compare_runsets(table(0.95), table(0.45), config=config)
    assert widened.scenario("strict").verdict.value == "regressed"
    assert widened.scenario("loose").metric("pass_rate").verdict.value == "changed within tolerance"


# ---- reachability: "cannot reach significance" is said only when it is true (issue review) -----


def _rows(scenario, n, passes, crashes, steps=3, prompt=5):
    return [
        run(
            scenario,
            status="agent_error" if i < crashes else "ok",
            passed=bool(crashes <= i < passes),
            steps=steps,
            tools=(),
            prompt=prompt,
            completion=5,
        )
        for i in range(n)
    ]


def _best_adjusted(results, metric_result, method):
    """Adjusted p of one test with its minimum attainable p in place of its own (statsmodels)."""
    tested = [m for m in results if m.p_value is not None]
    ps = [metric_result.min_p if m is metric_result else m.p_value for m in tested]
    return multipletests(ps, alpha=0.05, method=method)[1][tested.index(metric_result)]


def test_later_holm_steps_can_reject_so_no_cannot_reach_note():
    # "small" at N=3 cannot clear Holm's first step (.05/4) but clears its own step (.05/2) once
    # "big" has been rejected: it regresses at adjusted p .031 and must not say it cannot.
    base = table(_rows("big", 5, 5, 0) + _rows("small", 3, 3, 0))
    cand = table(_rows("big", 5, 0, 5) + _rows("small", 3, 0, 0))
    cmp = compare_runsets(
        base, cand, config=CompareConfig(metrics=("pass_rate", "crash_rate"), multiplicity="holm")
    )
    small = cmp.scenario("small").metric("pass_rate")
    raw = [m.p_value for s in cmp.scenarios for m in s.metrics]
    assert small.p_adjusted == pytest.approx(multipletests(raw, method="holm")[1][2], rel=1e-6)
    assert small.min_p > 0.05 / 4  # the old first-step check called this unreachable
    assert small.verdict is Verdict.REGRESSED
    assert small.reachable
    assert not any("cannot reach" in n for n in small.notes)


def test_bh_later_steps_can_reject_so_no_cannot_reach_note():
    def rows(vals):
        return [
            run("s", steps=v, prompt=100 * v, completion=10 * v, duration=float(v)) for v in vals
        ]

    cfg = CompareConfig(
        metrics=("pass_rate", "crash_rate", "step_count", "prompt_tokens", "completion_tokens")
    )
    cmp = compare_runsets(table(rows([3, 4, 5])), table(rows([6, 7, 8])), config=cfg)
    for name in ("step_count", "prompt_tokens", "completion_tokens"):
        m = cmp.scenario("s").metric(name)
        assert m.p_adjusted <= cfg.q
        assert m.reachable
        assert not any("cannot reach" in n for n in m.notes), m.notes


def test_cannot_reach_is_checked_against_the_other_observed_p_values():
    # Six scenarios at N=3 that all drop 3/3 -> 0/3: even the smallest p (1/64) adjusts above
    # .05 with the other eleven p-values as observed, so every one says it cannot reach.
    base = [r for s in "abcdef" for r in batch(s, 3, 3)]
    cand = [r for s in "abcdef" for r in batch(s, 0, 3)]
    cmp = compare_runsets(
        table(base),
        table(cand),
        config=CompareConfig(metrics=("pass_rate", "crash_rate"), multiplicity="holm"),
    )
    results = [m for s in cmp.scenarios for m in s.metrics]
    for m in results:
        best = _best_adjusted(results, m, "holm")
        assert m.reachable == (best <= 0.05 or m.p_adjusted <= 0.05)
        if m.metric == "pass_rate":
            assert not m.reachable
            (note,) = [n for n in m.notes if "cannot reach" in n]
            assert f"would adjust to {best:.2g} > 0.05" in note
            assert "in either direction" in note  # the improvement side cannot either


def test_note_never_contradicts_a_significant_verdict():
    rng = np.random.default_rng(5)
    for trial in range(30):
        base, cand = [], []
        for s in range(4):
            n = int(rng.integers(3, 7))
            p_b, p_c = rng.uniform(0.3, 1.0), rng.uniform(0.0, 1.0)
            base += batch(f"s{s}", int(rng.binomial(n, p_b)), n, steps=int(rng.integers(2, 6)))
            cand += batch(f"s{s}", int(rng.binomial(n, p_c)), n, steps=int(rng.integers(2, 6)))
        for method in ("holm", "omnibus"):
            config = CompareConfig(seed=trial, multiplicity=method)
            _no_contradiction(compare_runsets(table(base), table(cand), config=config))


def _no_contradiction(cmp: Comparison) -> None:
    level_gating = cmp.family.alpha_scenarios if cmp.family else 0.05
    for s in cmp.scenarios:
        for m in s.metrics:
            level = level_gating if m.kind == "gating" else 0.10
            if m.p_adjusted <= level or (m.p_benefit_adjusted or 1.0) <= level:
                assert not any(n.startswith("cannot reach") for n in m.notes), m
                assert not any("cannot reach significance at this N" in n for n in m.notes), m
            if m.p_adjusted <= level:
                assert m.reachable


# ---- wording and intervals shown beside verdicts -------------------------------------------


def test_zero_baseline_improvement_does_not_say_no_change_is_detectable():
    cfg = CompareConfig(metrics=("pass_rate",), gating=frozenset({"pass_rate"}))
    cmp = compare_runsets(table(batch("a", 0, 8)), table(batch("a", 8, 8)), config=cfg)
    s = cmp.scenario("a")
    assert s.metric("pass_rate").verdict is Verdict.IMPROVED
    assert s.mde_pass_rate is None
    assert "no pass-rate change" not in s.mde_note
    assert "baseline passed no run" in s.mde_note


def test_pass_k_estimate_lies_in_its_interval():
    cmp = compare_runsets(table(batch("a", 2, 3)), table(batch("a", 3, 3)))
    (k3,) = [p for p in cmp.scenario("a").pass_k_baseline if p.k == 3]
    assert k3.estimate == 0.0  # C(2,3)/C(3,3), the unbiased estimate
    assert k3.low <= k3.estimate <= k3.high
    assert k3.high == pytest.approx(st_wilson_high(2, 3) ** 3)
    for p in (*cmp.pass_k_baseline, *cmp.pass_k_candidate):
        assert p.low <= p.estimate <= p.high


def st_wilson_high(k, n):
    from statsmodels.stats.proportion import proportion_confint

    return proportion_confint(k, n, alpha=0.05, method="wilson")[1]
