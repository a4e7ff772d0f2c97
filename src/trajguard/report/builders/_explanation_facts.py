"""How a changed scenario changed, from its runs: the criteria that broke, the runs that show
it, where each side's runs went (the :class:`~trajguard.results.Explanation` of the document).

The exemplar rule (docs/explanation/statistics.md §10): in a scenario that changed, the outcome
that grew on
the candidate (failing when its pass rate fell, passing when it rose, any run when it held)
picks the candidate's pool and the other outcome the baseline's (in one that did not, each
side's pool is all its runs); from each pool the medoid by tool-sequence edit distance —
the run whose tool sequence is nearest, summed, to every other run's of its pool — ties broken
by the more common sequence in the pool, then the lower run index, then batch and run id.
"""

from __future__ import annotations

import shlex
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal

import numpy as np
import pandas as pd
from rapidfuzz import process
from rapidfuzz.distance import Levenshtein

from trajguard import stats as st
from trajguard._json import loads_bounded
from trajguard.core import explain_difference
from trajguard.outcome import classify
from trajguard.report.builders._failed_criteria import CRASH_LABEL, failed_labels
from trajguard.results import CriterionShift, Exemplars, Explanation, PathShare, RateCount, RunRef

__all__ = ["explanation", "medoid", "sequence_distance"]

_TOP_PATHS = 3
SideName = Literal["baseline", "candidate"]
_SIDES: tuple[SideName, SideName] = ("baseline", "candidate")


def _encoded(sequences: Sequence[Sequence[str]]) -> list[str]:
    """Each sequence as a string, one character per tool, so that rapidfuzz's Levenshtein (C++,
    hundreds of times faster than Python's loops on a pool of a few hundred sequences) counts
    edits of whole calls."""
    codes: dict[str, str] = {}
    return ["".join(codes.setdefault(t, chr(0x100 + len(codes))) for t in s) for s in sequences]


def sequence_distance(a: Sequence[str], b: Sequence[str]) -> int:
    """Levenshtein distance between two tool sequences (insert, delete, substitute a call)."""
    first, second = _encoded([a, b])
    return int(Levenshtein.distance(first, second))


def _sequence(value: Any) -> tuple[str, ...]:
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return ()
    return tuple(str(tool) for tool in value)


def medoid(rows: pd.DataFrame) -> int | None:
    """The position (in ``rows``) of the pool's medoid by tool-sequence edit distance; ``None``
    for an empty pool.

    Ties go to the more common sequence in the pool, then to the more common set of failed
    criteria, then to the step count nearest the pool's median, then to the lower
    ``run_index``, ``batch_id`` and ``run_id``: the run most like the others, deterministically.
    """
    if rows.empty:
        return None
    sequences = [_sequence(v) for v in rows["tool_sequence"]]
    counts = Counter(sequences)
    distinct = list(counts)
    encoded = _encoded(distinct)
    distances = process.cdist(encoded, encoded, scorer=Levenshtein.distance, workers=1)
    weights = np.array([counts[s] for s in distinct], dtype=np.int64)
    summed = distances.astype(np.int64) @ weights
    cost = {s: int(total) for s, total in zip(distinct, summed, strict=True)}
    failures = [frozenset(failed_labels(row)[0]) for row in _criteria_rows(rows)]
    failure_counts = Counter(failures)
    steps = pd.to_numeric(rows["step_count"], errors="coerce").to_numpy(dtype=float)
    middle = float(np.nanmedian(steps)) if np.isfinite(steps).any() else 0.0
    spread = np.where(np.isfinite(steps), np.abs(steps - middle), np.inf)
    keys = [
        (cost[s], -counts[s], -failure_counts[f], float(d), int(index), str(batch), str(run))
        for s, f, d, index, batch, run in zip(
            sequences,
            failures,
            spread,
            rows["run_index"],
            rows["batch_id"],
            rows["run_id"],
            strict=True,
        )
    ]
    return min(range(len(keys)), key=keys.__getitem__)


