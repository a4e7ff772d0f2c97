"""Whether a night can see a drop of its band, judged where the baseline's few runs leave the
rate uncertain: the worst case of the gate's power over the baseline rates its runs leave
plausible (their Jeffreys interval), not at the observed rate, which collapses to 0 or 1 when a
few runs all failed or all passed. ``compare``'s blind spots read it
(:mod:`trajguard.comparison._blind_spots`); ``benchmarks/bench_blindness.py`` calibrates it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from trajguard.stats._intervals import jeffreys_interval
from trajguard.stats._power import gate_power

__all__ = ["PLAUSIBLE", "LeastPower", "least_power_pass_rate"]

PLAUSIBLE = 0.90
"""The Jeffreys interval of the baseline's pass rate a blindness judgement reads the rates it
must see a drop from (:func:`least_power_pass_rate`; calibrated in RESULTS.md, "Blindness that
does not depend on luck")."""

_GRID = 12
"""Plausible rates evaluated (evenly spaced over the interval, plus 0.5 when inside it)."""


@dataclass(frozen=True, kw_only=True)
class LeastPower:
    """The plausible baseline rate a drop is least likely to be detected from.

    Attributes:
        rate: that rate.
        power: the test's power against the drop from it.
        low: the plausible interval's low end (at least the drop).
        high: its high end.
    """

    rate: float
    power: float
    low: float
    high: float


def least_power_pass_rate(
    passes: int,
    n_b: int,
    drop: float,
    *,
    alpha: float,
    n_c: int | None = None,
    two_sided: bool = False,
    confidence: float = PLAUSIBLE,
) -> LeastPower | None:
    """The worst case, over the baseline rates the baseline's runs leave plausible, of the
    power to detect a pass-rate drop of ``drop``.

    The plausible rates are the Jeffreys interval of ``passes`` of ``n_b`` at ``confidence``,
    cut below at ``drop`` (a rate under the drop has no such drop to make). Unlike the observed
    rate, the interval does not collapse when the few baseline runs all failed or all passed:
    0 of 3 leaves rates up to 0.47 plausible, and a drop from them is what the night must see.

    Returns:
        The least powerful plausible rate and its power; ``None`` when every plausible rate is
        below ``drop`` (the baseline passes too rarely to drop by it).
    """
    n_c = n_b if n_c is None else n_c
    low, high = jeffreys_interval(passes, n_b, confidence)
    low = max(low, drop)
    if high < drop or n_b < 1 or n_c < 1:
        return None
    rates = np.linspace(low, high, _GRID)
    if low < 0.5 < high:
        rates = np.append(rates, 0.5)
    powers = [gate_power(p, max(0.0, p - drop), n_b, n_c, alpha, two_sided) for p in rates]
    worst = int(np.argmin(powers))
    return LeastPower(rate=float(rates[worst]), power=float(powers[worst]), low=low, high=high)
