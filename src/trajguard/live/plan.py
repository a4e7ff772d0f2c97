"""``trajguard plan``: what a run count can detect, from a baseline run set or assumed values.

Each metric is planned at the level a lone effect must clear in a full report: alpha over the
number of gating tests (the first Holm step) for gating metrics, ``q`` over the number of
diagnostic tests (the first Benjamini-Hochberg step) for the others. "Choose N" is the smallest N
whose detectable effect is within the metric's tolerance (``n_needed`` of each row).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from trajguard.live import power
from trajguard.live.results import CompareConfig
from trajguard.live.runs import split_runs

__all__ = ["ScenarioPlan", "plan_alphas", "plan_assumed", "plan_runset"]

# Plan rows and the comparison metrics they stand for.
_ROW_METRICS = {"pass_rate": ("pass_rate",), "crash_rate": ("crash_rate",),
                "tokens": ("prompt_tokens", "completion_tokens"), "step_count": ("step_count",)}


@dataclass(frozen=True)
class ScenarioPlan:
    """The plan rows of one scenario (or of the assumed values, scenario ``"*"``)."""

    scenario: str
    rows: tuple[power.PlanRow, ...]


def plan_alphas(config: CompareConfig, n_scenarios: int) -> dict[str, float]:
    """Adjusted level per plan row for a report of ``n_scenarios`` scenarios."""
    gating = [m for m in config.metrics if m in config.gating]
    diagnostic = [m for m in config.metrics if m not in config.gating]
    a_gate = config.alpha / max(1, n_scenarios * len(gating))
    a_diag = config.q / max(1, n_scenarios * len(diagnostic))
    return {row: a_gate if any(m in config.gating for m in metrics) else a_diag
            for row, metrics in _ROW_METRICS.items()}


def _rows(config: CompareConfig, n: int, alphas: dict[str, float], pass_rate: float,
          crash_rate: float, sigma_log: float) -> tuple[power.PlanRow, ...]:
    return power.plan_rows(
        n=n, alphas=alphas, pass_rate=pass_rate, crash_rate=crash_rate, sigma_log=sigma_log,
        pass_target=config.pass_rate_margin, crash_target=config.crash_rate_margin,
        ratio_target=config.ratio_margin, steps_target=0.5 + config.steps_margin,
        power=config.power, two_sided=config.two_sided)


def plan_assumed(*, n: int, n_scenarios: int, pass_rate: float, crash_rate: float = 0.0,
                 token_cv: float = 0.3, config: CompareConfig | None = None) -> ScenarioPlan:
    """Plan from assumed values (no baseline yet).

    Args:
        n: runs per arm.
        n_scenarios: scenarios in the suite (sets the adjusted alpha).
        pass_rate: assumed baseline pass rate.
        crash_rate: assumed baseline crash rate.
        token_cv: assumed coefficient of variation of token counts.
        config: tolerances and levels; defaults to :class:`CompareConfig`.
    """
    config = config or CompareConfig()
    return ScenarioPlan("*", _rows(config, n, plan_alphas(config, n_scenarios), pass_rate,
                                   crash_rate, power.cv_to_sigma(token_cv)))


def plan_runset(baseline: pd.DataFrame, n: int, *, config: CompareConfig | None = None
                ) -> tuple[ScenarioPlan, ...]:
    """Plan each scenario of a baseline run set at ``n`` runs per arm.

    The scenario's observed pass rate, crash rate and spread of log prompt tokens stand in for
    the truth; a scenario without judged runs is planned at a pass rate of 1/2 (the worst case),
    one without token spread at a coefficient of variation of 0.3.
    """
    config = config or CompareConfig()
    arms = split_runs(baseline, crash_statuses=config.crash_statuses, side="baseline")
    alphas = plan_alphas(config, len(arms))
    plans = []
    for name, arm in arms.items():
        logs = np.log(np.maximum(arm.numbers["prompt_tokens"], config.token_floor))
        sigma = float(logs.std(ddof=1)) if logs.size > 1 else 0.0
        sigma = sigma if sigma > 0 and math.isfinite(sigma) else power.cv_to_sigma(0.3)
        pass_rate = float(arm.passed.mean()) if arm.passed.size else 0.5
        crash_rate = float(arm.crashed.mean()) if arm.runs else 0.0
        plans.append(ScenarioPlan(name, _rows(config, n, alphas, pass_rate, crash_rate, sigma)))
    return tuple(plans)

