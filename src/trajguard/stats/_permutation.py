"""Run-level permutation tests with vectorised statistics, and the closed-form location tests.

A statistic is a function of a boolean matrix of arrangements (one row per arrangement of the
pooled runs, ``True`` = candidate) that returns one value per row, so thousands of permutations
cost a few matrix products. Row 0 is always the observed arrangement: baseline runs first.
Permutation p-values are exact (every arrangement) when there are few arrangements; otherwise
Monte Carlo with a seeded generator, extended to more resamples when the first stage's p-value is
small, so that small families of tests can still reach significance. The closed-form location
tests live in :mod:`trajguard.stats._location`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from itertools import combinations

import numpy as np
import numpy.typing as npt

__all__ = [
    "Arrangements",
    "PermutationResult",
    "all_arrangements",
    "bm_statistic",
    "distance_statistic",
    "g_statistic",
    "observed_arrangement",
    "permutation_test",
    "tvd_statistic",
    "welch_statistic",
]

FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]
Statistic = Callable[[BoolArray], FloatArray]

# Stands in for an infinite statistic (zero spread within both arms) so orderings stay defined.
_BIG = 1e12
# Rows of arrangements per evaluation of a statistic: small enough to stay in cache.
_CHUNK_ROWS = 1024
_KEY_BLOCK = 1024


@dataclass(frozen=True, kw_only=True)
class PermutationResult:
    """A permutation test's outcome.

    Attributes:
        statistic: the observed statistic.
        greater: p-value for "the statistic is large" (candidate larger, or more different).
        less: p-value for "the statistic is small".
        exact: every arrangement was enumerated.
        resamples: arrangements evaluated (all of them when exact).
        min_greater: smallest ``greater`` p-value this design can produce.
        min_less: smallest ``less`` p-value this design can produce.
    """

    statistic: float
    greater: float
    less: float
    exact: bool
    resamples: int
    min_greater: float
    min_less: float


def _observed(n_b: int, n_c: int) -> BoolArray:
    return np.arange(n_b + n_c)[None, :] >= n_b


def observed_arrangement(n_b: int, n_c: int) -> BoolArray:
    """The observed arrangement as a one-row mask: baseline runs first, candidate runs last."""
    return _observed(n_b, n_c)


def all_arrangements(n_b: int, n_c: int) -> BoolArray:
    """Every arrangement of ``n_b + n_c`` runs, in lexical order of the candidate positions
    (the observed one, candidates last, is the last row)."""
    total = n_b + n_c
    masks = np.zeros((math.comb(total, n_c), total), dtype=bool)
    rows = np.repeat(np.arange(len(masks)), n_c)
    masks[rows, np.fromiter(combinations(range(total), n_c), (int, n_c)).ravel()] = True
    return masks


def _evaluate(stat: Statistic, masks: BoolArray) -> FloatArray:
    parts = [stat(masks[i : i + _CHUNK_ROWS]) for i in range(0, len(masks), _CHUNK_ROWS)]
    return np.concatenate(parts)


def _tolerance(value: float) -> float:
    # Equal statistics computed from differently shaped products differ in the last bits.
    return 1e-9 * max(1.0, abs(value))


class Arrangements:
    """Random arrangements of ``n_b + n_c`` runs, drawn once and shared by several statistics.

    Tests that share arrangements remain valid one by one (the arrangements do not depend on the
    data); sharing halves the cost of testing tool counts and tool order on the same runs.
    """

    def __init__(self, n_b: int, n_c: int, rng: np.random.Generator) -> None:
        self.n_b, self.n_c, self._rng = n_b, n_c, rng
        self._masks = np.zeros((0, n_b + n_c), dtype=bool)

    def rows(self, start: int, stop: int) -> BoolArray:
        """Arrangements ``start`` to ``stop`` (drawn on first use)."""
        if stop > len(self._masks):
            # Keys are continuous, so ties at the partition point have probability ~1e-12.
            # Drawn block by block (the same stream as one draw) so each block stays in cache.
            blocks = [self._masks]
            for done in range(len(self._masks), stop, _KEY_BLOCK):
                keys = self._rng.random((min(_KEY_BLOCK, stop - done), self.n_b + self.n_c))
                blocks.append(smallest_keys(keys, self.n_c))
            self._masks = np.concatenate(blocks)
        return self._masks[start:stop]


def smallest_keys(keys: FloatArray, k: int) -> BoolArray:
    """``keys <= (k-th smallest key of the row)``, row by row, for keys in [0, 1) and
    ``1 <= k <= keys.shape[1]``.

    Selected on 16-bit buckets of the keys first, which partition about four times as fast:
    bucketing is monotone, so a row whose bucket threshold selects exactly ``k`` keys selects
    the same keys as the keys themselves; the few rows where two keys share the threshold's
    bucket are redone on the keys.
    """
    buckets = (keys * 65536.0).astype(np.uint16)
    masks = buckets <= np.partition(buckets, k - 1, axis=1)[:, k - 1 : k]
    tied = masks.sum(axis=1) != k
    if tied.any():
        wide = keys[tied]
        masks[tied] = wide <= np.partition(wide, k - 1, axis=1)[:, k - 1 : k]
    return masks


def permutation_test(
    stat: Statistic,
    n_b: int,
    n_c: int,
    *,
    rng: np.random.Generator | Arrangements,
    n_resamples: int = 1999,
    max_resamples: int = 19999,
    exact_limit: int = 50_000,
    refine_below: float = 0.01,
) -> PermutationResult:
    """Permutation test of exchangeability of the baseline and candidate runs.

    Args:
        stat: vectorised statistic over arrangement masks (see module docstring).
        n_b: baseline runs (at least 1).
        n_c: candidate runs (at least 1).
        rng: source of random arrangements (unused when exact), or arrangements to share.
        n_resamples: Monte Carlo arrangements in the first stage.
        max_resamples: total arrangements when the first stage's smaller p-value is below
            ``refine_below``; the pooled p-value is valid because the stage-one p-value already
            bounds any rejection the extension can produce.
        exact_limit: enumerate every arrangement when there are at most this many.
        refine_below: first-stage p-value under which the test is extended.

    Returns:
        Both one-sided p-values; Monte Carlo p-values are ``(1 + hits) / (1 + resamples)``.
    """
    total = n_b + n_c
    if math.comb(total, n_c) <= exact_limit:
        values = _evaluate(stat, all_arrangements(n_b, n_c))
        # The observed arrangement (candidates last) is the last combination in lexical order.
        observed = float(values[-1])
        top, bottom = float(values.max()), float(values.min())
        return PermutationResult(
            statistic=observed,
            greater=float(np.mean(values >= observed - _tolerance(observed))),
            less=float(np.mean(values <= observed + _tolerance(observed))),
            exact=True,
            resamples=len(values),
            min_greater=float(np.mean(values >= top - _tolerance(top))),
            min_less=float(np.mean(values <= bottom + _tolerance(bottom))),
        )
    observed = float(_evaluate(stat, _observed(n_b, n_c))[0])
    tolerance = _tolerance(observed)
    source = rng if isinstance(rng, Arrangements) else Arrangements(n_b, n_c, rng)
    values = _evaluate(stat, source.rows(0, n_resamples))
    hits_g = int(np.sum(values >= observed - tolerance))
    hits_l = int(np.sum(values <= observed + tolerance))
    done = n_resamples
    if max_resamples > done and (min(hits_g, hits_l) + 1) / (done + 1) < refine_below:
        more = _evaluate(stat, source.rows(done, max_resamples))
        hits_g += int(np.sum(more >= observed - tolerance))
        hits_l += int(np.sum(more <= observed + tolerance))
        done = max_resamples
    floor = 1.0 / (max(max_resamples, n_resamples) + 1)
    return PermutationResult(
        statistic=observed,
        greater=(hits_g + 1) / (done + 1),
        less=(hits_l + 1) / (done + 1),
        exact=False,
        resamples=done,
        min_greater=floor,
        min_less=floor,
    )


def _clip_ratio(numerator: FloatArray, denominator: FloatArray) -> FloatArray:
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = numerator / denominator
    degenerate = ~(denominator > 1e-12 * np.maximum(1.0, np.abs(numerator)))
    return np.where(degenerate, np.sign(numerator) * _BIG, np.clip(ratio, -_BIG, _BIG))


def _below(values: FloatArray) -> FloatArray:
    """``[i, j]`` = 1 if run j is below run i, 1/2 if tied."""
    return np.asarray(
        (values[None, :] < values[:, None]) + 0.5 * (values[None, :] == values[:, None]), float
    )


def _sizes(masks: BoolArray) -> tuple[FloatArray, FloatArray]:
    """Candidate and baseline runs of each arrangement (they vary when a metric leaves out the
    runs without a value, inside arrangements of all runs)."""
    n_c = masks.sum(axis=1).astype(float)
    return n_c, masks.shape[1] - n_c


def _ratio(numerator: FloatArray, denominator: FloatArray) -> FloatArray:
    """``numerator / denominator``, 0 where the denominator is 0 (an empty arm says nothing)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(denominator > 0, numerator / np.where(denominator > 0, denominator, 1), 0.0)


