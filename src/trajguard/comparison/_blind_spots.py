"""Blind spots: scenarios whose gating tests could not see a pass-rate drop of their band.

A night that could not have detected a regression should not read like one that looked and
found none. The drop looked for is the scenario's band (``tolerances.pass_rate``, ten points by
default). Whether the runs would see it depends on the baseline's true pass rate, which a few
runs do not pin down: 0 of 3 passes is as likely from a 30 % scenario as from a broken one. So
the judgement is not made at the observed rate (which collapses to 0 or 1 when the few runs all
failed or all passed) but at the least favourable rate the baseline's runs leave plausible (its
Jeffreys interval, :data:`trajguard.stats.PLAUSIBLE`, cut below at the band): the scenario is a
blind spot when the gate's power against a drop of its band from that rate, at the gating
family's first step, is below the stated power. ``detectable`` is the smallest drop these runs
detect from that rate, ``runs_needed`` the normal approximation's runs per side that would see
the band from every plausible rate (a planning figure). A baseline whose plausible rates are
all below the band has no drop of the band to make and is not a blind spot.
"""

from __future__ import annotations

from collections.abc import Sequence

from trajguard import stats as st
from trajguard.comparison._config import CompareConfig
from trajguard.comparison._results import BlindSpot, ScenarioResult

__all__ = ["blind_spots"]

_SLACK = 1e-9


def blind_spots(
    scenarios: Sequence[ScenarioResult], config: CompareConfig, *, level: float
) -> tuple[BlindSpot, ...]:
    """The scenarios that could not see their pass-rate band (none when pass rate does not gate).

    Args:
        scenarios: the scenarios, with their pass-rate metric.
        config: the band per scenario, the power, the sidedness.
        level: the level a single scenario's test must reach (the family's first step).
    """
    if "pass_rate" not in config.gating or "pass_rate" not in config.metrics:
        return ()
    out = []
    for s in scenarios:
        if s.baseline_pass_rate is None:
            continue
        rate = s.metric("pass_rate")
        n_b, n_c = rate.baseline.n, rate.candidate.n
        passes = round(s.baseline_pass_rate * n_b)
        drop = config.for_scenario(s.scenario).tolerance("pass_rate")
        worst = st.least_power_pass_rate(
            passes, n_b, drop, n_c=n_c, alpha=level, two_sided=config.two_sided
        )
        if worst is None or worst.power >= config.power - _SLACK:
            continue
        detectable = st.mde_pass_rate(
            worst.rate,
            n_b,
            n_c=n_c,
            alpha=level,
            power=config.power,
            two_sided=config.two_sided,
        )
        # the N that sees the band from every plausible rate: the one nearest the widest noise
        widest = min(max(0.5 + drop / 2, worst.low), worst.high)
        needed = max(
            (
                n
                for p in (worst.low, worst.high, widest, worst.rate)
                if (
                    n := st.approx_n_pass_rate(
                        p, drop, alpha=level, power=config.power, two_sided=config.two_sided
                    )
                )
                is not None
            ),
            default=None,
        )
        out.append(
            BlindSpot(
                scenario=s.scenario,
                drop=drop,
                detectable=detectable,
                runs_needed=needed if needed is None or needed <= 100_000 else None,
                rate=worst.rate,
            )
        )
    return tuple(out)
