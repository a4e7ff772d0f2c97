"""The trend's alarm: a self-starting one-sided CUSUM per scenario, metric and direction, run
night by night from the first night of the series, with one threshold for the whole suite.

A night's rate ``x / n`` is put on Anscombe's arcsine scale (variance ``1 / (4 n)`` under
binomial noise, finite at 0 and 1); each night is standardised against the nights since the
stream's last restart (their weighted mean, and their spread beyond binomial noise, shrunk
towards it), and the standardised residuals feed two CUSUMs (a drop, a rise). A CUSUM above
:func:`threshold` raises an alarm; the stream then restarts from the change's first night.
Same nights in, same alarms out: a night's report extends the path, it does not re-test the
window. Values in, values out (numpy); the threshold table is measured by
``benchmarks/bench_trend_calibration.py --calibrate``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "ALLOWANCE",
    "FLAKY_EXTRA",
    "PRIOR_NIGHTS",
    "TARGET_ARL",
    "WARMUP",
    "Path",
    "Raised",
    "arcsine",
    "cusum",
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

PRIOR_NIGHTS = 4.0
"""Weight, in nights, of binomial noise in the estimate of a stream's spread (the nights'
excess variance is shrunk towards 1 with this many nights' weight; it never goes below 1)."""

LOG_ARL_AT_4 = 3.49
"""log10 of one statistic's in-control ARL at threshold 4 (binomial nights of 20 runs,
demo-shaped pass rates with a crash rate of 0-3 %; ``bench_trend_calibration.py
--calibrate``)."""

LOG_ARL_PER_UNIT = 0.655
"""How much that log10 grows per unit of threshold (measured at 4, 5 and 6; CUSUM run lengths
grow exponentially in the threshold)."""

FLAKY_EXTRA = 0.55
"""Threshold added to a stream whose nights spread like a beta-binomial of intra-night
correlation 0.2 at 20 runs (spread ratio 4 or more; a share of it below): the tails of such
nights are heavier than the standardisation assumes (measured: the log10 ARL of rho 0.2 falls
0.34 short of binomial at the same threshold)."""

FLAKY_SPREAD = 3.0
"""Excess spread (ratio minus 1) at which the whole of :data:`FLAKY_EXTRA` applies."""


def stream_arl(h: float) -> float:
    """One one-sided statistic's in-control ARL at threshold ``h`` (binomial nights)."""
    return float(10 ** (LOG_ARL_AT_4 + LOG_ARL_PER_UNIT * (h - 4.0)))


def threshold(statistics: int, *, target: float = TARGET_ARL) -> float:
    """The threshold that gives a suite of ``statistics`` one-sided CUSUMs an in-control ARL of
    ``target`` nights: each gets ``statistics * target`` (false alarms of independent streams
    add up), read off the measured line."""
    want = math.log10(max(statistics, 1) * target)
    return 4.0 + (want - LOG_ARL_AT_4) / LOG_ARL_PER_UNIT


def arcsine(x: Floats, n: Floats) -> Floats:
    """Anscombe's arcsine transform of ``x`` successes in ``n`` trials."""
    with np.errstate(divide="ignore", invalid="ignore"):
        y = np.arcsin(np.sqrt((x + 3 / 8) / (n + 3 / 4)))
    return np.asarray(np.where(n > 0, y, 0.0), dtype=np.float64)


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
    h: float,
    sides: NDArray[np.int64] | None = None,
    k: float = ALLOWANCE,
    restart: bool = True,
) -> Path:
    """Run the CUSUMs of streams (rows) over nights (columns).

    Args:
        passes: successes per stream and night.
        runs: trials per stream and night (0: the stream has no night then; skipped).
        h: the suite's threshold (:func:`threshold`; flaky streams get up to
            :data:`FLAKY_EXTRA` more).
        sides: per stream, -1 (watch drops only), +1 (rises only) or 0 (both).
        k: the reference value.
        restart: after an alarm, restart the stream from its CUSUM's last zero (else it stops).
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
            spread = (swyy - sw * mean * mean) / np.maximum(m - 1, 1)
            phi = np.maximum(1.0, (PRIOR_NIGHTS + (m - 1) * spread) / (PRIOR_NIGHTS + m - 1))
            z = (y[:, t] - mean) / np.sqrt(phi * (1 / w[:, t] + 1 / sw))
        z = np.where(active, z, 0.0)
        limit = h + FLAKY_EXTRA * np.clip((phi - 1) / FLAKY_SPREAD, 0.0, 1.0)
        s_dn = np.where(active & (side <= 0), np.maximum(0.0, s_dn - z - k), s_dn)
        s_up = np.where(active & (side >= 0), np.maximum(0.0, s_up + z - k), s_up)
        z_dn = np.where(active & (s_dn == 0), t, z_dn)
        z_up = np.where(active & (s_up == 0), t, z_up)
        out_dn[:, t] = np.where(active, s_dn, np.nan)
        out_up[:, t] = np.where(active, s_up, np.nan)
        end = np.where((here & ~active) | (active & (s_dn == 0) & (s_up == 0)), t + 1, end)
        for r in np.flatnonzero(active & ((s_dn > limit) | (s_up > limit))):
            rise = bool(s_up[r] > limit[r] and s_up[r] >= s_dn[r])
            last = int(z_up[r] if rise else z_dn[r])
            raised.append(
                Raised(
                    stream=int(r),
                    night=t,
                    rise=rise,
                    since=int(start[r]),
                    last_zero=last,
                    statistic=float(s_up[r] if rise else s_dn[r]),
                    threshold=float(limit[r]),
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
