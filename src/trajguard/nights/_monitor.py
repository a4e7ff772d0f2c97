"""The trend's alarm: a self-starting one-sided CUSUM per scenario, metric and direction, run
night by night from the first night of the series, with one threshold for the whole suite.

A night's rate ``x / n`` is put on Anscombe's arcsine scale (variance ``1 / (4 n)`` under
binomial noise, finite at 0 and 1); each night is standardised against the nights since the
stream's last restart (their weighted mean, and their spread beyond binomial noise, never below
it; a spread estimated from few nights read as Student's t), and the standardised residuals
feed two CUSUMs (a drop, a rise). A CUSUM above :func:`threshold` (plus :func:`flaky_extra` for
a flaky stream) raises an alarm; the stream then restarts after its CUSUM's last zero. Same
nights in, same alarms out: a night's report extends the path, it does not re-test the window.
Values in, values out (numpy); the threshold line is measured by
``benchmarks/bench_trend_monitor.py`` (RESULTS.md, "The trend's monitoring procedure").
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy.stats import norm
from scipy.stats import t as student_t

__all__ = [
    "ALLOWANCE",
    "MARGIN",
    "PRIOR_NIGHTS",
    "TARGET_ARL",
    "WARMUP",
    "Path",
    "Raised",
    "arcsine",
    "cusum",
    "flaky_extra",
    "stream_arl",
    "threshold",
]

Floats = NDArray[np.float64]

TARGET_ARL = 365.0
"""Nights an unchanged suite runs, on average, between two false alarms of any stream."""

ALLOWANCE = 0.75
"""The CUSUMs' reference value ``k`` in standard deviations of a night (tuned to a 20-point
step at 20 runs a night, about 1.5 to 2.5 of them on the arcsine scale)."""

WARMUP = 3
"""Nights a stream needs since its (re)start before its next night is judged."""

TAIL_CORRECTION = True
"""Read a night whose spread was estimated (beyond binomial) as Student's t (see
:func:`_normal_score`)."""

HOLD_OUT = 0.0
"""A night joins the reference once the CUSUMs stand at or below this after it (or once it is
:data:`HELD` nights old): a change's first nights do not dilute the reference they are judged
against."""

HELD = 2
"""Nights the reference waits at most for a night under suspicion."""

PRIOR_NIGHTS = 4.0
"""Weight, in nights, of the pool's spread (the suite's streams of the metric) in the estimate
of a stream's own: a model flaky in one scenario is flaky in others, and a stream's first few
nights say little about its spread; the estimate never goes below binomial noise."""

LOG_ARL_AT_4 = 3.20
"""log10 of one statistic's in-control ARL at threshold 4: binomial nights of 20 runs,
demo-shaped pass rates (20-45 %) with a crash rate of 0-3 %, series of 365 nights from their
first night (``benchmarks/bench_trend_monitor.py``, RESULTS.md)."""

LOG_ARL_PER_UNIT = 0.70
"""How much that log10 grows per unit of threshold (measured at 4, 5, 6 and 7 on suites of 4
and 20 scenarios; CUSUM run lengths grow exponentially in the threshold)."""

MARGIN = 0.10
"""Added to the line's threshold so the suite's in-control ARL stays above :data:`TARGET_ARL`
with the simulation's interval in every measured case (suites of 4 and 20 scenarios, binomial,
intra-night correlation 0.1 and 0.2, resampled real nights): a drop's statistic at the
20-scenario suite's threshold false-alarmed more often than the line says, so the line alone
put that suite at 373 nights (344-405). Calibrated by ``bench_trend_monitor.py --offsets``
(RESULTS.md, "issue 36: the targets at the stated N")."""

FLAKY_SPREAD = 3.8
"""Excess spread (the nights' variance over binomial noise, minus 1) at which a stream gets the
whole flaky allowance (:func:`flaky_extra`); a share of it below (beta-binomial nights of 20
runs: about 1.9 at intra-night correlation 0.1, 3.8 at 0.2)."""


FLAKY_AT_4 = 0.70
"""The flaky allowance at a suite threshold of 4."""

FLAKY_PER_UNIT = 0.65
"""How much it grows per unit of the suite's threshold."""


def flaky_extra(h: float) -> float:
    """The threshold a stream of flaky nights adds to the suite's ``h``: their tails are heavier
    than the standardisation assumes, more so the further out the threshold (measured on suites
    of 4 and 20 scenarios at rho 0.1 and 0.2: 0.62 at a suite threshold of 4.39, 1.27 at
    5.39)."""
    return max(0.3, FLAKY_AT_4 + FLAKY_PER_UNIT * (h - 4.0))


def stream_arl(h: float) -> float:
    """One one-sided statistic's in-control ARL at threshold ``h`` (binomial nights)."""
    return float(10 ** (LOG_ARL_AT_4 + LOG_ARL_PER_UNIT * (h - 4.0)))


def threshold(statistics: float, *, target: float = TARGET_ARL) -> float:
    """The threshold that gives a suite of ``statistics`` one-sided CUSUMs an in-control ARL of
    ``target`` nights: each gets ``statistics * target`` (false alarms of independent streams
    add up), read off the measured line, plus :data:`MARGIN`. ``statistics`` may be
    fractional: a statistic with a smaller part of the suite's rate counts as one of a suite of
    ``statistics / part``."""
    want = math.log10(max(statistics, 1) * target)
    return 4.0 + (want - LOG_ARL_AT_4) / LOG_ARL_PER_UNIT + MARGIN


def arcsine(x: Floats, n: Floats) -> Floats:
    """Anscombe's arcsine transform of ``x`` successes in ``n`` trials."""
    with np.errstate(divide="ignore", invalid="ignore"):
        y = np.arcsin(np.sqrt((x + 3 / 8) / (n + 3 / 4)))
    return np.asarray(np.where(n > 0, y, 0.0), dtype=np.float64)


def _normal_score(z: Floats, phi: Floats, m: Floats) -> Floats:
    """``z`` as a normal score: unchanged where the spread is binomial noise (known), else read
    as Student's t (Hawkins' self-starting CUSUM) on Satterthwaite's degrees of freedom of a
    variance that is 1 part known and ``phi - 1`` parts estimated from ``m - 1``, so a flaky
    stream's first nights do not alarm on its own noise."""
    if not TAIL_CORRECTION:
        return z
    estimated = (phi > 1.0) & (m > 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        df = np.maximum(m - 1, 1.0) * np.square(phi / np.maximum(phi - 1, 1e-9))
    df = np.minimum(df, 1e6)
    with np.errstate(invalid="ignore"):
        score = np.sign(z) * norm.isf(student_t.sf(np.abs(z), df))
    return np.asarray(np.where(estimated, np.clip(score, -8.0, 8.0), z), dtype=np.float64)


@dataclass(frozen=True, kw_only=True)
class Raised:
    """One alarm of one stream.

    Attributes:
        stream: the stream's row.
        night: the night (column) it was raised.
        rise: a rise of the rate (else a drop).
        since: the first night of the reference the CUSUM ran against (its last restart).
        last_zero: the last night the CUSUM stood at 0 before it climbed.
        statistic: the CUSUM's value.
        threshold: the threshold it crossed (the suite's, plus the flaky allowance).
    """

    stream: int
    night: int
    rise: bool
    since: int
    last_zero: int
    statistic: float
    threshold: float


@dataclass(frozen=True, kw_only=True)
class Path:
    """The CUSUMs of every stream, night by night.

    Attributes:
        down: the drop CUSUM (streams x nights; NaN before a stream is judged).
        up: the rise CUSUM.
        raised: every alarm, in the order raised.
    """

    down: Floats
    up: Floats
    raised: tuple[Raised, ...]


def cusum(
    passes: Floats,
    runs: Floats,
    *,
    h: float | Floats,
    h_up: float | Floats | None = None,
    sides: NDArray[np.int64] | None = None,
    k: float = ALLOWANCE,
    restart: bool = True,
    pool: NDArray[np.int64] | None = None,
    allowance: Floats | None = None,
) -> Path:
    """Run the CUSUMs of streams (rows) over nights (columns).

    Args:
        passes: successes per stream and night.
        runs: trials per stream and night (0: the stream has no night then; skipped).
        h: the suite's threshold (:func:`threshold`), or one per stream; flaky streams get up
            to :func:`flaky_extra` of it more.
        h_up: the rise CUSUM's threshold, when it differs from the drop's (a statistic with a
            smaller part of the suite's false-alarm rate; default: ``h``).
        sides: per stream, -1 (watch drops only), +1 (rises only) or 0 (both).
        k: the reference value.
        restart: after an alarm, restart the stream from its CUSUM's last zero (else it stops).
        pool: per stream, the pool whose streams' spread is the prior of its own (one suite's
            streams of one metric; default: all one pool).
        allowance: per stream, how many flaky allowances its threshold takes at most (default
            1 each).
    """
    x, n = np.atleast_2d(passes).astype(np.float64), np.atleast_2d(runs).astype(np.float64)
    streams, nights = x.shape
    side = np.zeros(streams, np.int64) if sides is None else np.asarray(sides, np.int64)
    y, w = arcsine(x, n), 4.0 * n
    present = (n > 0).astype(np.float64)
    zero = np.zeros((streams, 1))
    c_w = np.hstack([zero, np.cumsum(w, axis=1)])
    c_wy = np.hstack([zero, np.cumsum(w * y, axis=1)])
    c_wyy = np.hstack([zero, np.cumsum(w * y * y, axis=1)])
    c_m = np.hstack([zero, np.cumsum(present, axis=1)])
    rows = np.arange(streams)
    group = np.zeros(streams, np.int64) if pool is None else np.asarray(pool, np.int64)
    pools = int(group.max()) + 1 if streams else 1
    hs = np.broadcast_to(np.asarray(h, np.float64), (streams,))
    hs_up = hs if h_up is None else np.broadcast_to(np.asarray(h_up, np.float64), (streams,))
    extra = np.array([flaky_extra(float(v)) for v in hs])
    extra_up = np.array([flaky_extra(float(v)) for v in hs_up])
    if allowance is not None:
        extra = extra * np.asarray(allowance, np.float64)
        extra_up = extra_up * np.asarray(allowance, np.float64)
    start = np.zeros(streams, np.int64)
    end = np.zeros(streams, np.int64)
    live = np.ones(streams, bool)
    s_dn, s_up = np.zeros(streams), np.zeros(streams)
    z_dn, z_up = np.full(streams, -1), np.full(streams, -1)
    out_dn, out_up = np.full((streams, nights), np.nan), np.full((streams, nights), np.nan)
    raised: list[Raised] = []
    for t in range(nights):
        m = c_m[rows, end] - c_m[rows, start]
        sw = c_w[rows, end] - c_w[rows, start]
        swy = c_wy[rows, end] - c_wy[rows, start]
        swyy = c_wyy[rows, end] - c_wyy[rows, start]
        here = live & (n[:, t] > 0)
        active = here & (m >= WARMUP)
        # the reference: the nights up to the last one both CUSUMs stood at 0 (a night under
        # suspicion joins it only once its CUSUM is back at 0), so a change does not dilute it
        if not active.any():
            end = np.where(here, t + 1, end)
            continue
        with np.errstate(divide="ignore", invalid="ignore"):
            mean = swy / sw
            ss = np.where(m > 1, swyy - sw * mean * mean, 0.0)
            df = np.maximum(m - 1, 0.0)
            # the suite's spread (per pool) is the prior of each stream's own
            pooled = np.bincount(group, np.where(active, ss, 0.0), pools) / np.maximum(
                np.bincount(group, np.where(active, df, 0.0), pools), 1.0
            )
            prior = np.maximum(1.0, pooled[group])
            phi = np.maximum(1.0, (PRIOR_NIGHTS * prior + ss) / (PRIOR_NIGHTS + df))
            z = (y[:, t] - mean) / np.sqrt(phi * (1 / w[:, t] + 1 / sw))
        z = np.where(active, _normal_score(z, phi, m), 0.0)
        flaky = np.clip((phi - 1) / FLAKY_SPREAD, 0.0, 1.0)
        limit, limit_up = hs + extra * flaky, hs_up + extra_up * flaky
        s_dn = np.where(active & (side <= 0), np.maximum(0.0, s_dn - z - k), s_dn)
        s_up = np.where(active & (side >= 0), np.maximum(0.0, s_up + z - k), s_up)
        z_dn = np.where(active & (s_dn == 0), t, z_dn)
        z_up = np.where(active & (s_up == 0), t, z_up)
        out_dn[:, t] = np.where(active, s_dn, np.nan)
        out_up[:, t] = np.where(active, s_up, np.nan)
        calm = np.maximum(s_dn, s_up) <= HOLD_OUT
        end = np.where((here & ~active) | (active & calm), t + 1, np.maximum(end, t + 1 - HELD))
        for r in np.flatnonzero(active & ((s_dn > limit) | (s_up > limit_up))):
            rise = bool(s_up[r] > limit_up[r] and s_up[r] / limit_up[r] >= s_dn[r] / limit[r])
            last = int(z_up[r] if rise else z_dn[r])
            raised.append(
                Raised(
                    stream=int(r),
                    night=t,
                    rise=rise,
                    since=int(start[r]),
                    last_zero=last,
                    statistic=float(s_up[r] if rise else s_dn[r]),
                    threshold=float(limit_up[r] if rise else limit[r]),
                )
            )
            s_dn[r] = s_up[r] = 0.0
            z_dn[r] = z_up[r] = t
            if restart:
                start[r] = max(last + 1, int(start[r]))
                end[r] = t + 1
            else:
                live[r] = False
    return Path(down=out_dn, up=out_up, raised=tuple(raised))
