"""A baseline history's agreement: whether the pooled batches agree with each other.

Pooling the last few nights (:mod:`trajguard.comparison._pooling`, the "same definition" rule)
gives each scenario 50-100 baseline runs against 10-20 candidate runs, the cheapest power there
is. This module keeps it honest (docs/explanation/statistics.md §6):

* **Agreement.** The pooled batches of a scenario are tested against each other on every gating
  metric (batch labels permuted over runs, or for rates the batches' event counts drawn from
  the hypergeometric law of that permutation; Benjamini-Hochberg over scenarios and metrics at
  ``q``); a scenario whose batches disagree is named as a drifting baseline. The comparison
  itself assumes the pooled runs are exchangeable with each other: a drifting baseline is a
  reason to promote a fresh one, not something the test corrects.

Its record, :class:`Drift`, is read by the report without pandas.
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from trajguard import stats as st

if TYPE_CHECKING:  # the record (Drift) is read without the computing modules
    from trajguard.comparison._arms import Arm
    from trajguard.comparison._config import CompareConfig

__all__ = ["Drift", "baseline_drift"]


@dataclass(frozen=True, kw_only=True)
class Drift:
    """Whether one scenario's pooled baseline batches agree on one gating metric."""

    scenario: str
    """the scenario."""
    metric: str
    """the metric."""
    batches: tuple[str, ...]
    """the batch labels, in the order of ``values``."""
    values: tuple[float, ...]
    """each batch's value (rate, median, geometric mean, or TVD from the pooled mix)."""
    test: str
    """how the batches were compared."""
    p_value: float
    """the test's p-value."""
    p_adjusted: float
    """Benjamini-Hochberg over every drift test of the report."""
    drifting: bool
    """``p_adjusted`` at most ``q``."""


def _mixes(
    counts: np.ndarray, groups: np.ndarray, batches: int, rng: np.random.Generator, resamples: int
) -> tuple[float, tuple[float, ...]]:
    """G test that the batches share one mix of the columns; each batch's TVD from the pool."""
    res = st.homogeneity_test(counts, groups, rng=rng, resamples=resamples)
    pooled = counts.sum(axis=0) / counts.sum()
    mixes = [counts[groups == i].sum(0) for i in range(batches)]
    values = tuple(
        float(0.5 * np.abs(mix / mix.sum() - pooled).sum()) if mix.sum() else 0.0 for mix in mixes
    )
    return res.p_value, values


def _one(
    name: str, arm: Arm, labels: list[str], rng: np.random.Generator, config: CompareConfig
) -> tuple[str, float, tuple[float, ...]] | None:
    """(test, p-value, per-batch values) of one metric over one scenario's batches."""
    from scipy import stats as sps  # when a history is pooled, not when records are read

    from trajguard.comparison._joint import tool_matrix
    from trajguard.comparison._paths import PathCells
    from trajguard.comparison._registry import metric

    index = {label: i for i, label in enumerate(labels)}
    groups = np.array([index[b] for b in arm.batches])
    resamples = config.resampling.n_resamples
    m = metric(name)
    if m.kind == "rate":
        events, counted = (
            (arm.passed_runs, arm.judged_runs) if name == "pass_rate" else (arm.crashed, None)
        )
        keep = np.ones(arm.runs, dtype=bool) if counted is None else counted
        hits = events[keep].astype(float)
        kept = groups[keep]
        res = st.rate_homogeneity_test(hits > 0, kept, rng=rng, resamples=resamples)
        values = tuple(
            float(hits[kept == i].mean()) if np.any(kept == i) else 0.0 for i in range(len(labels))
        )
        return "G test of the batches, permutation", res.p_value, values
    if m.kind == "tools":
        known = arm.tools_mask()
        if len(set(groups[known].tolist())) < 2:  # tool use unknown in all batches but one
            return None
        counts = tool_matrix(arm.known_tool_counts())
        p, values = _mixes(counts, groups[known], len(labels), rng, resamples)
        return "G test of the batches' tool mixes, permutation", p, values
    if m.kind == "paths":
        cells = PathCells.of((arm,)).cells
        judged = cells.sum(axis=1) > 0
        if len(set(groups[judged].tolist())) < 2:
            return None
        p, values = _mixes(cells[judged], groups[judged], len(labels), rng, resamples)
        return "G test of the batches' path-by-outcome tables, permutation", p, values
    if m.kind in ("shift", "ratio"):
        values_all = arm.column(m.column)
        samples = [values_all[(groups == i) & ~np.isnan(values_all)] for i in range(len(labels))]
        if sum(s.size > 0 for s in samples) < 2 or np.ptp(np.concatenate(samples)) == 0:
            return None
        p = float(sps.kruskal(*[x for x in samples if x.size]).pvalue)
        floor = config.latency_floor if m.column == "duration_s" else config.token_floor

        def center(sample: np.ndarray) -> float:
            if not sample.size:
                return 0.0
            if m.kind == "shift":
                return float(np.median(sample))
            return float(np.exp(np.log(np.maximum(sample, floor)).mean()))

        return "Kruskal-Wallis (asymptotic)", p, tuple(center(x) for x in samples)
    return None


def baseline_drift(arms_b: Mapping[str, Arm], config: CompareConfig) -> tuple[Drift, ...]:
    """Do the pooled baseline batches of each scenario agree, on each gating metric?

    Only scenarios whose baseline holds runs of two or more batches are tested.
    """
    from trajguard.comparison._registry import metric_stream

    found: list[tuple[str, str, list[str], tuple[float, ...], str, float]] = []
    names = [m for m in config.metrics if m in config.gating]
    for scenario in sorted(arms_b):
        arm = arms_b[scenario]
        labels = list(dict.fromkeys(arm.batches))  # pooled newest first
        if len(labels) < 2 or "" in labels:
            continue
        for name in names:
            key = [config.seed, zlib.crc32(scenario.encode()), 1000 + metric_stream(name)]
            one = _one(name, arm, labels, np.random.default_rng(key), config)
            if one is not None:
                test, p, values = one
                found.append((scenario, name, labels, values, test, p))
    adjusted = st.bh([f[5] for f in found])
    return tuple(
        Drift(
            scenario=scenario,
            metric=name,
            batches=tuple(labels),
            values=values,
            test=test,
            p_value=p,
            p_adjusted=float(p_adj),
            drifting=bool(p_adj <= config.q),
        )
        for (scenario, name, labels, values, test, p), p_adj in zip(found, adjusted, strict=True)
    )
