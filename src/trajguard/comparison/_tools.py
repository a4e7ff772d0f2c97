"""Tool metrics of one scenario: which tools were called (multiset) and in what order.

Both are tested by permuting whole runs between the batches (calls within a run are correlated,
so the call is never the unit).

Tool usage: the **tool mix** is each batch's calls per tool plus one "end of run" count per run,
as shares; the effect and the test statistic are the total-variation distance (TVD) between the
two batches' mixes: the share of calls and run ends that would have to move to another tool to
make the mixes equal. The end-of-run column makes a change in how often tools are called visible
(one tool, or every tool's count scaled together; a candidate that calls a tool in every run
against a baseline that never calls one): without it the mix alone would not move. The tolerance
band ``tool_usage`` applies to the TVD; "unchanged" still needs every tool's calls per run
equivalent (per-tool TOST on ``A`` within the ``tools`` band).

Tool order: the statistic is the mean between-batch minus mean within-batch normalised edit
distance of the tool sequences; the effect is the share of candidate runs whose sequence the
baseline never showed, minus the share the baseline's own runs give by chance (runs whose
sequence occurs once in the baseline: the Good-Turing estimate of how often a new run from the
baseline's own distribution shows an unseen sequence). Its band is ``tool_order``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import numpy.typing as npt
from rapidfuzz import process
from rapidfuzz.distance import Levenshtein

from trajguard import stats as st
from trajguard.comparison._evaluation import (
    Evaluation,
    Resampling,
    Summary,
    design_min,
    is_constant,
    one_sided_permutation,
    rank_equivalence,
    untestable,
)

__all__ = ["evaluate_sequences", "evaluate_tools", "novelty"]

FloatArray = npt.NDArray[np.float64]


def _count_matrix(rows: Sequence[Mapping[str, int]], tools: Sequence[str]) -> FloatArray:
    return np.array([[float(row.get(t, 0)) for t in tools] for row in rows]).reshape(
        len(rows), len(tools)
    )


def _unseen_multisets(b: Sequence[Mapping[str, int]], c: Sequence[Mapping[str, int]]) -> float:
    def key(row: Mapping[str, int]) -> tuple[tuple[str, int], ...]:
        return tuple(sorted((t, k) for t, k in row.items() if k))

    seen = {key(row) for row in b}
    return sum(key(row) not in seen for row in c) / max(len(c), 1)


def evaluate_tools(
    b: Sequence[Mapping[str, int]],
    c: Sequence[Mapping[str, int]],
    *,
    margin: float,
    equivalence: float,
    alpha: float,
    rng: np.random.Generator | st.Arrangements,
    resampling: Resampling,
) -> Evaluation:
    """Tool usage: run-level permutation of the TVD between the batches' tool mixes (calls per
    tool and one end-of-run count per run); ``margin`` bounds the TVD (``tool_usage``);
    "unchanged" from the per-tool TOST on ``A`` within ``equivalence`` (``tools``)."""
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
    effect = "total-variation distance of the tool mix (calls per tool plus one end per run)"
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
            tost=st.constant_shift_tost(len(b), len(c), equivalence),
            outside=False,
            identical=True,
            notes=("identical: every run made the same tool calls",),
        )
    with_ends = np.c_[pooled, np.ones(len(pooled))]
    res = st.permutation_test(
        st.tvd_statistic(with_ends), len(b), len(c), rng=rng, **vars(resampling)
    )
    tost, shifts = 0.0, []
    for i, tool in enumerate(tools):
        tb, tc = xb[:, i], xc[:, i]
        if is_constant(tb) and is_constant(tc):
            p = st.constant_shift_tost(len(b), len(c), equivalence) if tb[0] == tc[0] else 1.0
        else:
            p = rank_equivalence(tc, tb, equivalence, alpha)[1]
        tost = max(tost, p)
        shifts.append((abs(tc.mean() - tb.mean()), f"{tool} {tc.mean() - tb.mean():+.2f}"))
    notes = (
        "mean calls per run, candidate - baseline: "
        + ", ".join(s for _, s in sorted(shifts, reverse=True)[:3]),
        f"{_unseen_multisets(b, c):.0%} of candidate runs called a multiset of tools the "
        "baseline never showed",
    )
    return one_sided_permutation(
        res,
        test="TVD permutation over runs",
        baseline=base,
        candidate=cand,
        effect=effect,
        estimate=res.statistic,
        margin=margin,
        tost=tost,
        notes=notes,
    )


def novelty(b: Sequence[Sequence[str]], c: Sequence[Sequence[str]]) -> tuple[float, float]:
    """(share of candidate runs with a sequence the baseline never showed, the share expected
    by chance: baseline runs whose sequence occurs once in the baseline, Good-Turing)."""
    counts: dict[tuple[str, ...], int] = {}
    for seq in b:
        counts[tuple(seq)] = counts.get(tuple(seq), 0) + 1
    unseen = sum(tuple(seq) not in counts for seq in c) / max(len(c), 1)
    singletons = sum(1 for k in counts.values() if k == 1) / max(len(b), 1)
    return unseen, singletons


def evaluate_sequences(
    b: Sequence[Sequence[str]],
    c: Sequence[Sequence[str]],
    *,
    margin: float = 0.2,
    rng: np.random.Generator | st.Arrangements,
    resampling: Resampling,
) -> Evaluation:
    """Tool order: permutation of between-minus-within normalised Levenshtein distance; the
    effect is the excess share of candidate runs with a sequence unseen in the baseline, and
    ``margin`` (``tool_order``) bounds it."""
    names = {t: chr(0xE000 + i) for i, t in enumerate(sorted({t for s in (*b, *c) for t in s}))}
    encoded = ["".join(names[t] for t in seq) for seq in (*b, *c)]
    base, cand = (
        Summary(n=len(s), detail=(("distinct sequences", float(len(set(map(tuple, s))))),))
        for s in (b, c)
    )
    effect = (
        "share of candidate runs with a tool sequence unseen in the baseline, minus the "
        "baseline's own rate of new sequences"
    )
    if len(b) == 0 or len(c) == 0:
        return untestable(base, cand, effect, tost=False)
    unseen, chance = novelty(b, c)
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
    return one_sided_permutation(
        res,
        test="distance permutation",
        baseline=base,
        candidate=cand,
        effect=effect,
        estimate=unseen - chance,
        margin=margin,
        tost=None,
        notes=(
            f"{unseen:.0%} of candidate sequences unseen in the baseline ({chance:.0%} expected "
            f"by chance); mean edit distance between - within the batches {res.statistic:.2f}",
        ),
    )
