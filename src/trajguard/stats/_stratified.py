"""Tests across strata (scenarios) and across batches (nights of a baseline history).

* :func:`cmh_scores`: the Cochran-Mantel-Haenszel score of a rate over scenarios, for many
  arrangements at once (its square is statsmodels' ``StratifiedTable.test_null_odds`` statistic
  without continuity correction; the tests check it). Evaluated on arrangements of each
  scenario's runs, its permutation distribution is the exact conditional CMH test.
* :func:`homogeneity_test`: do several batches agree? The G statistic of the batches x columns
  table (pass/fail, or calls per tool plus an end-of-run count), permuting batch labels over
  runs (the run is the unit, as everywhere).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

__all__ = ["Homogeneity", "cmh_scores", "homogeneity_test"]

FloatArray = npt.NDArray[np.float64]


def cmh_scores(
    x_c: npt.ArrayLike, n_c: npt.ArrayLike, successes: npt.ArrayLike, runs: npt.ArrayLike
) -> FloatArray:
    """CMH z of every arrangement: ``sum(E - O) / sqrt(sum V)`` over strata.

    Args:
        x_c: candidate successes, arrangements x strata.
        n_c: candidate runs per stratum (per arrangement, or one row for all).
        successes: successes of both arms per stratum.
        runs: runs of both arms per stratum.

    Returns:
        Positive when the candidate has fewer successes than its share of the margins predicts;
        0 where no stratum carries information (every variance zero).
    """
    o = np.atleast_2d(np.asarray(x_c, dtype=float))
    nc = np.broadcast_to(np.asarray(n_c, dtype=float), o.shape)
    t = np.broadcast_to(np.asarray(successes, dtype=float), o.shape)
    n = np.broadcast_to(np.asarray(runs, dtype=float), o.shape)
    nb = n - nc
    with np.errstate(divide="ignore", invalid="ignore"):
        expected = np.where(n > 0, nc * t / np.where(n > 0, n, 1), 0.0)
        variance = np.where(
            n > 1, nb * nc * t * (n - t) / (np.where(n > 0, n, 1) ** 2 * np.maximum(n - 1, 1)), 0.0
        )
    total = variance.sum(axis=1)
    gap = (expected - o).sum(axis=1)
    return np.where(total > 0, gap / np.sqrt(np.where(total > 0, total, 1.0)), 0.0)


@dataclass(frozen=True, kw_only=True)
class Homogeneity:
    """Whether several batches of one scenario agree on one metric.

    Attributes:
        statistic: G of the batches x columns table.
        p_value: permutation p-value (batch labels permuted over runs).
        batches: batches compared.
        resamples: label arrangements drawn.
    """

    statistic: float
    p_value: float
    batches: int
    resamples: int


def _g(tables: FloatArray) -> FloatArray:
    """G statistic of each K x C table (arrangements first)."""
    rows = tables.sum(axis=2, keepdims=True)
    cols = tables.sum(axis=1, keepdims=True)
    grand = tables.sum(axis=(1, 2), keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        expected = rows * cols / np.where(grand > 0, grand, 1)
        terms = np.where(tables > 0, tables * np.log(tables / expected), 0.0)
    return np.asarray(2 * terms.sum(axis=(1, 2)), dtype=float)


def homogeneity_test(
    counts: npt.ArrayLike,
    batches: npt.ArrayLike,
    *,
    rng: np.random.Generator,
    resamples: int = 1999,
) -> Homogeneity:
    """Permutation test that runs from different batches come from one distribution.

    Args:
        counts: runs x columns (e.g. [passed, failed] one-hot, or calls per tool plus 1).
        batches: the batch index of every run (0 .. K-1).
        rng: generator of the label permutations.
        resamples: permutations drawn (the observed labelling counts as one more).
    """
    values = np.asarray(counts, dtype=float)
    labels = np.asarray(batches, dtype=int)
    k = int(labels.max()) + 1 if labels.size else 0
    if k < 2 or values.size == 0:
        return Homogeneity(statistic=0.0, p_value=1.0, batches=k, resamples=0)
    drawn = np.vstack([labels, rng.permuted(np.tile(labels, (resamples, 1)), axis=1)])
    tables = np.stack([(drawn == j).astype(float) @ values for j in range(k)], axis=1)
    g = _g(tables)
    observed = float(g[0])
    hits = int(np.sum(g >= observed - 1e-9 * max(1.0, abs(observed))))
    return Homogeneity(statistic=observed, p_value=hits / len(g), batches=k, resamples=resamples)
