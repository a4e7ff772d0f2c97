"""Baseline against candidate, as distributions: per-metric, per-scenario and overall verdicts.

Pure: run tables in (pandas, one row per run, columns of docs/design.md; see
:mod:`trajguard.live.runs` for crashes and exclusions), a :class:`Comparison` out. The unit is the
run. Each scenario and metric is evaluated by :mod:`trajguard.live.metrics`; then the gating
metrics of the whole report are adjusted together (Holm) and the diagnostic ones together
(Benjamini-Hochberg, at ``q``), and each metric gets a verdict (docs/statistics.md section 2):

* regressed: harmful p (adjusted) at or below the level and the estimate outside the tolerance;
  inside it, changed within tolerance.
* improved: beneficial p (adjusted) at or below the level.
* unchanged: only ever from an equivalence test (TOST p at most alpha). Batches that are
  constant at the same value are flagged ``identical`` and still need the equivalence bound of
  :func:`trajguard.live.stats.constant_shift_tost` (or its median analogue) to be unchanged.
* changed: a significant difference in a metric without a direction (tool multiset, order).
* inconclusive: anything else; ``reachable`` is false, with a note, when even the smallest
  p-value this N can produce would not be significant in this report: with the other p-values of
  its family as observed, Holm (or BH) would still adjust it above the level.

Harmful means a lower pass rate, or a higher crash rate, step count, token count or latency.
Improvements and regressions are separate families (each controlled at the level), so the exit
code's false-alarm rate is that of the regression family alone. In two-sided mode (A/B) one
two-sided p-value per metric enters one family and its sign decides regressed or improved.
Scenarios found in only one batch are listed (``only_in_baseline``, ``only_in_candidate``), not
compared.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt
import pandas as pd

from trajguard.live import metrics as mt
from trajguard.live import power, resample
from trajguard.live import stats as st
from trajguard.live import tool_metrics as tm
from trajguard.live.results import (
    DIRECTIONAL,
    METRICS,
    CompareConfig,
    Comparison,
    MetricResult,
    PassK,
    ScenarioResult,
    Verdict,
    overall_verdict,
)
from trajguard.live.runs import Arm, split_runs

__all__ = [
    "DIRECTIONAL",
    "METRICS",
    "CompareConfig",
    "Comparison",
    "MetricResult",
    "PassK",
    "ScenarioResult",
    "Verdict",
    "compare_arms",
    "compare_runsets",
    "evaluate_metric",
    "overall_verdict",
]

_RATIO_COLUMN = {
    "prompt_tokens": "prompt_tokens",
    "completion_tokens": "completion_tokens",
    "latency": "duration_s",
}
_MISSING_COLUMN = {"pass_rate": "passed", "step_count": "step_count", **_RATIO_COLUMN}


def _evaluate(
    metric: str, b: Arm, c: Arm, config: CompareConfig, scenario: str, shared: resample.Arrangements
) -> mt.Evaluation:
    config = config.for_scenario(scenario)
    rng = np.random.default_rng([config.seed, zlib.crc32(scenario.encode()), METRICS.index(metric)])
    alpha, resampling = config.alpha, config.resampling
    if metric == "pass_rate":
        return mt.evaluate_rate(
            int(b.passed.sum()),
            b.passed.size,
            int(c.passed.sum()),
            c.passed.size,
            margin=config.pass_rate_margin,
            alpha=alpha,
            higher_is_better=True,
            label="pass rate",
        )
    if metric == "crash_rate":
        return mt.evaluate_rate(
            int(b.crashed.sum()),
            b.runs,
            int(c.crashed.sum()),
            c.runs,
            margin=config.crash_rate_margin,
            alpha=alpha,
            higher_is_better=False,
            label="crash rate",
        )
    if metric == "step_count":
        return mt.evaluate_shift(
            b.numbers["step_count"],
            c.numbers["step_count"],
            margin=config.steps_margin,
            alpha=alpha,
            rng=rng,
            resampling=resampling,
            label="steps",
        )
    if metric == "tool_multiset":
        return tm.evaluate_tools(
            b.tool_counts,
            c.tool_counts,
            margin=config.tool_margin,
            alpha=alpha,
            rng=shared,
            resampling=resampling,
        )
    if metric == "tool_sequence":
        return tm.evaluate_sequences(
            b.tool_sequences, c.tool_sequences, rng=shared, resampling=resampling
        )
    column = _RATIO_COLUMN[metric]
    return mt.evaluate_ratio(
        b.numbers[column],
        c.numbers[column],
        ratio_margin=config.ratio_margin,
        alpha=alpha,
        rng=rng,
        resampling=resampling,
        label=metric.replace("_", " "),
        floor=config.latency_floor if metric == "latency" else config.token_floor,
    )


def evaluate_metric(
    metric: str, b: Arm, c: Arm, *, config: CompareConfig, scenario: str
) -> mt.Evaluation:
    """One metric of one scenario before any adjustment (the sequential gate's looks)."""
    shared = resample.Arrangements(
        b.runs,
        c.runs,
        np.random.default_rng([config.seed, zlib.crc32(scenario.encode()), len(METRICS)]),
    )
    return _evaluate(metric, b, c, config, scenario, shared)


@dataclass(frozen=True)
class _Tested:
    """An evaluation with the p-values that enter the adjusted families."""

    scenario: str
    metric: str
    evaluation: mt.Evaluation
    p: float
    p_benefit: float | None
    min_p: float
    min_p_benefit: float | None = None


def _tested(scenario: str, metric: str, ev: mt.Evaluation, two_sided: bool) -> _Tested:
    if metric in DIRECTIONAL and two_sided:
        return _Tested(
            scenario,
            metric,
            ev,
            min(1.0, 2 * min(ev.harm, ev.benefit)),
            None,
            min(1.0, 2 * min(ev.min_harm, ev.min_benefit)),
        )
    if metric in DIRECTIONAL:
        return _Tested(scenario, metric, ev, ev.harm, ev.benefit, ev.min_harm, ev.min_benefit)
    return _Tested(scenario, metric, ev, ev.harm, None, ev.min_harm)


def _family(ps: npt.ArrayLike, gating: bool) -> npt.NDArray[np.float64]:
    return st.holm(ps) if gating else st.bh(ps)


@dataclass(frozen=True)
class _Reach:
    """Whether a test can be significant in its family at this N, and how close it gets."""

    reachable: bool
    best: float  # adjusted p-value with the test's smallest attainable p in place of its own


def _reach(
    ps: npt.NDArray[np.float64], mins: list[float], gating: bool, level: float
) -> list[_Reach]:
    """Per test: substitute its minimum attainable p, keep the family's other p-values as
    observed, adjust. Holm and BH adjusted p-values do not decrease when one p-value grows, so
    a test whose observed adjusted p is at most the level is always reachable, and one whose
    best adjusted p exceeds the level cannot be significant in this report at any outcome."""
    out = []
    for i, least in enumerate(mins):
        if least <= level / max(ps.size, 1):
            out.append(_Reach(True, least * ps.size))  # first step cleared (Holm and BH)
            continue
        trial = ps.copy()
        trial[i] = min(least, ps[i])
        best = float(_family(trial, gating)[i])
        out.append(_Reach(best <= level, best))
    return out


@dataclass(frozen=True)
class _Adjusted:
    """A family's adjusted p-values and reachability, harmful (or any-change) and beneficial."""

    p: npt.NDArray[np.float64]
    benefit: list[float | None]
    reach: list[_Reach | None]
    reach_benefit: list[_Reach | None]


def _adjust(items: list[_Tested], gating: bool, level: float) -> _Adjusted:
    """Adjusted p-values of the family and of its improvement family (untestable: 1.0)."""
    idx = [i for i, t in enumerate(items) if t.evaluation.testable]
    adjusted = np.ones(len(items))
    raw = np.array([items[i].p for i in idx], dtype=float)
    adjusted[idx] = _family(raw, gating)
    reach: list[_Reach | None] = [None] * len(items)
    for i, r in zip(idx, _reach(raw, [items[i].min_p for i in idx], gating, level), strict=True):
        reach[i] = r
    ben_idx = [i for i in idx if items[i].p_benefit is not None]
    benefit: list[float | None] = [None if t.p_benefit is None else 1.0 for t in items]
    reach_benefit: list[_Reach | None] = [None] * len(items)
    raw_b = np.array([items[i].p_benefit or 1.0 for i in ben_idx], dtype=float)
    mins_b = [items[i].min_p_benefit or 1.0 for i in ben_idx]
    for i, p, r in zip(
        ben_idx, _family(raw_b, gating), _reach(raw_b, mins_b, gating, level), strict=True
    ):
        benefit[i], reach_benefit[i] = float(p), r
    return _Adjusted(adjusted, benefit, reach, reach_benefit)


def _verdict(
    t: _Tested, p_adj: float, p_ben_adj: float | None, level: float, config: CompareConfig
) -> Verdict:
    ev = t.evaluation
    if not ev.testable:
        return Verdict.INCONCLUSIVE
    if p_adj <= level:
        if t.metric not in DIRECTIONAL:
            return Verdict.CHANGED if ev.outside else Verdict.CHANGED_WITHIN_TOLERANCE
        if config.two_sided and ev.benefit < ev.harm:
            return Verdict.IMPROVED
        return Verdict.REGRESSED if ev.outside else Verdict.CHANGED_WITHIN_TOLERANCE
    if p_ben_adj is not None and p_ben_adj <= level:
        return Verdict.IMPROVED
    if ev.tost is not None and ev.tost <= config.alpha:
        return Verdict.UNCHANGED
    return Verdict.INCONCLUSIVE


def _reach_note(
    t: _Tested, reach: _Reach, reach_benefit: _Reach | None, gating: bool, m: int, level: float
) -> str:
    ev = t.evaluation
    n = (
        f"{ev.baseline.n} per side"
        if ev.baseline.n == ev.candidate.n
        else f"{ev.baseline.n} baseline / {ev.candidate.n} candidate runs"
    )
    what, where = "cannot reach significance", ""
    if reach_benefit is not None and reach_benefit.reachable:
        what = "a regression cannot reach significance"
    elif reach_benefit is not None:
        where = " in either direction"
    return (
        f"{what} at N={n}{where}: even its smallest attainable p ({t.min_p:.2g}) would adjust to "
        f"{min(reach.best, 1.0):.2g} > {level:g} ({'Holm' if gating else 'BH'} over {m} tests, "
        "the others as observed)"
    )


def _results(
    items: list[_Tested], gating: bool, config: CompareConfig
) -> dict[tuple[str, str], MetricResult]:
    level = config.alpha if gating else config.q
    adj = _adjust(items, gating, level)
    m = sum(t.evaluation.testable for t in items)
    out = {}
    for i, t in enumerate(items):
        ev = t.evaluation
        p_adj, p_ben = float(adj.p[i]), adj.benefit[i]
        notes = list(ev.notes)
        reach = adj.reach[i]
        reachable = reach is not None and (reach.reachable or p_adj <= level)
        if reach is not None and not reachable and not ev.identical:
            notes.append(_reach_note(t, reach, adj.reach_benefit[i], gating, m, level))
        out[(t.scenario, t.metric)] = MetricResult(
            t.metric,
            "gating" if gating else "diagnostic",
            ev.baseline,
            ev.candidate,
            ev.effect,
            ev.estimate,
            ev.ci,
            ev.test,
            t.p,
            p_adj,
            t.p_benefit,
            p_ben,
            ev.tost,
            t.min_p,
            reachable,
            ev.identical,
            _verdict(t, p_adj, p_ben, level, config),
            tuple(notes),
        )
    return out


def _pass_k(passed: npt.NDArray[np.bool_], max_k: int, confidence: float) -> tuple[PassK, ...]:
    """The unbiased pass^k with the Wilson-based interval, widened down to the estimate.

    ``C(c, k) / C(n, k)`` is at most ``(c/n)**k``, hence below the interval's upper end, but it
    can fall under its lower end (2 passes of 3, k = 3: 0 against 0.009); the interval is then
    extended to include it (coverage only grows), so estimate and interval never disagree.
    """
    c, n = int(passed.sum()), int(passed.size)
    out = []
    for k in range(1, min(n, max_k) + 1):
        estimate = st.pass_hat_k(c, n, k)
        low, high = st.pass_k_interval(c, n, k, confidence)
        out.append(PassK(k, estimate, min(low, estimate), max(high, estimate)))
    return tuple(out)


def _suite_pass_k(per_scenario: list[tuple[PassK, ...]]) -> tuple[PassK, ...]:
    """Mean over scenarios; the interval averages the scenarios' endpoints (conservative)."""
    usable = [s for s in per_scenario if s]
    depth = min((len(s) for s in usable), default=0)
    return tuple(
        PassK(
            k + 1,
            *(
                float(np.mean([getattr(s[k], f) for s in usable]))
                for f in ("estimate", "low", "high")
            ),
        )
        for k in range(depth)
    )


def _missing_notes(metric: str, b: Arm, c: Arm) -> tuple[str, ...]:
    column = _MISSING_COLUMN.get(metric)
    if column is None:
        return ()
    return tuple(
        f"{arm.missing[column]} {side} run(s) without {column} left out"
        for side, arm in (("baseline", b), ("candidate", c))
        if arm.missing.get(column)
    )


def compare_arms(
    arms_b: dict[str, Arm], arms_c: dict[str, Arm], *, config: CompareConfig
) -> Comparison:
    """:func:`compare_runsets` on run tables already split by :func:`split_runs`."""
    common = sorted(arms_b.keys() & arms_c.keys())
    gating: list[_Tested] = []
    diagnostic: list[_Tested] = []
    for scenario in common:
        b, c = arms_b[scenario], arms_c[scenario]
        # Tool counts and tool order are permuted over the same runs: one set of arrangements.
        shared = resample.Arrangements(
            b.runs,
            c.runs,
            np.random.default_rng([config.seed, zlib.crc32(scenario.encode()), len(METRICS)]),
        )
        for metric in config.metrics:
            ev = _evaluate(metric, b, c, config, scenario, shared)
            missing = _missing_notes(metric, b, c)
            if missing:
                ev = replace(ev, notes=ev.notes + missing)
            family = gating if metric in config.gating else diagnostic
            family.append(_tested(scenario, metric, ev, config.two_sided))
    results = _results(gating, True, config) | _results(diagnostic, False, config)
    m_gating = sum(t.evaluation.testable for t in gating)
    mde_alpha = config.alpha / max(m_gating, 1)
    scenarios = []
    for scenario in common:
        b, c = arms_b[scenario], arms_c[scenario]
        metric_results = tuple(results[(scenario, m)] for m in config.metrics)
        mde, rate = None, None
        if b.passed.size and c.passed.size and "pass_rate" in config.metrics:
            rate = float(b.passed.mean())
            mde = power.mde_pass_rate(
                rate,
                b.passed.size,
                n_c=c.passed.size,
                alpha=mde_alpha,
                power=config.power,
                two_sided=config.two_sided,
            )
        scenarios.append(
            ScenarioResult(
                scenario,
                overall_verdict([r.verdict for r in metric_results if r.kind == "gating"]),
                metric_results,
                b.runs,
                c.runs,
                b.harness_excluded,
                c.harness_excluded,
                _pass_k(b.passed, config.max_k, 1 - config.alpha),
                _pass_k(c.passed, config.max_k, 1 - config.alpha),
                mde,
                mde_alpha,
                rate,
            )
        )
    return Comparison(
        verdict=overall_verdict([s.verdict for s in scenarios]),
        regressed=any(
            r.verdict is Verdict.REGRESSED for r in results.values() if r.kind == "gating"
        ),
        scenarios=tuple(scenarios),
        pass_k_baseline=_suite_pass_k([s.pass_k_baseline for s in scenarios]),
        pass_k_candidate=_suite_pass_k([s.pass_k_candidate for s in scenarios]),
        gating_tests=m_gating,
        diagnostic_tests=sum(t.evaluation.testable for t in diagnostic),
        harness_excluded_baseline=sum(a.harness_excluded for a in arms_b.values()),
        harness_excluded_candidate=sum(a.harness_excluded for a in arms_c.values()),
        only_in_baseline=tuple(sorted(arms_b.keys() - arms_c.keys())),
        only_in_candidate=tuple(sorted(arms_c.keys() - arms_b.keys())),
        config=config,
    )


def compare_runsets(
    baseline: pd.DataFrame, candidate: pd.DataFrame, *, config: CompareConfig | None = None
) -> Comparison:
    """Compare a candidate run set with a baseline run set, scenario by scenario.

    Args:
        baseline: baseline runs, one row per run (docs/design.md columns).
        candidate: candidate runs, same columns.
        config: settings; defaults to :class:`CompareConfig`.

    Returns:
        The comparison; ``regressed`` is the exit-code flag (any gating metric regressed).

    Raises:
        StoreError: a table lacks a required column or has an unknown status.
    """
    config = config or CompareConfig()
    return compare_arms(
        split_runs(baseline, crash_statuses=config.crash_statuses, side="baseline"),
        split_runs(candidate, crash_statuses=config.crash_statuses, side="candidate"),
        config=config,
    )
