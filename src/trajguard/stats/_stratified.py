"""Tests across strata (scenarios) and across batches (nights of a baseline history).

* :func:`cmh_scores`: the Cochran-Mantel-Haenszel score of a rate over scenarios, for many
  arrangements at once (its square is statsmodels' ``StratifiedTable.test_null_odds`` statistic
  without continuity correction; the tests check it). Evaluated on arrangements of each
  scenario's runs, its permutation distribution is the exact conditional CMH test.
* :func:`homogeneity_test`: do several batches agree? The G statistic of the batches x columns
  table (calls per tool plus an end-of-run count), permuting batch labels over runs (the run is
  the unit, as everywhere).
* :func:`rate_homogeneity_test`: the same test for a rate (the batches x (event, no event)
  table). Relabelling the runs at random puts the events into the batches by the multivariate
  hypergeometric law, so the tables are drawn from that law directly: the same permutation test,
  at a cost per resample of the number of batches instead of the number of runs.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

__all__ = ["Homogeneity", "cmh_scores", "homogeneity_test", "rate_homogeneity_test"]

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
    return _result(_g(tables), k, resamples)


def _result(g: FloatArray, batches: int, resamples: int) -> Homogeneity:
    """The observed G (row 0) and its p-value: the share of rows at least as large."""
    observed = float(g[0])
    hits = int(np.sum(g >= observed - 1e-9 * max(1.0, abs(observed))))
    return Homogeneity(
        statistic=observed, p_value=hits / len(g), batches=batches, resamples=resamples
    )


def rate_homogeneity_test(
    events: npt.ArrayLike,
    batches: npt.ArrayLike,
    *,
    rng: np.random.Generator,
    resamples: int = 1999,
) -> Homogeneity:
    """Permutation test that several batches share one rate (the G test of batches x
    (event, no event)).

    Under a random relabelling of the runs, the events that fall into each batch follow the
    multivariate hypergeometric law (batch sizes as colours, the events as the sample), and the
    table is a function of those counts: drawing them is the permutation test of
    :func:`homogeneity_test` on the one-hot (event, no event) counts, with the same null law.

    Args:
        events: whether each run had the event (passed, crashed).
        batches: the batch index of every run (0 .. K-1).
        rng: generator of the hypergeometric draws.
        resamples: tables drawn (the observed one counts as one more).
    """
    hits = np.asarray(events, dtype=bool)
    labels = np.asarray(batches, dtype=int)
    k = int(labels.max()) + 1 if labels.size else 0
    if k < 2 or hits.size == 0:
        return Homogeneity(statistic=0.0, p_value=1.0, batches=k, resamples=0)
    sizes = np.bincount(labels, minlength=k)
    observed = np.bincount(labels[hits], minlength=k)
    drawn = rng.multivariate_hypergeometric(sizes, int(hits.sum()), size=resamples)
    in_batch = np.vstack([observed, drawn]).astype(float)
    tables = np.stack([in_batch, sizes[None, :] - in_batch], axis=2)
    return _result(_g(tables), k, resamples)
