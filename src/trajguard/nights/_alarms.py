"""The trend's alarms: every scenario's pass, crash and path counts as streams of one suite
(:mod:`trajguard.nights._streams`), run through the CUSUMs of :mod:`trajguard.nights._monitor`
under one false-alarm rate, each alarm dated and shaped (a step at its start, or a drift from
its onset with its slope)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from trajguard.nights._detection import drop_named, runs_for
from trajguard.nights._monitor import (
    ALLOWANCE,
    TARGET_ARL,
    WARMUP,
    Raised,
    cusum,
    flaky_extra,
    stream_arl,
)
from trajguard.nights._streams import Counts, Key, Streams, streams_of
from trajguard.results import Monitoring, TrendAlarm, TrendPoint

__all__ = ["Shape", "monitor", "shape_end", "shape_of"]

Floats = NDArray[np.float64]

FLOOR = 0.05
"""The least rate (and most, from 1) a night's weight is computed at: a fitted rate of 0 would
give its nights infinite weight."""

METHOD = "self-starting CUSUM on the arcsine scale, per scenario, metric and path"


@dataclass(frozen=True, kw_only=True)
class Shape:
    """What the nights of an alarm look like.

    Attributes:
        start: the first night of the change (index into the nights given).
        drift: a slide from ``start`` fits better than a step at it.
        before: the rate before ``start``.
        after: a step's rate from ``start`` on, or a drift's fitted rate on the last night.
        slope: a drift's change per night (``None``: a step).
    """

    start: int
    drift: bool
    before: float
    after: float
    slope: float | None


def _line_fits(r: Floats, w: Floats, z: Floats) -> tuple[Floats, Floats]:
    """Each row of ``z`` as the second column of a weighted least-squares line ``a + b z``
    through ``r``: every row's weighted sum of squares and its coefficients ``(a, b)``. The closed
    form on ``z`` centred at its weighted mean (every row holds two distinct values, so no line
    is degenerate); one array operation for all the breakpoints."""
    total = w.sum()
    mean_r = float(w @ r) / total
    mean_z = (z @ w) / total
    centred = z - mean_z[:, None]
    b = (centred * w) @ (r - mean_r) / ((centred * centred) @ w)
    a = mean_r - b * mean_z
    resid = r - a[:, None] - b[:, None] * z
    return (resid * resid) @ w, np.c_[a, b]


def _best_fit(r: Floats, t: Floats, w: Floats) -> tuple[float, int, bool, Floats]:
    """The best step (at night ``j`` >= 1) or broken line (flat to ``j``, then a slope), in that
    order, a later shape winning only by more than 1e-12: ``(ss, j, drift, coef)``."""
    nights = len(r)
    steps = (np.arange(nights) >= np.arange(1, nights)[:, None]).astype(np.float64)
    ramps = np.maximum(0.0, t - t[: max(nights - 2, 0), None])
    ss, coef = _line_fits(r, w, np.r_[steps, ramps])
    shapes = [(j, False) for j in range(1, nights)] + [(j, True) for j in range(nights - 2)]
    best = 0
    for k in range(1, len(shapes)):
        if ss[k] < ss[best] - 1e-12:
            best = k
    j, drift = shapes[best]
    return float(ss[best]), j, drift, np.asarray(coef[best], np.float64)


def _fitted(r: Floats, t: Floats, fit: tuple[float, int, bool, Floats]) -> Floats:
    _, j, drift, coef = fit
    if drift:
        return np.asarray(coef[0] + coef[1] * np.maximum(0.0, t - t[j]), np.float64)
    return np.asarray(coef[0] + coef[1] * (np.arange(len(r)) >= j), np.float64)


def shape_of(passes: Floats, runs: Floats) -> Shape:
    """The best single step and the best broken line (flat, then a slope) through the nights'
    rates, the step winning ties: least squares weighted by each night's binomial precision
    ``runs / (p (1 - p))`` at the rate of a first fit weighted by runs (a night near 0 or 1
    varies less, and says more about where a slide began). Needs at least 2 nights."""
    x, n = np.asarray(passes, np.float64), np.asarray(runs, np.float64)
    keep = n > 0
    x, n, idx = x[keep], n[keep], np.flatnonzero(keep)
    r, t = x / n, idx.astype(np.float64)
    if len(r) < 2:
        return Shape(
            start=int(idx[0]), drift=False, before=float(r[0]), after=float(r[0]), slope=None
        )
    first = _best_fit(r, t, n)
    level = np.clip(_fitted(r, t, first), FLOOR, 1 - FLOOR)
    _, j, drift, coef = _best_fit(r, t, n / (level * (1 - level)))
    if drift:
        return Shape(
            start=int(idx[j]),
            drift=True,
            before=float(coef[0]),
            after=float(coef[0] + coef[1] * (t[-1] - t[j])),
            slope=float(coef[1]),
        )
    return Shape(
        start=int(idx[j]),
        drift=False,
        before=float(coef[0]),
        after=float(coef[0] + coef[1]),
        slope=None,
    )


def shape_end(raised: Sequence[Raised], i: int, nights: int) -> int:
    """The last night alarm ``i`` is shaped on: every night of its regime seen so far, so a
    drift read later is told with all its nights. A slide keeps raising alarms the same way
    (each restart's reference is soon left behind again), so the regime runs up to the night
    before its stream's next alarm the other way, or the newest night."""
    this = raised[i]
    later = [r.night for r in raised[i + 1 :] if r.stream == this.stream and r.rise != this.rise]
    return (later[0] - 1) if later else nights - 1


def _counts(points: Sequence[TrendPoint | None]) -> Counts:
    def of(value: Callable[[TrendPoint], float]) -> Floats:
        return np.array([value(p) if p is not None else 0.0 for p in points], np.float64)

    recorded = [p for p in points if p is not None and p.paths is not None]
    names = sorted({name for p in recorded for name in p.paths or {}})

    def by(name: str, failing: bool) -> Floats:
        return of(lambda p: float(((p.failing_paths if failing else p.paths) or {}).get(name, 0)))

    return Counts(
        runs=of(lambda p: p.runs),
        passes=of(lambda p: p.passes),
        crashes=of(lambda p: round(p.crash_rate * p.runs)),
        paths={name: by(name, False) for name in names},
        failing={name: by(name, True) for name in names},
    )


def _gained(counts: Counts, path: str, lo: int, start: int, upto: int) -> str | None:
    """The path whose share of the runs rose most from the nights before ``start`` to the
    nights from it (``None``: none rose)."""
    taken = np.sum(list(counts.paths.values()), axis=0)
    before, after = taken[lo:start].sum(), taken[start : upto + 1].sum()
    if not before or not after:
        return None
    rises = {
        name: x[start : upto + 1].sum() / after - x[lo:start].sum() / before
        for name, x in counts.paths.items()
        if name != path
    }
    best = max(rises, key=lambda name: rises[name], default=None)
    return best if best is not None and rises[best] > 0 else None


def _alarm(
    raised: Raised,
    key: Key,
    streams: Streams,
    counts: Counts,
    nights: Sequence[tuple[str, str]],
    *,
    upto: int,
) -> TrendAlarm:
    lo, x, n = raised.since, streams.passes[raised.stream], streams.runs[raised.stream]
    shape = shape_of(x[lo : upto + 1], n[lo : upto + 1])
    start = lo + shape.start
    rise = raised.rise
    moved = key.metric == "tool_usage"
    return TrendAlarm(
        metric=key.metric,
        direction="moved" if moved else "rise" if rise else "drop",
        shape="drift" if shape.drift else "step",
        # every stream but the pass rate's rise watches for harm (what the nightly gates on)
        harmful=key.metric != "pass_rate" or not rise,
        raised=nights[raised.night][0],
        raised_night_id=nights[raised.night][1],
        raised_index=raised.night,
        start=nights[start][0],
        start_night_id=nights[start][1],
        start_index=start,
        before=shape.before,
        after=shape.after,
        slope=shape.slope,
        statistic=raised.statistic,
        threshold=raised.threshold,
        path=key.path,
        gained=_gained(counts, key.path, lo, start, upto) if moved and key.path else None,
    )


def monitor(
    series: Sequence[Sequence[TrendPoint | None]], nights: Sequence[tuple[str, str]]
) -> tuple[Monitoring, list[tuple[TrendAlarm, ...]]]:
    """Every scenario's alarms (``series``: per scenario, its point on each of the suite's
    ``nights`` (date, night id), ``None`` where it did not run) and the procedure's figures."""
    counts = [_counts(points) for points in series]
    streams = streams_of(counts, len(nights))
    h = streams.drop_threshold
    judged = [p.runs for points in series for p in points if p is not None and p.runs > 0]
    runs = round(float(np.median(judged))) if judged else 0
    figures = Monitoring(
        method=METHOD,
        statistics=streams.statistics,
        threshold=h,
        flaky_extra=flaky_extra(h),
        allowance=ALLOWANCE,
        target_arl=TARGET_ARL,
        statistic_arl=stream_arl(h),
        warmup=WARMUP,
        path_statistics=streams.path_statistics,
        path_threshold=streams.path_threshold,
        rise_threshold=streams.rise_threshold,
        runs=runs,
        drop_named=drop_named(h, runs),
        runs_for_target=runs_for(h),
    )
    found: list[list[TrendAlarm]] = [[] for _ in series]
    if not streams.keys or not nights:
        return figures, [tuple(a) for a in found]
    path = cusum(
        streams.passes,
        streams.runs,
        h=streams.h,
        h_up=streams.h_up,
        sides=streams.sides,
        pool=streams.pool,
        allowance=streams.allowance,
    )
    for i, raised in enumerate(path.raised):
        key = streams.keys[raised.stream]
        upto = shape_end(path.raised, i, len(nights))
        alarm = _alarm(raised, key, streams, counts[key.scenario], nights, upto=upto)
        found[key.scenario].append(alarm)
    return figures, [tuple(a) for a in found]
