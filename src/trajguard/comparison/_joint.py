"""Each gating metric on the joint arrangements of a scenario's runs: one p-value per arrangement.

The scenario's runs (baseline then candidate) are arranged once; every gating metric is computed
on the same arrangements, so the p-values of one arrangement are what the metrics would have
said together had the labels fallen that way. Rates give their exact (Boschloo, or Fisher beyond
150 runs per side) p-value of each arrangement; the other metrics give their statistic, turned
into permutation p-values by rank. A metric leaves out the runs it has no value for (unjudged
runs for the pass rate, null numbers), so its arms vary in size across arrangements.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from rapidfuzz import process
from rapidfuzz.distance import Levenshtein

from trajguard import stats as st
from trajguard.comparison._arms import Arm
from trajguard.comparison._paths import PathCells

__all__ = [
    "Component",
    "JointBuilder",
    "JointContext",
    "flag_column",
    "rate_column",
    "statistic_column",
]

FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]


@dataclass(frozen=True, kw_only=True)
class JointContext:
    """Settings one metric's joint scores need.

    Attributes:
        column: the run-table column (numeric metrics).
        floor: values below this count as this before taking logs (ratio metrics).
        two_sided: A/B mode (directional metrics test both sides).
    """

    column: str
    floor: float
    two_sided: bool


@dataclass(frozen=True, kw_only=True)
class Component:
    """One metric's p-value at every arrangement.

    Attributes:
        p: one p-value per arrangement (the observed arrangement where the caller put it).
        floor: for rates, the smallest p-value the exact test can give at these arm sizes, and
            a bound of its unconditional law (``P(P <= x) <= x``); ``None`` for permutation
            p-values, whose law the arrangements give.
    """

    p: FloatArray
    floor: float | None = None
    law: tuple[FloatArray, FloatArray] | None = None
    """For a rate whose counted runs are the same in every arrangement: the p-value of every
    possible candidate count and its hypergeometric probability, the exact permutation law."""


JointBuilder = Callable[[Arm, Arm, JointContext, BoolArray], Component]


def _rate_p(x_b: int, n_b: int, x_c: int, n_c: int, side: st.Alternative) -> float:
    if n_b == 0 or n_c == 0:
        return 1.0
    if st.boschloo_feasible(n_b, n_c):
        return st.boschloo_pvalue(x_b, n_b, x_c, n_c, side)
    return st.fisher_pvalue(x_b, n_b, x_c, n_c, side)


def _rates(
    events: BoolArray,
    counted: BoolArray,
    masks: BoolArray,
    side: st.Alternative,
    observed: tuple[int, int],
) -> Component:
    """Exact p-values of every arrangement for a rate over the ``counted`` runs; ``observed`` is
    (baseline, candidate) counted runs of the real labelling."""
    # scipy.stats when a comparison runs, not whenever its records are read (report, trend).
    from scipy import stats as sps

    weights = masks[:, counted].astype(float)
    hits = events[counted].astype(float)
    n_c = weights.sum(axis=1).astype(int)
    x_c = (weights @ hits).round().astype(int)
    total_n, total_x = int(counted.sum()), int(hits.sum())
    out = np.ones(len(masks))
    for size in np.unique(n_c):
        rows = n_c == size
        n_b = total_n - int(size)
        if n_b == 0 or size == 0:
            continue
        if st.boschloo_feasible(n_b, int(size)):
            table = st.boschloo_pvalues(n_b, int(size), side)
            out[rows] = table[total_x - x_c[rows], x_c[rows]]
        else:
            hyper = sps.hypergeom(total_n, total_x, n_b)
            x_b = total_x - x_c[rows]
            greater, less = hyper.sf(x_b - 1), hyper.cdf(x_b)
            pick = {"greater": greater, "less": less}.get(side)
            out[rows] = pick if pick is not None else np.minimum(1, 2 * np.minimum(greater, less))
    n_b_obs, n_c_obs = observed
    floor = None
    if n_b_obs and n_c_obs:
        floor = (
            st.boschloo_min_pvalue(n_b_obs, n_c_obs, side)
            if st.boschloo_feasible(n_b_obs, n_c_obs)
            else st.fisher_min_pvalue(n_b_obs, n_c_obs)
        )
    law = None
    if n_b_obs and n_c_obs and bool(counted.all()):
        # Every arrangement counts the same runs: the candidate count is hypergeometric.
        support = np.arange(max(0, total_x - n_b_obs), min(total_x, n_c_obs) + 1)
        weights = sps.hypergeom(total_n, total_x, n_c_obs).pmf(support)
        values = np.array(
            [_rate_p(total_x - int(k), n_b_obs, int(k), n_c_obs, side) for k in support]
        )
        law = (values, np.asarray(weights, dtype=float))
    return Component(p=out, floor=floor, law=law)


def rate_column(
    events: Callable[[Arm], tuple[BoolArray, BoolArray]], harmful_high: bool
) -> JointBuilder:
    """A rate metric's builder: ``events(arm)`` gives (event per run, counted per run)."""

    def build(b: Arm, c: Arm, ctx: JointContext, masks: BoolArray) -> Component:
        (eb, kb), (ec, kc) = events(b), events(c)
        side: st.Alternative = (
            "two-sided" if ctx.two_sided else ("less" if harmful_high else "greater")
        )
        observed = (int(kb.sum()), int(kc.sum()))
        return _rates(np.r_[eb, ec], np.r_[kb, kc], masks, side, observed)

    return build


