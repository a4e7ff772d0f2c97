"""Multiplicity and verdicts: a family of evaluations in, one :class:`MetricResult` per test out.

The gating metrics of a whole report form one family (Holm at ``alpha``), the diagnostic ones
another (Benjamini-Hochberg at ``q``); improvements are a family of their own, so the exit code's
false-alarm rate is that of the regression family alone.

Each test's verdict comes from :func:`trajguard.comparison._verdicts.verdict_of` (the one
ladder, docs/explanation/statistics.md §2); this module only decides what is significant where:
the adjusted
p-value at the family's level (Holm, BH), or under the combined test of a scenario
(:func:`judge_gating`). ``reachable`` is false, with a note, when even the smallest p-value this
N can produce would not be significant in this report: with the other p-values of its family as
observed, Holm (or BH) would still adjust it above the level.

In two-sided mode (A/B) one two-sided p-value per metric enters one family and its sign decides
regressed or improved.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from trajguard import stats as st
from trajguard.comparison._config import CompareConfig
from trajguard.comparison._evaluation import Evaluation
from trajguard.comparison._registry import DIRECTIONAL
from trajguard.comparison._results import MetricResult, ScenarioGate
from trajguard.comparison._verdicts import Evidence, verdict_of

__all__ = ["EVIDENCE", "Tested", "adjust_family", "judge_gating", "tested"]


@dataclass(frozen=True, kw_only=True)
class Tested:
    """An evaluation with the p-values that enter the adjusted families."""

    scenario: str
    metric: str
    evaluation: Evaluation
    p: float
    p_benefit: float | None
    min_p: float
    min_p_benefit: float | None = None


def tested(scenario: str, metric: str, ev: Evaluation, *, two_sided: bool) -> Tested:
    """The family entries of one evaluation."""
    if metric in DIRECTIONAL and two_sided:
        return Tested(
            scenario=scenario,
            metric=metric,
            evaluation=ev,
            p=min(1.0, 2 * min(ev.harm, ev.benefit)),
            p_benefit=None,
            min_p=min(1.0, 2 * min(ev.min_harm, ev.min_benefit)),
        )
    if metric in DIRECTIONAL:
        return Tested(
            scenario=scenario,
            metric=metric,
            evaluation=ev,
            p=ev.harm,
            p_benefit=ev.benefit,
            min_p=ev.min_harm,
            min_p_benefit=ev.min_benefit,
        )
    return Tested(
        scenario=scenario,
        metric=metric,
        evaluation=ev,
        p=ev.harm,
        p_benefit=None,
        min_p=ev.min_harm,
    )


def _family(ps: npt.ArrayLike, gating: bool) -> npt.NDArray[np.float64]:
    return st.holm(ps) if gating else st.bh(ps)


@dataclass(frozen=True, kw_only=True)
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
            out.append(_Reach(reachable=True, best=least * ps.size))  # first step cleared
            continue
        trial = ps.copy()
        trial[i] = min(least, ps[i])
        best = float(_family(trial, gating)[i])
        out.append(_Reach(reachable=best <= level, best=best))
    return out


@dataclass(frozen=True, kw_only=True)
class _Adjusted:
    """A family's adjusted p-values and reachability, harmful (or any-change) and beneficial."""

    p: npt.NDArray[np.float64]
    benefit: list[float | None]
    reach: list[_Reach | None]
    reach_benefit: list[_Reach | None]


def _adjust(items: list[Tested], gating: bool, level: float) -> _Adjusted:
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
    return _Adjusted(p=adjusted, benefit=benefit, reach=reach, reach_benefit=reach_benefit)


def _evidence(
    t: Tested,
    *,
    significant: bool,
    improved: bool,
    gating: bool,
    config: CompareConfig,
) -> Evidence:
    ev = t.evaluation
    return Evidence(
        testable=ev.testable,
        significant=significant,
        beyond_band=ev.outside,
        directional=t.metric in DIRECTIONAL,
        two_sided=config.two_sided,
        beneficial_side=ev.benefit < ev.harm,
        gating=gating,
        improved=improved,
        equivalent=ev.tost is not None and ev.tost <= config.alpha,
    )