def _complete(rows: pd.DataFrame) -> pd.DataFrame:
    """``rows`` with the columns an explanation reads (tables built by hand may lack some)."""
    defaults: dict[str, Any] = {
        "tool_sequence": [()] * len(rows),
        "step_count": np.nan,
        "run_index": range(len(rows)),
        "batch_id": "",
        "run_id": [f"run {i}" for i in range(len(rows))],
    }
    missing = {k: v for k, v in defaults.items() if k not in rows.columns}
    return rows.assign(**missing) if missing else rows


def _criteria_rows(rows: pd.DataFrame) -> list[dict[str, Any]]:
    """Each row's criteria columns (``criteria`` is absent from run sets written before)."""
    columns = [c for c in ("failed_criteria", "criteria") if c in rows.columns]
    return [{str(k): v for k, v in r.items()} for r in rows[columns].to_dict("records")]


def _rate(hits: int, n: int, alpha: float) -> RateCount:
    low, high = st.wilson_interval(hits, n, 1 - alpha)
    return RateCount(hits=hits, n=n, low=float(low), high=float(high))


def _criteria(
    sides: Sequence[tuple[pd.DataFrame, np.ndarray]], alpha: float
) -> tuple[tuple[CriterionShift, ...], bool]:
    """Each criterion's failures among each side's judged runs, largest move first."""
    counts: list[Counter[str]] = []
    known = True
    for rows, judged in sides:
        tally: Counter[str] = Counter()
        for row, is_judged in zip(_criteria_rows(rows), judged, strict=True):
            if not is_judged:
                continue
            labels, row_known = failed_labels(row)
            known = known and row_known
            tally.update(labels)
        counts.append(tally)
    n = [int(judged.sum()) for _, judged in sides]
    shifts = []
    for label in set(counts[0]) | set(counts[1]):
        base = _rate(counts[0][label], n[0], alpha)
        cand = _rate(counts[1][label], n[1], alpha)
        moved = (cand.hits / cand.n if cand.n else 0.0) - (base.hits / base.n if base.n else 0.0)
        shifts.append(CriterionShift(criterion=label, baseline=base, candidate=cand, moved=moved))
    shifts.sort(key=lambda s: (-abs(s.moved), s.criterion != CRASH_LABEL, s.criterion))
    return tuple(shifts), known


def _paths(
    side: SideName, rows: pd.DataFrame, *, passed: np.ndarray, judged: np.ndarray
) -> list[PathShare]:
    sequences = [_sequence(v) for v in rows["tool_sequence"]]
    counts = Counter(sequences)
    top = sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:_TOP_PATHS]
    shares = []
    for sequence, runs in top:
        mask = np.array([s == sequence for s in sequences], dtype=bool)
        shares.append(
            PathShare(
                side=side,
                sequence=sequence,
                runs=runs,
                passed=int((passed & mask).sum()),
                judged=int((judged & mask).sum()),
                share=runs / max(len(sequences), 1),
            )
        )
    return shares


def _ref(side: SideName, row: pd.Series, paths: Mapping[str, str]) -> RunRef:
    passed = row.get("passed")
    batch = str(row["batch_id"])
    return RunRef(
        run_id=str(row["run_id"]),
        side=side,
        batch_id=batch,
        run_index=int(row["run_index"]),
        passed=None if passed is None or pd.isna(passed) else bool(passed),
        sequence=_sequence(row["tool_sequence"]),
        command=shlex.join(
            ["trajguard", "show", paths.get(batch, paths[""]), "--run", str(row["run_id"])]
        ),
    )


def _trajectory(row: pd.Series) -> Mapping[str, Any] | None:
    text = row.get("trajectory")
    if not isinstance(text, str):
        return None
    try:
        value = loads_bounded(text)
    except ValueError:
        return None
    return value if isinstance(value, Mapping) else None