def flag_column(column: str) -> JointBuilder:
    """A rate judged on some runs only (a flag column: 1, 0, or NaN where not judged)."""

    def events(arm: Arm) -> tuple[BoolArray, BoolArray]:
        values = arm.flag(column)
        return values == 1.0, ~np.isnan(values)

    return rate_column(events, harmful_high=False)


def _ranked(stat: FloatArray, directional: bool, two_sided: bool) -> Component:
    if directional and two_sided:
        return Component(p=st.two_sided_rank_pvalues(stat))
    return Component(p=st.rank_pvalues(stat))


def statistic_column(kind: str) -> JointBuilder:
    """The builder of a permutation metric: ``shift`` (steps), ``ratio`` (tokens, latency),
    ``tools`` (tool mix), ``paths`` (failing paths) or ``order`` (tool sequences)."""

    def build(b: Arm, c: Arm, ctx: JointContext, masks: BoolArray) -> Component:
        if kind in ("shift", "ratio"):
            values = np.r_[b.column(ctx.column), c.column(ctx.column)]
            keep = ~np.isnan(values)
            kept = values[keep]
            if kind == "ratio":
                kept = np.log(np.maximum(kept, ctx.floor))
            if kept.size == 0 or np.all(kept == kept[0]):
                return Component(p=np.ones(len(masks)))
            make = st.bm_statistic if kind == "shift" else st.welch_statistic
            return _ranked(make(kept)(masks[:, keep]), True, ctx.two_sided)
        if not (b.tools_recorded and c.tools_recorded):  # a side's tool use is unknown
            return Component(p=np.ones(len(masks)))
        if kind == "paths":
            found = PathCells.of((b, c))
            if not found.varies:
                return Component(p=np.ones(len(masks)))
            stat = st.rise_statistic(found.cells, found.failing)(masks)
            return _ranked(stat, False, ctx.two_sided)
        # a run whose tool use is unknown (imported without a trajectory) is missing here
        known = np.r_[b.tools_mask(), c.tools_mask()]
        if kind == "tools":
            counts = tool_matrix((*b.known_tool_counts(), *c.known_tool_counts()))
            if counts.shape[0] == 0 or np.all(counts == counts[0]):
                return Component(p=np.ones(len(masks)))
            return _ranked(st.tvd_statistic(counts)(masks[:, known]), False, ctx.two_sided)
        sequences = (*b.known_tool_sequences(), *c.known_tool_sequences())
        encoded = encode_sequences(sequences)
        if len(set(encoded)) <= 1:
            return Component(p=np.ones(len(masks)))
        distances = process.cdist(
            encoded, encoded, scorer=Levenshtein.normalized_distance, dtype=np.float64, workers=1
        )
        stat = st.distance_statistic(np.asarray(distances))(masks[:, known])
        return _ranked(stat, False, ctx.two_sided)

    return build


def tool_matrix(rows: Sequence[Mapping[str, int]]) -> FloatArray:
    """Runs x (tools + 1): calls per tool (sorted by name) and one end-of-run count per run."""
    tools = sorted({t for row in rows for t, k in row.items() if k})
    table = np.array([[float(row.get(t, 0)) for t in tools] + [1.0] for row in rows])
    return table.reshape(len(rows), len(tools) + 1)


def encode_sequences(sequences: Sequence[Sequence[str]]) -> list[str]:
    """Tool sequences as strings, one private-use character per tool (for edit distances)."""
    names = {t: chr(0xE000 + i) for i, t in enumerate(sorted({t for s in sequences for t in s}))}
    return ["".join(names[t] for t in seq) for seq in sequences]
