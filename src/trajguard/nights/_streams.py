"""The streams the trend watches: per scenario, the pass rate (drops and rises), the crash rate
(rises) and, when its runs took two paths or more, each path's share of the runs (drops: the
tool mix moved) and the share failing along it (rises) — every gating metric the nightly
compares, as counts of runs out of runs — with each statistic's threshold from its part of the
suite's false-alarm rate."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from trajguard.nights._monitor import threshold

__all__ = [
    "PATH_ALLOWANCE",
    "PATH_WEIGHT",
    "RISE_EXCESS",
    "RISE_WEIGHT",
    "Counts",
    "Key",
    "Streams",
    "streams_of",
]

Floats = NDArray[np.float64]

RISE_WEIGHT = 0.25
"""A pass-rate rise's and a crash-rate rise's part of the suite's false-alarm rate, in
pass-rate drops: a drop is what the trend is for (a 20-point drop at 20 runs a night is 1.5 to
2.5 standard deviations of a night, and 5 nights must name it), a rise is good news, and a
crash rate that matters moves far (a crash is a rare outcome at a demo's rates)."""

RISE_EXCESS = 1.8
"""How many times the line's false-alarm rate a pass-rate rise's statistic raises at its higher
threshold (measured: its A/A run length 6,460 and 6,640 nights against the line's 11,680, 500
suites of 4 scenarios x 365 nights, resampled real and simulated; a drop's matched the line,
2,874 against 2,920): its threshold is read off the line at that many times its ARL, so its
part of the suite's rate is what it spends. A crash-rate rise takes the same threshold."""

PATH_WEIGHT = 0.125
"""A path statistic's part of the suite's false-alarm rate, in pass-rate drops: a tool mix
that matters moves far (the calculator gone is its whole share), so its statistics take a
higher threshold and leave the pass rate most of the budget."""

PATH_ALLOWANCE = 3.0
"""Flaky allowances a path statistic's threshold takes at most (a pass rate's takes one): a
path's share of the runs, or of the failing runs, varies from night to night with the tool mix
as well as the outcome, and a small share's nights are skewed upwards."""

METRICS = ("pass_rate", "crash_rate", "tool_usage", "failing_paths")
"""The metrics, in the order of their pools (a pool's streams share their spread's prior)."""


@dataclass(frozen=True, kw_only=True)
class Counts:
    """One scenario's nights as counts (arrays over the suite's nights; 0 runs: no night).

    Attributes:
        runs: judged runs.
        passes: runs that passed.
        crashes: runs that crashed.
        paths: path → judged runs with recorded tool use that took it.
        failing: path → those of them that failed.
    """

    runs: Floats
    passes: Floats
    crashes: Floats
    paths: Mapping[str, Floats] = field(default_factory=dict)
    failing: Mapping[str, Floats] = field(default_factory=dict)


@dataclass(frozen=True)
class Key:
    """What a stream watches: the scenario (its index), the metric, the path (or ``None``)."""

    scenario: int
    metric: str
    path: str | None = None


@dataclass(frozen=True, kw_only=True)
class Streams:
    """Every stream of a suite, ready for :func:`trajguard.nights._monitor.cusum`.

    Attributes:
        keys: what each row watches.
        passes: successes (streams x nights).
        runs: trials.
        sides: -1 drops, +1 rises, 0 both.
        pool: the pool of each row (one metric's streams).
        h: each row's drop threshold.
        h_up: each row's rise threshold.
        allowance: each row's flaky allowances (:data:`PATH_ALLOWANCE` for a path).
        weight: the suite's statistics in pass-rate drops (a rise counts :data:`RISE_WEIGHT`,
            a path statistic :data:`PATH_WEIGHT`).
        statistics: one-sided statistics.
        path_statistics: how many of them watch paths.
    """

    keys: tuple[Key, ...]
    passes: Floats
    runs: Floats
    sides: NDArray[np.int64]
    pool: NDArray[np.int64]
    h: Floats
    h_up: Floats
    allowance: Floats
    weight: float
    statistics: int
    path_statistics: int

    @property
    def drop_threshold(self) -> float:
        """The threshold of a pass-rate drop's statistic."""
        return threshold(self.weight)

    @property
    def rise_threshold(self) -> float:
        """The threshold of a pass-rate rise's or a crash-rate rise's statistic."""
        return threshold(self.weight * RISE_EXCESS / RISE_WEIGHT)

    @property
    def path_threshold(self) -> float | None:
        """The threshold of a path statistic (``None``: none watched)."""
        return threshold(self.weight / PATH_WEIGHT) if self.path_statistics else None


def _rows(c: Counts, s: int) -> list[tuple[Key, Floats, Floats, int]]:
    rows = [
        (Key(s, "pass_rate"), c.passes, c.runs, 0),
        (Key(s, "crash_rate"), c.crashes, c.runs, 1),
    ]
    if len(c.paths) >= 2:
        taken = np.sum([c.paths[p] for p in c.paths], axis=0)
        for p in sorted(c.paths):
            rows.append((Key(s, "tool_usage", p), c.paths[p], taken, -1))
        for p in sorted(c.paths):
            rows.append((Key(s, "failing_paths", p), c.failing.get(p, 0 * taken), taken, 1))
    return rows


def streams_of(suite: Sequence[Counts], nights: int) -> Streams:
    """The streams of a suite's scenarios (a scenario whose runs took one path has no path
    streams: its failing runs are its failures, watched by the pass rate)."""
    rows = [row for s, c in enumerate(suite) for row in _rows(c, s)]
    keys = tuple(r[0] for r in rows)
    sides = np.array([r[3] for r in rows], np.int64)
    paths = np.array([k.path is not None for k in keys], bool)
    drop_part = np.where(paths, PATH_WEIGHT, np.where(sides <= 0, 1.0, 0.0))
    rise_part = np.where(paths, PATH_WEIGHT, RISE_WEIGHT)
    weight = float(
        np.sum(np.where(sides <= 0, drop_part, 0.0) + np.where(sides >= 0, rise_part, 0.0))
    )
    drop_h, path_h = threshold(weight), threshold(weight / PATH_WEIGHT)
    rise_h = threshold(weight * RISE_EXCESS / RISE_WEIGHT)
    h_down = np.where(paths, path_h, np.where(sides > 0, rise_h, drop_h))
    h_up = np.where(paths, path_h, np.where(sides < 0, drop_h, rise_h))
    one_sided = np.where(sides == 0, 2, 1)
    empty = np.zeros((0, nights))
    return Streams(
        keys=keys,
        passes=np.vstack([r[1] for r in rows]) if rows else empty,
        runs=np.vstack([r[2] for r in rows]) if rows else empty,
        sides=sides,
        pool=np.array([METRICS.index(k.metric) for k in keys], np.int64),
        h=h_down.astype(np.float64),
        h_up=h_up.astype(np.float64),
        allowance=np.where(paths, PATH_ALLOWANCE, 1.0).astype(np.float64),
        weight=weight,
        statistics=int(one_sided.sum()),
        path_statistics=int(one_sided[paths].sum()),
    )
