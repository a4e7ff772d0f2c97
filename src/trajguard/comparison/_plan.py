"""``trajguard plan``: what a run count can detect, from a baseline run set or assumed values.

Each metric is planned at the level a lone effect must clear in a full report. Gating metrics:
the first step of the scenarios' step-down, Šidák over the scenarios at the scenarios' share of
alpha (a lone effect in one metric of the scenario's combined test needs about that; the
combination with the scenario's other gating metrics costs a little more when they are pure
noise, and gains when they move together); with ``multiplicity="holm"``, alpha over the number
of gating tests. Diagnostic metrics: ``q`` over the number of diagnostic tests (the first
Benjamini-Hochberg step). "Choose N" is the smallest N whose detectable effect is within the
metric's tolerance (``n_needed`` of each row).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pandas as pd

from trajguard.comparison._arms import split_runs
from trajguard.comparison._config import CompareConfig
from trajguard.comparison._registry import metric
from trajguard.stats import (
    EXACT_MAX_N,
    cv_to_sigma,
    mde_crash_rate,
    mde_pass_rate,
    mde_ratio,
    mde_steps,
    n_needed_pass_rate,
    n_needed_ratio,
    n_needed_steps,
)

__all__ = ["PlanRow", "ScenarioPlan", "plan_alphas", "plan_assumed", "plan_rows", "plan_runset"]

# The metrics a plan has rows for (each has a ``plan_label`` in the registry).
_ROW_METRICS = ("pass_rate", "crash_rate", "prompt_tokens", "completion_tokens", "step_count")


@dataclass(frozen=True, kw_only=True)
class ScenarioPlan:
    """The plan rows of one scenario (or of the assumed values, scenario ``"*"``)."""

    scenario: str
    rows: tuple[PlanRow, ...]


@dataclass(frozen=True, kw_only=True)
class PlanRow:
    """What one metric can detect at the planned N.

    Attributes:
        metric: the metric (``prompt_tokens`` and ``completion_tokens`` each get a row).
        baseline: the baseline value the computation assumed: a rate, the standard deviation
            of log token counts, or ``A = 1/2`` (no change) for steps.
        n: runs per arm.
        alpha: the adjusted significance level used.
        mde: smallest detectable effect (pass-rate drop, crash-rate rise, ratio, or ``A``);
            ``None`` when nothing is detectable at this N.
        target: the effect to detect (the metric's tolerance edge).
        n_needed: runs per arm to detect ``target``; ``None`` when no N can.
        method: how ``n_needed`` was computed.
    """

    metric: str
    baseline: float
    n: int
    alpha: float
    mde: float | None
    target: float
    n_needed: int | None
    method: str


def plan_rows(
    *,
    n: int,
    alphas: Mapping[str, float],
    pass_rate: float,
    crash_rate: float,
    sigma_log: float,
    sigma_log_completion: float | None = None,
    pass_target: float,
    crash_target: float,
    ratio_target: float,
    steps_target: float,
    power: float = 0.8,
    two_sided: bool = False,
) -> tuple[PlanRow, ...]:
    """MDE at ``n`` runs per arm and runs needed for each target, from one set of baseline values.

    Args:
        n: runs per arm.
        alphas: adjusted significance level per row metric (``pass_rate``, ``crash_rate``,
            ``prompt_tokens``, ``completion_tokens``, ``step_count``).
        pass_rate: baseline pass rate.
        crash_rate: baseline crash rate.
        sigma_log: standard deviation of log prompt tokens (:func:`cv_to_sigma`).
        sigma_log_completion: the same for completion tokens (``sigma_log`` if omitted).
        pass_target: pass-rate drop to detect.
        crash_target: crash-rate rise to detect.
        ratio_target: token ratio to detect (> 1).
        steps_target: ``A`` to detect (> 1/2).
        power: required power.
        two_sided: two-sided tests (A/B).
    """
    pw, ts = power, two_sided
    a_pass, a_crash, a_steps = (alphas[m] for m in ("pass_rate", "crash_rate", "step_count"))
    sigmas = {
        "prompt_tokens": sigma_log,
        "completion_tokens": sigma_log if sigma_log_completion is None else sigma_log_completion,
    }
    n_pass = n_needed_pass_rate(pass_rate, pass_target, alpha=a_pass, power=pw, two_sided=ts)
    n_crash = n_needed_pass_rate(
        1 - crash_rate, crash_target, alpha=a_crash, power=pw, two_sided=ts
    )

    def rate_method(needed: int | None) -> str:
        exact = needed is None or needed <= EXACT_MAX_N
        return "Boschloo exact" if exact else "normal approximation (N > 150)"

    return (
        PlanRow(
            metric="pass_rate",
            baseline=pass_rate,
            n=n,
            alpha=a_pass,
            mde=mde_pass_rate(pass_rate, n, alpha=a_pass, power=pw, two_sided=ts),
            target=pass_target,
            n_needed=n_pass,
            method=rate_method(n_pass),
        ),
        PlanRow(
            metric="crash_rate",
            baseline=crash_rate,
            n=n,
            alpha=a_crash,
            mde=mde_crash_rate(crash_rate, n, alpha=a_crash, power=pw, two_sided=ts),
            target=crash_target,
            n_needed=n_crash,
            method=rate_method(n_crash),
        ),
        *(
            PlanRow(
                metric=metric,
                baseline=sigma,
                n=n,
                alpha=alphas[metric],
                mde=mde_ratio(sigma, n, alpha=alphas[metric], power=pw, two_sided=ts),
                target=ratio_target,
                n_needed=n_needed_ratio(
                    sigma, ratio_target, alpha=alphas[metric], power=pw, two_sided=ts
                ),
                method="noncentral t on log values",
            )
            for metric, sigma in sigmas.items()
        ),
        PlanRow(
            metric="step_count",
            baseline=0.5,
            n=n,
            alpha=a_steps,
            mde=mde_steps(n, alpha=a_steps, power=pw, two_sided=ts),
            target=steps_target,
            n_needed=n_needed_steps(steps_target, alpha=a_steps, power=pw, two_sided=ts),
            method="Noether (normal approximation)",
        ),
    )


def plan_alphas(config: CompareConfig, n_scenarios: int) -> dict[str, float]:
    """Adjusted level per plan row for a report of ``n_scenarios`` scenarios (the resilience
    metrics, tested only in scenarios whose runs met faults, are not counted in the family)."""
    gating = [m for m in config.metrics if m in config.gating]
    diagnostic = [m for m in config.metrics if m not in config.gating and not metric(m).conditional]
    if config.multiplicity == "holm":
        a_gate = config.alpha / max(1, n_scenarios * len(gating))
    else:
        share = config.suite_share if n_scenarios >= 2 else 0.0
        a_gate = 1 - (1 - config.alpha * (1 - share)) ** (1 / max(1, n_scenarios))
    a_diag = config.q / max(1, n_scenarios * len(diagnostic))
    return {row: a_gate if row in config.gating else a_diag for row in _ROW_METRICS}


def _rows(
    config: CompareConfig,
    n: int,
    alphas: dict[str, float],
    pass_rate: float,
    crash_rate: float,
    sigma_log: float,
    sigma_log_completion: float,
) -> tuple[PlanRow, ...]:
    return plan_rows(
        n=n,
        alphas=alphas,
        pass_rate=pass_rate,
        crash_rate=crash_rate,
        sigma_log=sigma_log,
        sigma_log_completion=sigma_log_completion,
        pass_target=config.tolerance("pass_rate"),
        crash_target=config.tolerance("crash_rate"),
        ratio_target=config.tolerance("ratio"),
        steps_target=0.5 + config.tolerance("steps"),
        power=config.power,
        two_sided=config.two_sided,
    )


def plan_assumed(
    *,
    n: int,
    n_scenarios: int,
    pass_rate: float,
    crash_rate: float = 0.0,
    token_cv: float = 0.3,
    config: CompareConfig | None = None,
) -> ScenarioPlan:
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
    return ScenarioPlan(
        scenario="*",
        rows=_rows(
            config,
            n,
            plan_alphas(config, n_scenarios),
            pass_rate,
            crash_rate,
            cv_to_sigma(token_cv),
            cv_to_sigma(token_cv),
        ),
    )


def plan_runset(
    baseline: pd.DataFrame, n: int, *, config: CompareConfig | None = None
) -> tuple[ScenarioPlan, ...]:
    """Plan each scenario of a baseline run set at ``n`` runs per arm.

    The scenario's observed pass rate, crash rate and spreads of log prompt and log completion
    tokens stand in for the truth; a scenario without judged runs is planned at a pass rate of
    1/2 (the worst case), a token count without spread at a coefficient of variation of 0.3.
    """
    config = config or CompareConfig()
    arms = split_runs(baseline, crash_statuses=config.crash_statuses, side="baseline")
    alphas = plan_alphas(config, len(arms))
    plans = []
    for name, arm in arms.items():
        prompt, completion = (
            _sigma_log(arm.numbers[column], config.token_floor)
            for column in ("prompt_tokens", "completion_tokens")
        )
        pass_rate = float(arm.passed.mean()) if arm.passed.size else 0.5
        crash_rate = float(arm.crashed.mean()) if arm.runs else 0.0
        plans.append(
            ScenarioPlan(
                scenario=name,
                rows=_rows(config, n, alphas, pass_rate, crash_rate, prompt, completion),
            )
        )
    return tuple(plans)


def _sigma_log(values: npt.NDArray[np.float64], floor: float) -> float:
    """Standard deviation of the logs (as the comparison takes them); CV 0.3 without spread."""
    logs = np.log(np.maximum(values, floor))
    if logs.size < 2 or logs.min() == logs.max():  # no spread (std may round to 1e-16)
        return cv_to_sigma(0.3)
    sigma = float(logs.std(ddof=1))
    return sigma if math.isfinite(sigma) else cv_to_sigma(0.3)
