"""The statistics of a series of nights: Wilson intervals, the "since when" change-point scan and
the between-night overdispersion test, each calibrated by simulation under binomial noise.

Pure numpy and scipy: values in, values out (``docs/how-to/nights.md`` states the method).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from numpy.typing import NDArray
from scipy.stats import norm

__all__ = [
    "MIN_SEGMENT",
    "ChangeScan",
    "Dispersion",
    "change_scan",
    "newcombe",
    "overdispersion",
    "spread_ratio",
    "wilson",
]

FIRST_SIMULATIONS = 99
"""Simulations drawn first; the rest are drawn only if fewer than :data:`ENOUGH` of these
reach the observed statistic (Besag and Clifford's sequential Monte Carlo p-value: a p-value
that is plainly large is known after 99 series, and no decision at a level below 0.1 changes)."""

ENOUGH = 10

MIN_SEGMENT = 2
"""Nights on each side of a change: a change must last at least this many nights (sustained),
and stand on at least this many before it."""

Floats = NDArray[np.float64]


@lru_cache(maxsize=8)
def _z(level: float) -> float:
    return float(norm.ppf(0.5 + level / 2))


def wilson(k: float, n: float, *, level: float = 0.95) -> tuple[float, float]:
    """The Wilson score interval of ``k`` successes in ``n`` trials ((0, 1) when ``n`` is 0)."""
    if n <= 0:
        return 0.0, 1.0
    z = _z(level)
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def newcombe(
    k1: float, n1: float, k2: float, n2: float, *, level: float = 0.95
) -> tuple[float, float, float]:
    """``p1 - p2`` and its interval (Newcombe's hybrid score method, from Wilson's)."""
    p1, p2 = k1 / n1, k2 / n2
    l1, u1 = wilson(k1, n1, level=level)
    l2, u2 = wilson(k2, n2, level=level)
    d = p1 - p2
    return d, d - math.hypot(p1 - l1, u2 - p2), d + math.hypot(u1 - p1, p2 - l2)


def _loglik(k: Floats, n: Floats) -> Floats:
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.where(n > 0, k / np.maximum(n, 1), 0.0)
        a = np.where(k > 0, k * np.log(np.where(p > 0, p, 1.0)), 0.0)
        b = np.where(n - k > 0, (n - k) * np.log(np.where(p < 1, 1 - p, 1.0)), 0.0)
    return np.asarray(a + b, dtype=np.float64)


def _pearson(x: Floats, n: Floats, p: Floats) -> Floats:
    """Pearson's chi-square of the nights against fitted rates ``p`` (0 where p is 0 or 1)."""
    var = n * p * (1 - p)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(var > 0, (x - n * p) ** 2 / np.where(var > 0, var, 1.0), 0.0)
    return np.asarray(terms.sum(axis=-1), dtype=np.float64)


def _segment_pearson(sxx: Floats, sx: Floats, sn: Floats) -> Floats:
    """Pearson's chi-square of a segment around its own rate, from its sums of x^2/n, x, n."""
    p = sx / np.maximum(sn, 1)
    var = p * (1 - p)
    with np.errstate(divide="ignore", invalid="ignore"):
        chi = np.where(var > 0, (sxx - 2 * p * sx + p * p * sn) / np.where(var > 0, var, 1), 0.0)
    return np.asarray(chi, dtype=np.float64)


def _scan(x: Floats, n: Floats) -> tuple[Floats, NDArray[np.int64]]:
    """Per series (rows), the largest self-normalised likelihood ratio of one change of rate and
    where it starts: ``max_tau LR(tau) / max(1, X2_within(tau) / (T - 2))`` (cumulative sums:
    memory and time linear in the nights)."""
    t = x.shape[-1]
    n = np.broadcast_to(n, x.shape)
    cx, cn = np.cumsum(x, axis=-1), np.cumsum(n, axis=-1)
    cxx = np.cumsum(x * x / np.maximum(n, 1), axis=-1)
    total = _loglik(cx[..., -1], cn[..., -1])
    taus = np.arange(MIN_SEGMENT, t - MIN_SEGMENT + 1)
    left_x, left_n, left_xx = cx[..., taus - 1], cn[..., taus - 1], cxx[..., taus - 1]
    right_x, right_n = cx[..., -1:] - left_x, cn[..., -1:] - left_n
    right_xx = cxx[..., -1:] - left_xx
    lr = 2 * (_loglik(left_x, left_n) + _loglik(right_x, right_n) - total[..., None])
    within = _segment_pearson(left_xx, left_x, left_n) + _segment_pearson(
        right_xx, right_x, right_n
    )
    phi = np.maximum(1.0, within / max(t - 2, 1))
    stat = lr / phi
    best = np.argmax(stat, axis=-1)
    return np.take_along_axis(stat, best[..., None], axis=-1)[..., 0], taus[best]


@dataclass(frozen=True, kw_only=True)
class ChangeScan:
    """The change-point scan of one series.

    Attributes:
        start: index of the first night of the most likely change (``None``: too few nights).
        p_value: its Monte Carlo p-value under "one rate, binomial noise" (1.0: not tested).
        before: the pass rate before it.
        after: the pass rate from it on.
    """

    start: int | None
    p_value: float
    before: float | None = None
    after: float | None = None