def _reach_note(
    t: Tested, reach: _Reach, reach_benefit: _Reach | None, gating: bool, m: int, level: float
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


def _result(
    t: Tested,
    *,
    gating: bool,
    p_adjusted: float,
    p_benefit_adjusted: float | None,
    reachable: bool,
    evidence: Evidence,
    notes: list[str],
) -> MetricResult:
    """One test's result: its evaluation, where its family put it, and the ladder's verdict."""
    ev = t.evaluation
    return MetricResult(
        metric=t.metric,
        kind="gating" if gating else "diagnostic",
        baseline=ev.baseline,
        candidate=ev.candidate,
        effect=ev.effect,
        estimate=ev.estimate,
        ci=ev.ci,
        test=ev.test,
        p_value=t.p,
        p_adjusted=p_adjusted,
        p_benefit=t.p_benefit,
        p_benefit_adjusted=p_benefit_adjusted,
        p_tost=ev.tost,
        min_p=t.min_p,
        reachable=reachable,
        identical=ev.identical,
        verdict=verdict_of(evidence),
        evidence=evidence,
        notes=tuple(notes),
    )


def adjust_family(
    items: list[Tested], *, gating: bool, config: CompareConfig
) -> dict[tuple[str, str], MetricResult]:
    """Adjust one family and give every test its verdict, keyed by (scenario, metric)."""
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
        evidence = _evidence(
            t,
            significant=p_adj <= level,
            improved=p_ben is not None and p_ben <= level,
            gating=gating,
            config=config,
        )
        out[(t.scenario, t.metric)] = _result(
            t,
            gating=gating,
            p_adjusted=p_adj,
            p_benefit_adjusted=p_ben,
            reachable=reachable,
            evidence=evidence,
            notes=notes,
        )
    return out


# A gating metric is named as the reason for a regression when its scenario's combined test is
# significant, its estimate lies beyond its band on the harmful side, and its own p-value is at
# most this share of alpha's level: the combined test says the scenario changed; this keeps a
# metric whose estimate crossed its band by noise (a TVD is never below 0) from being blamed.
EVIDENCE = 1.0


def judge_gating(
    items: list[Tested],
    *,
    gates: Mapping[str, ScenarioGate],
    level: float,
    critical: float,
    config: CompareConfig,
) -> dict[tuple[str, str], MetricResult]:
    """Verdicts of the gating metrics under the per-scenario combined test
    (docs/explanation/statistics.md §2-3): ``p_adjusted`` of each is its scenario's adjusted
    p-value; improvements keep their own Holm family."""
    adj = _adjust(items, True, config.alpha)
    out = {}
    for i, t in enumerate(items):
        ev = t.evaluation
        gate = gates.get(t.scenario)
        p_adj = gate.p_adjusted if gate is not None else 1.0
        p_ben = adj.benefit[i]
        # The scenario's combined test says the scenario changed; the metric's own p-value
        # (EVIDENCE) says this metric is one of the reasons.
        changed = gate is not None and gate.p_adjusted <= level and t.metric in gate.metrics
        evidence = _evidence(
            t,
            significant=changed and t.p <= EVIDENCE * config.alpha,
            improved=p_ben is not None and p_ben <= config.alpha,
            gating=True,
            config=config,
        )
        reachable = gate is not None and (gate.reachable or p_adj <= level)
        notes = list(ev.notes)
        if gate is not None and not reachable and not ev.identical and ev.testable:
            notes.append(
                "the scenario cannot reach significance at this N: the smallest p-value its "
                f"combined test can give ({gate.floor:.2g}) is above the family's first step "
                f"({critical:.2g})"
            )
        out[(t.scenario, t.metric)] = _result(
            t,
            gating=True,
            p_adjusted=p_adj,
            p_benefit_adjusted=p_ben,
            reachable=reachable,
            evidence=evidence,
            notes=notes,
        )
    return out