def _bm_parts(less: FloatArray, masks: BoolArray) -> tuple[FloatArray, FloatArray]:
    """Brunner-Munzel statistic (candidate larger is positive) and its Welch-type df."""
    n_c, n_b = _sizes(masks)
    from_c = masks.astype(float) @ less.T
    # Placement of a run: how many runs of the other arm lie below it (ties count half).
    placement = np.where(masks, less.sum(axis=1)[None, :] - from_c, from_c)
    mean_c = _ratio(np.sum(placement * masks, axis=1), n_c)
    mean_b = _ratio(np.sum(placement * ~masks, axis=1), n_b)
    var_c = np.sum(((placement - mean_c[:, None]) * masks) ** 2, axis=1) / np.maximum(n_c - 1, 1)
    var_b = np.sum(((placement - mean_b[:, None]) * ~masks) ** 2, axis=1) / np.maximum(n_b - 1, 1)
    # Mean pooled ranks differ by the mean placements plus the arms' own mean ranks.
    rank_gap = (mean_c + (n_c + 1) / 2) - (mean_b + (n_b + 1) / 2)
    spread = n_b * var_b + n_c * var_c
    w = _clip_ratio(_ratio(n_b * n_c * rank_gap, n_b + n_c), np.sqrt(spread))
    w = np.where((n_c > 0) & (n_b > 0), w, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        df = spread**2 / (
            (n_b * var_b) ** 2 / np.maximum(n_b - 1, 1)
            + (n_c * var_c) ** 2 / np.maximum(n_c - 1, 1)
        )
    return w, df


def _bm_from_counts(below: FloatArray, onehot: FloatArray, masks: BoolArray) -> FloatArray:
    """Brunner-Munzel statistic when runs share few distinct values (``below`` is K x K)."""
    n_c, n_b = _sizes(masks)
    in_c = masks.astype(float) @ onehot
    in_b = onehot.sum(axis=0)[None, :] - in_c
    place_c, place_b = in_b @ below.T, in_c @ below.T  # placement of a run of each value
    mean_c = _ratio(np.sum(in_c * place_c, axis=1), n_c)
    mean_b = _ratio(np.sum(in_b * place_b, axis=1), n_b)
    var_c = np.sum(in_c * (place_c - mean_c[:, None]) ** 2, axis=1) / np.maximum(n_c - 1, 1)
    var_b = np.sum(in_b * (place_b - mean_b[:, None]) ** 2, axis=1) / np.maximum(n_b - 1, 1)
    rank_gap = (mean_c + (n_c + 1) / 2) - (mean_b + (n_b + 1) / 2)
    w = _clip_ratio(_ratio(n_b * n_c * rank_gap, n_b + n_c), np.sqrt(n_b * var_b + n_c * var_c))
    return np.where((n_c > 0) & (n_b > 0), w, 0.0)


def bm_statistic(values: FloatArray) -> Statistic:
    """Brunner-Munzel statistic over arrangements of ``values`` (baseline then candidate).

    Tie-heavy values (step counts) are handled per distinct value, which is much cheaper.
    """
    distinct, group = np.unique(values, return_inverse=True)
    if len(distinct) <= len(values) // 2:
        onehot = np.zeros((len(values), len(distinct)))
        onehot[np.arange(len(values)), group.ravel()] = 1.0
        below = _below(distinct)
        return lambda masks: _bm_from_counts(below, onehot, masks)
    less = _below(values)
    return lambda masks: _bm_parts(less, masks)[0]


def welch_statistic(values: FloatArray) -> Statistic:
    """Welch t statistic (candidate minus baseline) over arrangements of ``values``."""
    squares = values**2

    def stat(masks: BoolArray) -> FloatArray:
        weights = masks.astype(float)
        n_c, n_b = _sizes(masks)
        sum_c, sq_c = weights @ values, weights @ squares
        sum_b, sq_b = values.sum() - sum_c, squares.sum() - sq_c
        mean_c, mean_b = _ratio(sum_c, n_c), _ratio(sum_b, n_b)
        var_c = np.maximum(sq_c - n_c * mean_c**2, 0) / np.maximum(n_c - 1, 1)
        var_b = np.maximum(sq_b - n_b * mean_b**2, 0) / np.maximum(n_b - 1, 1)
        t = _clip_ratio(mean_c - mean_b, np.sqrt(_ratio(var_c, n_c) + _ratio(var_b, n_b)))
        return np.where((n_c > 0) & (n_b > 0), t, 0.0)

    return stat


def g_statistic(counts: FloatArray) -> Statistic:
    """Log-likelihood ratio (G) statistic of the 2 x tools table of call counts.

    ``counts`` is runs x tools; each arrangement sums its arms' rows into the table, so the run,
    not the call, is the unit that is permuted.
    """
    column = counts.sum(axis=0)
    grand = column.sum()

    def stat(masks: BoolArray) -> FloatArray:
        in_c = masks.astype(float) @ counts
        table = np.stack([column[None, :] - in_c, in_c], axis=1)
        expected = table.sum(axis=2, keepdims=True) * column[None, None, :] / grand
        with np.errstate(divide="ignore", invalid="ignore"):
            terms = np.where(table > 0, table * np.log(table / expected), 0.0)
        return np.asarray(2 * terms.sum(axis=(1, 2)), dtype=float)

    return stat


def tvd_statistic(counts: FloatArray) -> Statistic:
    """Total-variation distance between the two arms' shares of the columns of ``counts``.

    ``counts`` is runs x columns (calls per tool plus one end-of-run count, so every run adds
    at least 1): each arrangement sums its arms' rows and compares the normalised rows, half
    the sum of absolute differences, between 0 (the same mix) and 1 (disjoint).
    """
    column = counts.sum(axis=0)

    def stat(masks: BoolArray) -> FloatArray:
        in_c = masks.astype(float) @ counts
        in_b = column[None, :] - in_c
        share_c = _ratio(in_c, in_c.sum(axis=1, keepdims=True))
        share_b = _ratio(in_b, in_b.sum(axis=1, keepdims=True))
        return np.asarray(0.5 * np.abs(share_c - share_b).sum(axis=1), dtype=float)

    return stat


def distance_statistic(distances: FloatArray) -> Statistic:
    """Mean between-arm distance minus the mean of the two within-arm mean distances.

    ``distances`` is symmetric with a zero diagonal. One quadratic form per arrangement gives
    the candidate-candidate sum and the row sums give the rest; runs with identical rows (the
    same tool sequence) are merged first when that shrinks the quadratic form.
    """
    row = distances.sum(axis=1)
    total = row.sum()
    _, first, group = np.unique(distances, axis=0, return_index=True, return_inverse=True)
    merged = len(first) <= len(row) // 2
    group_of = group.ravel()
    if merged:
        reduced = distances[np.ix_(first, first)]

    def stat(masks: BoolArray) -> FloatArray:
        in_c = masks.astype(float)
        n_c, n_b = _sizes(masks)
        if merged:
            # Candidate runs of each distinct row, counted (the same integers as in_c @ onehot).
            rows, cols = np.nonzero(masks)
            counts = np.bincount(
                rows * len(first) + group_of[cols], minlength=len(masks) * len(first)
            ).reshape(len(masks), len(first))
            counts = counts.astype(float)
            cc = np.einsum("ij,ij->i", counts @ reduced, counts)
        else:
            cc = np.einsum("ij,ij->i", in_c @ distances, in_c)
        to_c = in_c @ row
        bb = total - 2 * to_c + cc
        within_c = cc / np.maximum(n_c * (n_c - 1), 1)
        within_b = bb / np.maximum(n_b * (n_b - 1), 1)
        return np.asarray(_ratio(to_c - cc, n_b * n_c) - (within_b + within_c) / 2, dtype=float)

    return stat
