"""Multiplicity from the joint permutation distribution: combined tests and step-down min-p.

The gating metrics of one scenario are computed on the same arrangements of its runs, so their
permutation p-values have a joint distribution that the arrangements reproduce. Here:

* :func:`rank_pvalues` turns a statistic evaluated on every arrangement into the permutation
  p-value of every arrangement (the share of arrangements at least as extreme);
* :func:`fisher_combination` combines several such p-values per arrangement (nonparametric
  combination: its own permutation p-value is exact, however the parts are correlated);
* :class:`NullLaw` is what is known of one test's null distribution (its attainable p-values);
* :func:`stepdown_independent` adjusts independent tests (one per scenario: their runs are
  arranged independently) by the step-down min-p rule, exactly where each test's law is known;
* :func:`westfall_young` adjusts dependent tests from joint resamples (the suite-level tests,
  which all read every scenario's arrangement).

Hand-written: statsmodels' ``multipletests`` has no min-p method and no discrete laws; the
step-down min-p with known independent laws reduces to Holm-Šidák for uniform p-values, which
the tests check against statsmodels.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

__all__ = [
    "NullLaw",
    "critical_value",
    "fisher_combination",
    "rank_pvalues",
    "stepdown_independent",
    "two_sided_rank_pvalues",
    "westfall_young",
]

FloatArray = npt.NDArray[np.float64]

# p-values floor: -log(0) would make one component swamp the combination.
_TINY = 1e-300


def _tolerance(values: FloatArray) -> FloatArray:
    # Equal statistics computed from differently shaped products differ in the last bits.
    return np.asarray(1e-9 * np.maximum(1.0, np.abs(values)), dtype=float)


def rank_pvalues(scores: npt.ArrayLike) -> FloatArray:
    """The permutation p-value of every arrangement: the share of arrangements whose score is at
    least its own (larger is more extreme). Scores along axis 0; several columns at once."""
    values = np.asarray(scores, dtype=float)
    flat = values.reshape(len(values), -1)
    out = np.empty_like(flat)
    for j in range(flat.shape[1]):
        column = flat[:, j]
        ordered = np.sort(column)
        below = np.searchsorted(ordered, column - _tolerance(column), side="left")
        out[:, j] = (len(column) - below) / len(column)
    return out.reshape(values.shape)


def two_sided_rank_pvalues(scores: npt.ArrayLike) -> FloatArray:
    """Twice the smaller one-sided permutation p-value of every arrangement, at most 1."""
    values = np.asarray(scores, dtype=float)
    both = np.minimum(rank_pvalues(values), rank_pvalues(-values))
    return np.asarray(np.minimum(1.0, 2 * both), dtype=float)


def fisher_combination(pvalues: npt.ArrayLike) -> FloatArray:
    """Fisher's combination ``sum(-log p)`` of each row's p-values (columns are the parts)."""
    p = np.maximum(np.asarray(pvalues, dtype=float), _TINY)
    return np.asarray(-np.log(p).sum(axis=-1), dtype=float)


@dataclass(frozen=True, kw_only=True)
class NullLaw:
    """What is known of a permutation p-value's null distribution ``F(x) = P(P <= x)``.

    A permutation p-value at an attainable value ``a`` has ``P(P <= a) = a`` exactly, and
    between attainable values ``F`` is flat. ``atoms`` lists the attainable values (``None``:
    unknown, ``F(x) = x``, which is never smaller than the truth); ``floor`` is the smallest
    attainable value (0 when unknown). A test that cannot produce a small p-value therefore costs
    its family nothing at that level, which is how constant or nearly constant scenarios stop
    diluting the others.
    """

    atoms: tuple[float, ...] | None = None
    floor: float = 0.0

    def cdf(self, x: float) -> float:
        """``P(P <= x)`` under the null, or an upper bound of it."""
        return float(self.cdf_many(np.array([x]))[0])

    def cdf_many(self, xs: npt.ArrayLike) -> FloatArray:
        """:meth:`cdf` at every value of ``xs``."""
        x = np.asarray(xs, dtype=float)
        if self.atoms is None:
            out = np.clip(x, 0.0, 1.0)
        else:
            atoms = np.asarray(self.atoms, dtype=float)
            index = np.searchsorted(atoms, x * (1 + 1e-12), side="right")
            out = np.where(index > 0, atoms[np.maximum(index - 1, 0)], 0.0)
        return np.asarray(np.where(x < self.floor, 0.0, out), dtype=float)

    @classmethod
    def uniform(cls) -> NullLaw:
        """A continuous p-value: ``F(x) = x``."""
        return cls()

    @classmethod
    def from_rows(cls, row_pvalues: npt.ArrayLike, *, exact: bool) -> NullLaw:
        """The law of the p-values of every arrangement (``exact``: all arrangements were
        enumerated). From random arrangements only a constant test's law is known (it never
        gives less than 1); otherwise ``F(x) = x``: a discrete statistic may have rare extreme
        values no random arrangement drew, and a floor read off the draws would understate
        ``F`` there (measured: A/A nights 5.5 % instead of at most 4.5 %)."""
        values = np.asarray(row_pvalues, dtype=float)
        atoms = tuple(float(a) for a in np.unique(values))
        if exact or len(atoms) == 1:
            return cls(atoms=atoms, floor=atoms[0])
        return cls()


def stepdown_independent(pvalues: Sequence[float], laws: Sequence[NullLaw]) -> FloatArray:
    """Step-down min-p adjusted p-values of independent tests with known null laws.

    With the observed p-values ordered ``p_(1) <= ... <= p_(m)`` and ``R_k`` the tests from the
    k-th on, the adjusted p-value of the k-th is
    ``max_{j <= k} 1 - prod_{i in R_j} (1 - F_i(p_(j)))``: the chance, under the null of every
    test still in play, that one of them gives a p-value at most this small. Strong control of
    the family-wise error rate (a closed test whose local tests are exact min-p tests).
    """
    p = np.asarray(pvalues, dtype=float)
    if p.size == 0:
        return p
    order = np.argsort(p, kind="stable")
    levels = p[order]
    # log(1 - F_j(level_k)) for the j-th test in order (rows) at the k-th level (columns).
    with np.errstate(divide="ignore", invalid="ignore"):
        logs = np.stack([np.log1p(-np.clip(laws[j].cdf_many(levels), 0, 1)) for j in order])
    # Tests still in play at step k are those from the k-th on: the lower triangle from row k.
    kept = np.tril(np.ones((p.size, p.size), dtype=bool))
    stay = np.exp(np.where(kept, logs, 0.0).sum(axis=0))
    steps = np.minimum(np.maximum.accumulate(1.0 - stay), 1.0)
    adjusted = np.empty_like(p)
    adjusted[order] = steps
    return adjusted


def westfall_young(rows: npt.ArrayLike) -> FloatArray:
    """Westfall-Young step-down min-p adjusted p-values from joint resamples.

    ``rows`` holds one row per arrangement (row 0 the observed one, so that each adjusted
    p-value counts itself) and one column per test: each test's permutation p-value at that
    arrangement. Adjusted p of the k-th smallest observed p-value: the largest, over ``j <= k``,
    of the share of rows whose smallest p-value among the tests from the j-th on is at most
    ``p_(j)``.
    """
    table = np.asarray(rows, dtype=float)
    if table.ndim != 2 or table.shape[1] == 0:
        return np.zeros(0)
    observed = table[0]
    order = np.argsort(observed, kind="stable")
    # Successive minima over the tests still in play, from the largest observed p-value down.
    suffix = np.minimum.accumulate(table[:, order[::-1]], axis=1)[:, ::-1]
    adjusted = np.empty(table.shape[1])
    running = 0.0
    for k, index in enumerate(order):
        level = observed[index] * (1 + 1e-12)
        running = max(running, float(np.mean(suffix[:, k] <= level)))
        adjusted[index] = min(running, 1.0)
    return adjusted


def critical_value(alpha: float, laws: Sequence[NullLaw]) -> float:
    """The largest p-value that clears the first step of :func:`stepdown_independent`.

    Solved by bisection on ``1 - prod(1 - F_i(x)) <= alpha`` (monotone in ``x``); the answer is
    what a single scenario must reach when every scenario is still in play.
    """
    if not laws:
        return alpha

    def size(x: float) -> float:
        point = np.array([x])
        return 1.0 - float(np.prod([1.0 - law.cdf_many(point)[0] for law in laws]))

    low, high = 0.0, alpha
    if size(high) <= alpha:
        return high
    for _ in range(64):
        mid = (low + high) / 2
        low, high = (mid, high) if size(mid) <= alpha else (low, mid)
        if high - low <= 1e-12 * max(high, 1e-300):
            break
    return low if math.isfinite(low) else 0.0