def _simulate(
    p: Floats, n: Floats, sims: int, rng: np.random.Generator, *, rho: float = 0.0
) -> Floats:
    """``sims`` series of pass counts at rates ``p``: binomial, or beta-binomial with
    intra-night correlation ``rho`` (each night's rate drawn from a beta of mean ``p``)."""
    rates = np.broadcast_to(p[None, :], (sims, len(n)))
    if rho > 0:
        k = 1 / rho - 1
        inner = np.clip(rates, 1e-9, 1 - 1e-9)
        rates = rng.beta(inner * k, (1 - inner) * k)
    return rng.binomial(n.astype(np.int64)[None, :], rates).astype(np.float64)


def _within_dispersion(x: Floats, n: Floats, start: int) -> float:
    """Intra-night correlation implied by the nights' spread around the two rates split at
    ``start`` (0 when they spread no more than binomial noise)."""
    p = np.r_[
        np.full(start, x[:start].sum() / n[:start].sum()),
        np.full(len(x) - start, x[start:].sum() / n[start:].sum()),
    ]
    phi = float(_pearson(x, n, p)) / max(len(x) - 2, 1)
    return float(np.clip((phi - 1) / max(float(n.mean()) - 1, 1.0), 0.0, 0.5))


def _monte_carlo(exceed: Callable[[int], int], sims: int) -> float:
    """The Monte Carlo p-value ``(1 + exceedances) / (1 + simulations)``, drawn in two steps."""
    first = min(FIRST_SIMULATIONS, sims)
    hits = exceed(first)
    if hits >= ENOUGH or first == sims:
        return (1 + hits) / (1 + first)
    return (1 + hits + exceed(sims - first)) / (1 + sims)


def change_scan(
    passes: Floats, runs: Floats, *, sims: int = 999, rng: np.random.Generator
) -> ChangeScan:
    """The most likely single change of pass rate in the series, and how surprising it is if
    nothing changed: the same scan over ``sims`` series at the pooled rate, binomial, or
    beta-binomial when the nights spread more than binomial noise around the fitted change
    (a flaky scenario's spread is then not mistaken for a change)."""
    x, n = np.asarray(passes, np.float64), np.asarray(runs, np.float64)
    if len(x) < 2 * MIN_SEGMENT or n.sum() == 0:
        return ChangeScan(start=None, p_value=1.0)
    stat, tau = _scan(x[None, :], n[None, :])
    start = int(tau[0])
    before = float(x[:start].sum() / max(n[:start].sum(), 1))
    after = float(x[start:].sum() / max(n[start:].sum(), 1))
    pooled = x.sum() / n.sum()
    if pooled in (0.0, 1.0):
        return ChangeScan(start=start, p_value=1.0, before=before, after=after)
    rho = _within_dispersion(x, n, start)
    rates = np.full(len(n), pooled)

    def exceed(count: int) -> int:
        null, _ = _scan(_simulate(rates, n, count, rng, rho=rho), n[None, :])
        return int(np.sum(null >= stat[0] - 1e-9))

    p_value = _monte_carlo(exceed, sims)
    return ChangeScan(start=start, p_value=p_value, before=before, after=after)


@dataclass(frozen=True, kw_only=True)
class Dispersion:
    """Between-night variation beyond binomial noise (Tarone's statistic).

    Attributes:
        statistic: Tarone's Z (0 expected under binomial noise; large when nights differ more).
        p_value: its one-sided Monte Carlo p-value under binomial noise at the fitted rates.
        ratio: Pearson's chi-square over its degrees of freedom (1 expected).
    """

    statistic: float
    p_value: float
    ratio: float


def spread_ratio(passes: Floats, runs: Floats) -> float:
    """Pearson's chi-square of the nights around their pooled rate over its degrees of freedom,
    at least 1: how many times binomial noise the nights spread (the design effect a pooled
    count carries; 1 with fewer than 3 nights)."""
    x, n = np.asarray(passes, np.float64), np.asarray(runs, np.float64)
    if len(x) < 3 or n.sum() <= 0:
        return 1.0
    p = np.full(len(x), x.sum() / n.sum())
    return max(1.0, float(_pearson(x, n, p)) / (len(x) - 1))


def _tarone(x: Floats, n: Floats, p: Floats) -> Floats:
    s = _pearson(x, n, p) - np.where((p > 0) & (p < 1), n, 0.0).sum(axis=-1)
    scale = np.sqrt(2 * np.sum(n * (n - 1)))
    return np.asarray(s / max(float(scale), 1e-12), dtype=np.float64)


def overdispersion(
    passes: Floats,
    runs: Floats,
    *,
    change: int | None = None,
    sims: int = 999,
    rng: np.random.Generator,
) -> Dispersion:
    """Tarone's test of the nights' pass counts against one rate (or, given the first night of a
    change, one rate before it and one from it on), calibrated by simulation."""
    x, n = np.asarray(passes, np.float64), np.asarray(runs, np.float64)
    starts = [0] if change is None else [0, change]
    p = np.empty(len(x))
    for i, s in enumerate(starts):
        e = starts[i + 1] if i + 1 < len(starts) else len(x)
        p[s:e] = x[s:e].sum() / max(n[s:e].sum(), 1)
    df = max(len(x) - len(starts), 1)
    ratio = float(_pearson(x, n, p)) / df
    if len(x) < 3 or not np.any((p > 0) & (p < 1)):
        return Dispersion(statistic=0.0, p_value=1.0, ratio=ratio)
    stat = float(_tarone(x, n, p))

    def exceed(count: int) -> int:
        null = _tarone(_simulate(p, n, count, rng), n[None, :], p[None, :])
        return int(np.sum(null >= stat - 1e-9))

    p_value = _monte_carlo(exceed, sims)
    return Dispersion(statistic=stat, p_value=p_value, ratio=ratio)