def _exemplars(
    sides: Sequence[tuple[pd.DataFrame, np.ndarray, np.ndarray]],
    paths: Sequence[Mapping[str, str]],
    *,
    changed: bool,
) -> Exemplars | None:
    (b_rows, b_judged, b_passed), (c_rows, c_judged, c_passed) = sides
    if b_rows.empty or c_rows.empty:
        return None
    b_rate = b_passed.sum() / max(b_judged.sum(), 1)
    c_rate = c_passed.sum() / max(c_judged.sum(), 1)
    if not changed:
        pools = (np.ones(len(b_rows), bool), np.ones(len(c_rows), bool))
        rule = (
            "the scenario did not change: the most typical run of each side (what differs "
            "between them is within the runs' own variation)"
        )
    elif c_rate < b_rate:
        pools = (b_passed, c_judged & ~c_passed)
        rule = "the most typical failing candidate run beside the most typical passing baseline run"
    elif c_rate > b_rate:
        pools = (b_judged & ~b_passed, c_passed)
        rule = "the most typical passing candidate run beside the most typical failing baseline run"
    else:
        pools = (np.ones(len(b_rows), bool), np.ones(len(c_rows), bool))
        rule = "the most typical run of each side, whose pass rates are equal"
    chosen = []
    for rows, pool in zip((b_rows, c_rows), pools, strict=True):
        if not pool.any():  # no run of that outcome: the side's most typical run
            pool = np.ones(len(rows), bool)
            rule += "; a side without such a run shows its most typical run"
        candidates = rows[pool]
        at = medoid(candidates)
        chosen.append(None if at is None else candidates.iloc[at])
    rule += "; each the medoid of its pool by tool-sequence edit distance"
    base_row, cand_row = chosen
    if base_row is None or cand_row is None:  # unreachable: neither side is empty
        return None
    base = _ref("baseline", base_row, paths[0])
    cand = _ref("candidate", cand_row, paths[1])
    shared = base.sequence == cand.sequence
    before, after = _trajectory(base_row), _trajectory(cand_row)
    diff: tuple[str, ...] = ()
    if not shared and before is not None and after is not None:
        diff = tuple(explain_difference(before, after))
    return Exemplars(rule=rule, candidate=cand, baseline=base, shared_path=shared, diff=diff)


def explanation(
    baseline: pd.DataFrame,
    candidate: pd.DataFrame,
    *,
    alpha: float,
    crash_statuses: Iterable[str],
    paths: tuple[Mapping[str, str], Mapping[str, str]],
    changed: bool = True,
) -> Explanation:
    """The explanation of one scenario from its rows on each side.

    Args:
        baseline: the baseline's rows of the scenario.
        candidate: the candidate's rows.
        alpha: the comparison's significance level (intervals at ``1 - alpha``).
        crash_statuses: statuses that count as a crash.
        paths: per side, batch id → the run set that holds the batch's runs ("" for any other
            batch), for the commands that open a run.
        changed: the scenario's verdict says it changed; if not, the exemplars are each side's
            most typical run, whatever their outcome (no contrast is drawn from noise).
    """
    sides = []
    for rows in (baseline, candidate):
        behavioural = _complete(rows[rows["status"] != "harness_error"].reset_index(drop=True))
        outcomes = classify(behavioural, crash_statuses=crash_statuses)
        sides.append((behavioural, outcomes.judged, outcomes.passed))
    criteria, known = _criteria([(rows, judged) for rows, judged, _ in sides], alpha)
    return Explanation(
        criteria=criteria,
        criteria_known=known,
        exemplars=_exemplars(sides, paths, changed=changed),
        paths=tuple(
            share
            for side, (rows, judged, passed) in zip(_SIDES, sides, strict=True)
            for share in _paths(side, rows, passed=passed, judged=judged)
        ),
    )
