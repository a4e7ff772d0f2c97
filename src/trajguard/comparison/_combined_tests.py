"""The gating family of a report: one combined test per scenario and the suite-level tests.

A broken prompt moves a scenario's pass rate, tools and steps together; testing each metric and
adjusting them as if independent (Holm) pays for every one. Instead
(docs/explanation/statistics.md §3):

1. **Per scenario**, every gating metric is computed on the same arrangements of the scenario's
   runs (:mod:`._joint`); the metrics' p-values are combined per arrangement (Fisher's
   combination) and the combination's own permutation p-value is the scenario's test: exact in
   size however correlated the metrics are, and it adds their evidence up.
2. **Across scenarios**, the scenario tests are independent (each scenario's runs are arranged on
   their own), so the step-down min-p adjustment has a closed form in each test's null law
   (:func:`trajguard.stats.stepdown_independent`); a scenario whose test cannot produce a small
   p-value (constant runs, few arrangements) costs the others nothing.
3. **Suite level**, with a share of alpha of its own: each gating metric across all scenarios
   (Cochran-Mantel-Haenszel for rates, Fisher's combination of the scenarios' permutation
   p-values for the rest), all on the same arrangements, adjusted together by Westfall-Young.

The family-wise error over the whole gating family is at most ``alpha``: the scenario tests at
``alpha * (1 - suite_share)`` and the suite tests at ``alpha * suite_share`` (union bound).
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from trajguard import stats as st
from trajguard.comparison._arms import Arm
from trajguard.comparison._config import CompareConfig
from trajguard.comparison._evaluation import Evaluation
from trajguard.comparison._joint import Component, JointContext
from trajguard.comparison._registry import SHARED_STREAM, metric
from trajguard.comparison._results import ScenarioGate, SuiteTest
from trajguard.comparison._verdicts import Evidence, verdict_of

__all__ = [
    "GateOutcome",
    "ScenarioMap",
    "gate_scenarios",
    "shared_arrangements",
    "suite_share_used",
]

FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]
# ``map`` or an executor's: how the scenarios' combined tests are run (in order either way).
ScenarioMap = Callable[[Callable[[str], Any], Iterable[str]], Iterator[Any]]

# Hits below which a Monte Carlo p-value is refined with more arrangements.
_REFINE_HITS = 10
_MAX_REFINED = 200_000


@dataclass(frozen=True, kw_only=True)
class GateOutcome:
    """The per-scenario gates, the suite-level tests and the levels they used."""

    gates: Mapping[str, ScenarioGate]
    suite: tuple[SuiteTest, ...]
    alpha_scenarios: float
    alpha_suite: float
    critical: float


@dataclass(frozen=True, kw_only=True)
class _Scenario:
    p: float
    law: st.NullLaw
    metrics: tuple[str, ...]
    test: str
    rows: dict[str, FloatArray]  # per metric, p-values at the shared random arrangements


def suite_share_used(config: CompareConfig, scenarios: int) -> float:
    """The share of alpha the suite-level tests get: none with fewer than two scenarios."""
    return config.suite_share if scenarios >= 2 else 0.0


def _context(name: str, config: CompareConfig) -> JointContext:
    m = metric(name)
    floor = config.floor(m.column)
    return JointContext(column=m.column, floor=floor, two_sided=config.two_sided)


def _components(
    names: Sequence[str], b: Arm, c: Arm, masks: BoolArray, config: CompareConfig
) -> dict[str, Component]:
    return {n: metric(n).joint(b, c, _context(n, config), masks) for n in names}


def _combine(columns: Mapping[str, Component]) -> tuple[FloatArray, tuple[str, ...]]:
    """The scenario's p-value at every arrangement, and the metrics that entered it."""
    varying = {n: comp.p for n, comp in columns.items() if np.ptp(comp.p) > 0}
    if not varying:
        return np.ones(len(next(iter(columns.values())).p)), ()
    if len(varying) == 1:
        ((name, p),) = varying.items()
        return st.rank_pvalues(-p), (name,)
    stacked = np.column_stack(list(varying.values()))
    return st.rank_pvalues(st.fisher_combination(stacked)), tuple(varying)


def _exact_rate(
    columns: Mapping[str, Component], used: tuple[str, ...], observed: int
) -> tuple[float, st.NullLaw] | None:
    """A lone rate with its exact permutation law: its p-value and law without Monte Carlo
    error (what a long escalation's small thresholds need)."""
    if len(used) != 1 or columns[used[0]].law is None:
        return None
    comp = columns[used[0]]
    assert comp.law is not None
    values, weights = comp.law
    observed_p = comp.p[observed]
    p = float(weights[values <= observed_p * (1 + 1e-12)].sum())
    atoms = sorted({float(weights[values <= v * (1 + 1e-12)].sum()) for v in values})
    return min(p, 1.0), st.NullLaw(atoms=tuple(atoms), floor=atoms[0])


