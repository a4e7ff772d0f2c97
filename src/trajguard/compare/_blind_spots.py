"""Blind spots: scenarios whose gating tests could not see a pass-rate drop of their band.

A night that could not have detected a regression should not read like one that looked and
found none. For each scenario the pass-rate drop looked for is its band (``tolerances.pass_rate``,
ten points by default), or the baseline's whole pass rate when that is smaller; the scenario is a
blind spot when the smallest drop its runs detect with the stated power at the gating family's
first step (``ScenarioResult.mde_pass_rate``) is larger than that, or when no drop is detectable
at all. ``runs_needed`` is the normal approximation's runs per side for that drop (a planning
figure). A baseline that passed no run has no drop to look for and is not a blind spot.
"""

from __future__ import annotations

from collections.abc import Sequence

from trajguard import stats as st
from trajguard.compare._config import CompareConfig
from trajguard.compare._results import BlindSpot, ScenarioResult

__all__ = ["blind_spots"]

_SLACK = 1e-9


def blind_spots(
    scenarios: Sequence[ScenarioResult], config: CompareConfig, *, level: float
) -> tuple[BlindSpot, ...]:
    """The scenarios that could not see their pass-rate band (none when pass rate does not gate).

    Args:
        scenarios: the scenarios, with their detectable drops computed.
        config: the band per scenario, the power, the sidedness.
        level: the level a single scenario's test must reach (the family's first step).
    """
    if "pass_rate" not in config.gating or "pass_rate" not in config.metrics:
        return ()
    out = []
    for s in scenarios:
        rate = s.baseline_pass_rate
        if rate is None or rate <= 0:
            continue
        drop = min(config.for_scenario(s.scenario).tolerance("pass_rate"), rate)
        if s.mde_pass_rate is not None and s.mde_pass_rate <= drop + _SLACK:
            continue
        needed = st.approx_n_pass_rate(
            rate, drop, alpha=level, power=config.power, two_sided=config.two_sided
        )
        out.append(
            BlindSpot(
                scenario=s.scenario,
                drop=drop,
                detectable=s.mde_pass_rate,
                runs_needed=needed if needed is None or needed <= 100_000 else None,
            )
        )
    return tuple(out)
