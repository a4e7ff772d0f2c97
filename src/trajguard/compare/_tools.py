"""Tool metrics of one scenario: which tools were called (multiset) and in what order.

Both are tested by permuting whole runs between the batches (calls within a run are correlated,
so the call is never the unit): the G statistic of the calls-by-tool table, and the mean
between-batch minus mean within-batch normalised edit distance of the tool sequences.

The calls-by-tool table has one more column than there are tools: an "end of run" count, one per
run. Without it the table only sees the *mix* of tools, so a change in how often tools are
called (one tool, or every tool's count scaled together; a candidate that calls a tool in every
run against a baseline that never calls one) gives G = 0 and p = 1. With it, more calls per run
shift weight away from the end column and G sees the change. The permutation is still over run
indices, so the test stays exact in size (benchmarks/RESULTS.md).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import numpy.typing as npt
from rapidfuzz import process
from rapidfuzz.distance import Levenshtein

from trajguard import stats as st
from trajguard.compare._evaluation import (
    Evaluation,
    Resampling,
    Summary,
    design_min,
    is_constant,
    rank_equivalence,
    untestable,
)

__all__ = ["evaluate_sequences", "evaluate_tools"]

FloatArray = npt.NDArray[np.float64]


def _count_matrix(rows: Sequence[Mapping[str, int]], tools: Sequence[str]) -> FloatArray:
    return np.array([[float(row.get(t, 0)) for t in tools] for row in rows]).reshape(
        len(rows), len(tools)
    )


def evaluate_tools(
    b: Sequence[Mapping[str, int]],
    c: Sequence[Mapping[str, int]],
    *,
    margin: float,
    alpha: float,
    rng: np.random.Generator | st.Arrangements,
    resampling: Resampling,
) -> Evaluation:
    """Tool multiset: run-level permutation of the G statistic of the 2 x (tools + 1) table
    (calls per tool and one end-of-run count per run); per-tool TOST on ``A``."""
    tools = sorted({t for row in (*b, *c) for t, k in row.items() if k})
    xb, xc = _count_matrix(b, tools), _count_matrix(c, tools)
    base, cand = (
        Summary(
            n=len(x),
            detail=tuple(
                zip(
                    tools,
                    (x.mean(axis=0) if len(x) else np.zeros(len(tools))).tolist(),
                    strict=True,
                )
            ),
        )
        for x in (xb, xc)
    )
    effect = "Cramer's V of the calls-by-tool table (plus one end-of-run count per run)"
    if len(b) == 0 or len(c) == 0:
        return untestable(base, cand, effect, tost=True)
    pooled = np.r_[xb, xc]
    if len(tools) == 0 or (np.all(pooled == pooled[0])):
        least = design_min(len(b), len(c))
        return Evaluation(
            baseline=base,
            candidate=cand,
            effect=effect,
            estimate=0.0,
            ci=None,
            test="none (identical)",
            harm=1.0,
            benefit=1.0,
            min_harm=least,
            min_benefit=1.0,
            tost=st.constant_shift_tost(len(b), len(c), margin),
            outside=False,
            identical=True,
            notes=("identical: every run made the same tool calls",),
        )
    with_ends = np.c_[pooled, np.ones(len(pooled))]
    res = st.permutation_test(
        st.g_statistic(with_ends), len(b), len(c), rng=rng, **vars(resampling)
    )
    table = np.stack([with_ends[: len(b)].sum(axis=0), with_ends[len(b) :].sum(axis=0)])
    expected = np.outer(table.sum(axis=1), table.sum(axis=0)) / table.sum()
    cramer = math.sqrt(float(((table - expected) ** 2 / expected).sum()) / table.sum())
    tost, outside, shifts = 0.0, False, []
    for i, tool in enumerate(tools):
        tb, tc = xb[:, i], xc[:, i]
        a = st.prob_superiority(tb, tc)
        outside = outside or abs(a - 0.5) > margin
        if is_constant(tb) and is_constant(tc):
            p = st.constant_shift_tost(len(b), len(c), margin) if tb[0] == tc[0] else 1.0
        else:
            p = rank_equivalence(tc, tb, margin, alpha)[1]
        tost = max(tost, p)
        shifts.append((abs(tc.mean() - tb.mean()), f"{tool} {tc.mean() - tb.mean():+.2f}"))
    kind = "exact" if res.exact else f"{res.resamples} resamples"
    notes = [
        "mean calls per run, candidate - baseline: "
        + ", ".join(s for _, s in sorted(shifts, reverse=True)[:3])
    ]
    return Evaluation(
        baseline=base,
        candidate=cand,
        effect=effect,
        estimate=cramer,
        ci=None,
        test=f"G permutation over runs ({kind})",
        harm=res.greater,
        benefit=1.0,
        min_harm=res.min_greater,
        min_benefit=1.0,
        tost=tost,
        outside=outside,
        notes=tuple(notes),
    )


def evaluate_sequences(
    b: Sequence[Sequence[str]],
    c: Sequence[Sequence[str]],
    *,
    rng: np.random.Generator | st.Arrangements,
    resampling: Resampling,
) -> Evaluation:
    """Tool order: permutation of between-minus-within normalised Levenshtein distance."""
    names = {t: chr(0xE000 + i) for i, t in enumerate(sorted({t for s in (*b, *c) for t in s}))}
    encoded = ["".join(names[t] for t in seq) for seq in (*b, *c)]
    base, cand = (
        Summary(n=len(s), detail=(("distinct sequences", float(len(set(map(tuple, s))))),))
        for s in (b, c)
    )
    effect = "mean between - mean within normalised edit distance"
    if len(b) == 0 or len(c) == 0:
        return untestable(base, cand, effect, tost=False)
    if len(set(encoded)) == 1:
        return Evaluation(
            baseline=base,
            candidate=cand,
            effect=effect,
            estimate=0.0,
            ci=None,
            test="none (identical)",
            harm=1.0,
            benefit=1.0,
            min_harm=design_min(len(b), len(c)),
            min_benefit=1.0,
            tost=None,
            outside=False,
            identical=True,
            notes=("identical: every run called the same tools in the same order",),
        )
    distances = process.cdist(
        encoded, encoded, scorer=Levenshtein.normalized_distance, dtype=np.float64, workers=1
    )
    res = st.permutation_test(
        st.distance_statistic(np.asarray(distances)),
        len(b),
        len(c),
        rng=rng,
        **vars(resampling),
    )
    seen = set(encoded[: len(b)])
    unseen = sum(s not in seen for s in encoded[len(b) :]) / len(c)
    kind = "exact" if res.exact else f"{res.resamples} resamples"
    return Evaluation(
        baseline=base,
        candidate=cand,
        effect=effect,
        estimate=res.statistic,
        ci=None,
        test=f"distance permutation ({kind})",
        harm=res.greater,
        benefit=1.0,
        min_harm=res.min_greater,
        min_benefit=1.0,
        tost=None,
        outside=True,
        notes=(f"{unseen:.0%} of candidate sequences unseen in the baseline",),
    )