def _random_rows(shared: st.Arrangements, count: int) -> BoolArray:
    observed = st.observed_arrangement(shared.n_b, shared.n_c)
    return np.concatenate([observed, shared.rows(0, count)])


def _scenario(
    scenario: str,
    b: Arm,
    c: Arm,
    names: Sequence[str],
    shared: st.Arrangements,
    config: CompareConfig,
    resamples: int,
) -> _Scenario:
    settings = config.resampling
    random_rows = _random_rows(shared, settings.n_resamples)
    random = _components(names, b, c, random_rows, config)
    exact = math.comb(b.runs + c.runs, c.runs) <= settings.exact_limit
    if exact:
        masks = st.all_arrangements(b.runs, c.runs)
        columns = _components(names, b, c, masks, config)
        observed = len(masks) - 1
    else:
        masks, columns, observed = random_rows, random, 0
    p_rows, used = _combine(columns)
    lone = _exact_rate(columns, used, observed)
    refine = lone is None and not exact and p_rows[observed] * len(p_rows) < _REFINE_HITS and used
    if refine and resamples > settings.n_resamples:
        # More arrangements from a stream of their own, dropped afterwards (a shared cache of
        # 10^5 arrangements per scenario would hold gigabytes on a large suite).
        key = [config.seed, zlib.crc32(scenario.encode()), SHARED_STREAM + 1]
        extra = st.Arrangements(b.runs, c.runs, np.random.default_rng(key))
        more = _random_rows(extra, resamples)
        p_rows, used = _combine(_components(names, b, c, more, config))
    labels = ", ".join(metric(n).label for n in used)
    kind = "exact" if exact or lone else f"{len(p_rows) - 1} resamples"
    test = (
        f"Fisher combination of {labels}, permutation ({kind})"
        if len(used) > 1
        else f"{labels}, permutation ({kind})"
        if used
        else "none (every arrangement gives the same result)"
    )
    p, law = lone or (float(p_rows[observed]), st.NullLaw.from_rows(p_rows, exact=exact))
    return _Scenario(
        p=p,
        law=law,
        metrics=used,
        test=test,
        rows={n: comp.p for n, comp in random.items()},
    )


def _rate_counts(
    arms: Sequence[tuple[Arm, Arm]],
    rows: Sequence[BoolArray],
    events: str,
) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
    """Per arrangement and scenario: candidate events and runs; events and runs in all."""
    x_c: list[FloatArray] = []
    n_c: list[FloatArray] = []
    t: list[FloatArray] = []
    n: list[FloatArray] = []
    for (b, c), masks in zip(arms, rows, strict=True):
        if events == "pass_rate":
            hit, counted = np.r_[b.passed_runs, c.passed_runs], np.r_[b.judged_runs, c.judged_runs]
        else:
            hit, counted = np.r_[b.crashed, c.crashed], np.ones(b.runs + c.runs, dtype=bool)
        weights = masks[:, counted].astype(float)
        x_c.append(weights @ hit[counted].astype(float))
        n_c.append(weights.sum(axis=1))
        t.append(np.full(len(masks), float(hit[counted].sum())))
        n.append(np.full(len(masks), float(counted.sum())))
    return np.column_stack(x_c), np.column_stack(n_c), np.column_stack(t), np.column_stack(n)


def _suite_estimate(name: str, evaluations: Sequence[Evaluation]) -> tuple[float | None, int]:
    values = [e.estimate for e in evaluations if e.testable and e.estimate is not None]
    if not values:
        return None, 0
    if metric(name).kind == "ratio":
        return float(np.exp(np.mean(np.log(values)))), len(values)
    return float(np.mean(values)), len(values)


def _outside(name: str, estimate: float | None, config: CompareConfig) -> bool:
    m = metric(name)
    if estimate is None or m.tolerance is None:
        return False
    band = config.tolerance(m.tolerance)
    if m.kind == "rate":
        harmful = -estimate if m.higher_is_better else estimate
        return abs(estimate) > band if config.two_sided else harmful > band
    if m.kind == "shift":
        return abs(estimate - 0.5) > band if config.two_sided else estimate > 0.5 + band
    if m.kind == "ratio":
        return max(estimate, 1 / estimate) > band if config.two_sided else estimate > band
    return estimate > band


