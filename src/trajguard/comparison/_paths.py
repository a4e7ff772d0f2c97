"""Failing paths of one scenario: did the runs start failing one particular way?

A run's **path** is the tool it called most (ties go to the first name), or "no tool"; with its
outcome (passed, or failed: a crash is a failure) that makes its cell. Unjudged runs have no
outcome and count in no cell. A broken prompt typically sends the agent down one wrong path
where it fails (the weather_bot edit: calls to ``get_weather``, then a wrong answer): failures
pile up in one cell. The pass rate sees that diluted by every other run, and the tool mix sees
the path without the outcome; this metric sees both at once.

The statistic is the largest standardised rise of a failing cell's share of the judged runs
(:func:`trajguard.stats.rise_statistic`), permuted over whole runs, so not knowing in advance
which path breaks costs what it should. The effect is that cell's rise in points, banded by
``failing_paths``; "unchanged" needs every failing cell's share equivalent within the band
(score TOST per cell, the largest p-value).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from trajguard import stats as st
from trajguard.comparison._evaluation import (
    Evaluation,
    Resampling,
    Summary,
    design_min,
    one_sided_permutation,
    untestable,
)

if TYPE_CHECKING:  # run_path is read by the store of nights without the arms (and pandas)
    from trajguard.comparison._arms import Arm

__all__ = ["NO_TOOL", "PathCells", "evaluate_failing_paths", "run_path"]

FloatArray = npt.NDArray[np.float64]
NO_TOOL = "no tool"
EFFECT = (
    "largest rise of the share of judged runs that failed along one path (the tool a run "
    "called most, or no tool)"
)


def run_path(counts: Mapping[str, int]) -> str:
    """The tool a run called most (ties: the first by name), or :data:`NO_TOOL`."""
    used = {tool: k for tool, k in counts.items() if k > 0}
    if not used:
        return NO_TOOL
    most = max(used.values())
    return min(tool for tool, k in used.items() if k == most)


@dataclass(frozen=True, kw_only=True)
class PathCells:
    """The runs of some arms (in order) by cell: one-hot over the judged runs.

    Attributes:
        cells: runs x cells, 1 where the run fell; rows of unjudged runs, and of runs whose
            tool use is unknown, are zero.
        failing: columns of the failing cells.
        paths: the path of each column.
    """

    cells: FloatArray
    failing: tuple[int, ...]
    paths: tuple[str, ...]

    @classmethod
    def of(cls, arms: Sequence[Arm]) -> PathCells:
        """The cells of the runs of ``arms``, in order."""
        paths = [run_path(counts) for arm in arms for counts in arm.tool_counts]
        # a run whose path is unknown (imported without a trajectory) is in no cell
        judged = np.concatenate([arm.judged_runs & arm.tools_mask() for arm in arms]).astype(bool)
        passed = np.concatenate([arm.passed_runs for arm in arms]).astype(bool)
        keys = [(path, bool(ok)) for path, ok in zip(paths, passed, strict=True)]
        columns = sorted({key for key, counted in zip(keys, judged, strict=True) if counted})
        index = {key: i for i, key in enumerate(columns)}
        cells = np.zeros((len(keys), len(columns)))
        rows = np.flatnonzero(judged)
        cells[rows, [index[keys[r]] for r in rows]] = 1.0
        return cls(
            cells=cells,
            failing=tuple(i for i, (_, ok) in enumerate(columns) if not ok),
            paths=tuple(path for path, _ in columns),
        )

    @property
    def varies(self) -> bool:
        """Some failing cell holds some but not all judged runs (else nothing can rise)."""
        share = self.cells.sum(axis=0)
        total = share.sum()
        return any(0 < share[k] < total for k in self.failing)


def _summary(found: PathCells, rows: slice) -> Summary:
    part = found.cells[rows]
    n = int(part.sum())
    detail = tuple(
        (found.paths[k], float(part[:, k].sum() / n) if n else 0.0) for k in found.failing
    )
    failed = sum(part[:, k].sum() for k in found.failing)
    return Summary(n=n, mean=float(failed / n) if n else None, detail=detail)


def _equivalence(found: PathCells, n_b: int, margin: float) -> float:
    """The largest score-TOST p-value over the failing cells (1.0 with no judged runs)."""
    base, cand = found.cells[:n_b], found.cells[n_b:]
    nb, nc = int(base.sum()), int(cand.sum())
    if nb == 0 or nc == 0:
        return 1.0
    if not found.failing:  # no run failed: the one claim is "no failing path rose", 0 of n each
        return st.tost_rates(0, nc, 0, nb, margin)
    return max(
        st.tost_rates(int(cand[:, k].sum()), nc, int(base[:, k].sum()), nb, margin)
        for k in found.failing
    )


def evaluate_failing_paths(
    b: Arm,
    c: Arm,
    *,
    margin: float,
    rng: np.random.Generator | st.Arrangements,
    resampling: Resampling,
) -> Evaluation:
    """Failing paths: run-level permutation of the largest standardised rise of a failing
    cell's share; the effect is that cell's rise, ``margin`` (``failing_paths``) bounds it."""
    found = PathCells.of((b, c))
    base = _summary(found, slice(0, b.runs))
    cand = _summary(found, slice(b.runs, b.runs + c.runs))
    if base.n == 0 or cand.n == 0:
        side = "baseline" if base.n == 0 else "candidate"
        note = f"no judged run in the {side} batch: no outcome to follow, not tested"
        return replace(untestable(base, cand, EFFECT, tost=True), notes=(note,))
    if not found.varies:
        return Evaluation(
            baseline=base,
            candidate=cand,
            effect=EFFECT,
            estimate=0.0,
            ci=None,
            test="none (nothing can rise)",
            harm=1.0,
            benefit=1.0,
            min_harm=design_min(b.runs, c.runs),
            min_benefit=1.0,
            tost=_equivalence(found, b.runs, margin),
            outside=False,
            identical=True,
            notes=("every judged run passed, or every one failed along the same path",),
        )
    res = st.permutation_test(
        st.rise_statistic(found.cells, found.failing), b.runs, c.runs, rng=rng, **vars(resampling)
    )
    observed = np.r_[np.zeros(b.runs, dtype=bool), np.ones(c.runs, dtype=bool)]
    column, rise = st.largest_rise(found.cells, found.failing, observed)
    share_b = dict(base.detail)[found.paths[column]]
    share_c = dict(cand.detail)[found.paths[column]]
    return one_sided_permutation(
        res,
        test="largest-rise permutation over runs",
        baseline=base,
        candidate=cand,
        effect=EFFECT,
        estimate=rise,
        margin=margin,
        tost=_equivalence(found, b.runs, margin),
        notes=(
            f"runs that failed along {found.paths[column]}: {share_b:.0%} → {share_c:.0%} of "
            f"the judged runs (the largest rise; {len(found.failing)} failing path(s) watched)",
        ),
    )