def _suite_tests(
    names: Sequence[str],
    arms: Sequence[tuple[Arm, Arm]],
    scenarios: Sequence[_Scenario],
    shared: Sequence[st.Arrangements],
    evaluations: Mapping[str, Sequence[Evaluation]],
    config: CompareConfig,
    level: float,
) -> tuple[SuiteTest, ...]:
    rows = [_random_rows(s, config.resampling.n_resamples) for s in shared]
    columns, tests = [], []
    for name in names:
        if metric(name).suite == "cmh":
            x_c, n_c, t, n = _rate_counts(arms, rows, name)
            z = st.cmh_scores(x_c, n_c, t, n)
            score = -z if metric(name).higher_is_better is False else z
            p = st.two_sided_rank_pvalues(score) if config.two_sided else st.rank_pvalues(score)
            tests.append("Cochran-Mantel-Haenszel, stratified permutation")
        else:
            parts = np.column_stack([s.rows[name] for s in scenarios])
            p = st.rank_pvalues(st.fisher_combination(parts))
            tests.append("Fisher combination over scenarios, stratified permutation")
        columns.append(p)
    adjusted = st.westfall_young(np.column_stack(columns))
    out = []
    resamples = config.resampling.n_resamples
    for name, test, p, p_adj in zip(names, tests, columns, adjusted, strict=True):
        estimate, count = _suite_estimate(name, evaluations[name])
        outside = _outside(name, estimate, config)
        m = metric(name)
        # No improvement family and no equivalence test at the suite level.
        verdict = verdict_of(
            Evidence(
                testable=count > 0,
                significant=p_adj <= level,
                beyond_band=outside,
                directional=m.directional,
                two_sided=config.two_sided,
                beneficial_side=m.no_worse(estimate),
            )
        )
        out.append(
            SuiteTest(
                metric=name,
                test=f"{test} ({resamples} resamples)",
                estimate=estimate,
                p_value=float(p[0]),
                p_adjusted=float(p_adj),
                outside=outside,
                verdict=verdict,
                scenarios=count,
            )
        )
    return tuple(out)


def gate_scenarios(
    arms_b: Mapping[str, Arm],
    arms_c: Mapping[str, Arm],
    *,
    evaluations: Mapping[tuple[str, str], Evaluation],
    shared: Mapping[str, st.Arrangements],
    config: CompareConfig,
    mapper: ScenarioMap = map,
) -> GateOutcome:
    """The combined test of every scenario, adjusted over scenarios, and the suite-level tests.

    Args:
        arms_b: baseline arms of the compared scenarios.
        arms_c: candidate arms (same keys).
        evaluations: every (scenario, metric) evaluation (for the suite-level effects).
        shared: each scenario's arrangements (the ones its tool metrics were tested on).
        config: the gating metrics, alpha and the suite share.
        mapper: runs the scenarios' combined tests (``map``, or a thread pool's).
    """
    names = [m for m in config.metrics if m in config.gating]
    common = sorted(arms_b.keys() & arms_c.keys())
    testable = [s for s in common if arms_b[s].runs and arms_c[s].runs]
    share = suite_share_used(config, len(testable))
    alpha_scenarios = config.alpha * (1 - share)
    resamples = min(
        _MAX_REFINED,
        max(
            config.resampling.max_resamples,
            math.ceil(_REFINE_HITS * 2 * max(len(testable), 1) / alpha_scenarios),
        ),
    )
    tests = mapper(
        lambda s: _scenario(s, arms_b[s], arms_c[s], names, shared[s], config, resamples),
        testable,
    )
    done = dict(zip(testable, tests, strict=True))
    laws = [done[s].law for s in testable]
    adjusted = st.stepdown_independent([done[s].p for s in testable], laws)
    critical = st.critical_value(alpha_scenarios, laws)
    gates = {
        s: ScenarioGate(
            metrics=done[s].metrics,
            test=done[s].test,
            p_value=done[s].p,
            p_adjusted=float(p),
            floor=done[s].law.floor,
            reachable=done[s].law.floor <= critical,
        )
        for s, p in zip(testable, adjusted, strict=True)
    }
    suite: tuple[SuiteTest, ...] = ()
    if share > 0 and names:
        suite = _suite_tests(
            names,
            [(arms_b[s], arms_c[s]) for s in testable],
            [done[s] for s in testable],
            [shared[s] for s in testable],
            {n: [evaluations[(s, n)] for s in testable] for n in names},
            config,
            config.alpha * share,
        )
    return GateOutcome(
        gates=gates,
        suite=suite,
        alpha_scenarios=alpha_scenarios,
        alpha_suite=config.alpha * share,
        critical=critical,
    )


def shared_arrangements(b: Arm, c: Arm, config: CompareConfig, scenario: str) -> st.Arrangements:
    """A scenario's arrangements: tool counts, tool order and the gate read the same ones."""
    key = [config.seed, zlib.crc32(scenario.encode()), SHARED_STREAM]
    return st.Arrangements(b.runs, c.runs, np.random.default_rng(key))
