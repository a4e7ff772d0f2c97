"""Sequential batches (statistics.md §4): up to three looks, stopping early per scenario.

The candidate's runs come in looks of about N/3. After each look, every still-active scenario's
gating rates (pass rate, crash rate) are tested against the baseline with Boschloo's exact test
at the look's alpha-spending threshold (:func:`trajguard.live.sequential.rate_thresholds`, at
alpha divided by the number of gating tests). A scenario stops "regressed" when a rate crosses
its threshold, stops "no regression detected" when the candidate is no worse than the baseline
(non-binding futility) or can no longer cross a later threshold (curtailment), and otherwise
runs on. In sequential mode this rule is the gate; the comparison tables describe the runs made.

A/B comparisons have no "no worse" side, so they stop a scenario only on a clear difference
(either direction, thresholds at alpha/2 each) or at the last look.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

import pandas as pd

from trajguard.live import stats as st
from trajguard.live.runs import Arm, split_runs
from trajguard.live.sequential import (
    Action,
    combine,
    obf_thresholds,
    rate_can_still_regress,
    rate_thresholds,
    sequential_decision,
)

__all__ = ["LookRecord", "SequentialOutcome", "decide_ab_look", "decide_look", "schedule"]


def schedule(max_runs: int, looks: int = 3) -> tuple[int, ...]:
    """Candidate runs per scenario at each look: about ``max_runs * i / looks``."""
    if max_runs < looks:
        return (max_runs,)
    return tuple(math.ceil(max_runs * (i + 1) / looks) for i in range(looks))


@dataclass
class LookRecord:
    """What one look decided."""

    look: int
    runs: int
    decisions: dict[str, str]


@dataclass
class SequentialOutcome:
    """The whole sequential run."""

    max_runs: int
    plan: tuple[int, ...]
    alpha: float
    looks: list[LookRecord] = field(default_factory=list)
    stopped: dict[str, tuple[int, str]] = field(default_factory=dict)

    @property
    def regressed(self) -> bool:
        """Some scenario stopped "regressed"."""
        return any(reason == Action.STOP_REGRESSED.value for _, reason in self.stopped.values())

    def runs_used(self) -> int:
        """Candidate runs made, over all scenarios."""
        return sum(runs for runs, _ in self.stopped.values())

    def section(self, thresholds: Callable[[str], Sequence[float]] | None = None) -> str:
        """The report's description of the design and where it stopped."""
        planned = self.max_runs * max(len(self.stopped), 1)
        used = self.runs_used()
        saved = 100 * (1 - used / planned) if planned else 0.0
        gate = "regressed" if self.regressed else "no regression detected"
        lines = [
            "## Sequential design",
            "",
            f"**Sequential gate: {gate}.** In sequential mode this stopping rule decides the exit "
            "code; the tables above describe the runs made and use fixed-sample tests.",
            "",
            f"Up to {len(self.plan)} looks at {', '.join(map(str, self.plan))} candidate runs per "
            f"scenario (max {self.max_runs}); O'Brien–Fleming alpha spending at one-sided α = "
            f"{self.alpha:.4g} per gating test, futility stop when the candidate is no worse. "
            f"{used} of {planned} planned runs made ({saved:.0f}% saved).",
            "",
            "| scenario | stopped after | runs | decision |",
            "|---|---:|---:|---|",
        ]
        for scenario, (runs, reason) in sorted(self.stopped.items()):
            look = next(
                (
                    r.look
                    for r in self.looks
                    if scenario in r.decisions and r.decisions[scenario] != Action.CONTINUE.value
                ),
                len(self.plan) - 1,
            )
            lines.append(f"| {scenario} | look {look + 1} | {runs} | {reason} |")
        return "\n".join(lines)


def _rate(arm: Arm, crashes: bool) -> tuple[int, int]:
    values = arm.crashed if crashes else arm.passed
    return int(values.sum()), int(values.size)


def decide_look(
    baseline: dict[str, Arm],
    candidate: dict[str, Arm],
    *,
    look: int,
    plan: tuple[int, ...],
    alpha: float,
) -> dict[str, Action]:
    """One look's action per scenario of the candidate (regression gate, one-sided)."""
    actions: dict[str, Action] = {}
    for scenario, arm_c in candidate.items():
        arm_b = baseline.get(scenario)
        if arm_b is None:
            actions[scenario] = Action.STOP_NO_REGRESSION
            continue
        per_metric = []
        for crashes in (False, True):
            x_b, n_b = _rate(arm_b, crashes)
            x_c, n_c = _rate(arm_c, crashes)
            if n_b == 0 or n_c == 0:
                per_metric.append(
                    Action.CONTINUE if look < len(plan) - 1 else Action.STOP_NO_REGRESSION
                )
                continue
            thresholds = rate_thresholds(alpha, n_b, plan)
            alternative: Literal["less", "greater"] = "less" if crashes else "greater"
            p = st.boschloo_pvalue(x_b, n_b, x_c, n_c, alternative)
            no_worse = (x_c * n_b <= x_b * n_c) if crashes else (x_c * n_b >= x_b * n_c)
            later = [n for n in plan if n > n_c]
            alive = (
                rate_can_still_regress(
                    x_b,
                    n_b,
                    x_c,
                    n_c,
                    later_n_c=later,
                    later_thresholds=thresholds[len(plan) - len(later) :],
                    higher_is_better=not crashes,
                )
                if later
                else False
            )
            per_metric.append(
                sequential_decision(
                    min(look, len(plan) - 1),
                    p,
                    thresholds=thresholds,
                    candidate_no_worse=no_worse,
                    can_still_regress=alive,
                )
            )
        actions[scenario] = combine(per_metric)
    return actions


def decide_ab_look(
    runs: pd.DataFrame,
    variants: tuple[str, str],
    *,
    look: int,
    plan: tuple[int, ...],
    alpha: float,
) -> dict[str, Action]:
    """One A/B look's action per scenario: stop on a clear pass-rate difference either way."""
    a, b = variants
    arms_a = split_runs(runs[runs["variant"] == a], side=a)
    arms_b = split_runs(runs[runs["variant"] == b], side=b)
    thresholds = obf_thresholds(alpha / 2, [n / plan[-1] for n in plan])
    actions = {}
    for scenario in sorted(arms_a.keys() & arms_b.keys()):
        x_a, n_a = _rate(arms_a[scenario], False)
        x_b, n_b = _rate(arms_b[scenario], False)
        if look >= len(plan) - 1:
            actions[scenario] = Action.STOP_NO_REGRESSION
            continue
        if n_a and n_b:
            p = min(
                st.boschloo_pvalue(x_a, n_a, x_b, n_b, "greater"),
                st.boschloo_pvalue(x_a, n_a, x_b, n_b, "less"),
            )
            if p <= thresholds[look]:
                actions[scenario] = Action.STOP_REGRESSED
                continue
        actions[scenario] = Action.CONTINUE
    return actions


def gating_alpha(alpha: float, scenarios: int, metrics: int = 2) -> float:
    """Bonferroni share of each gating test (Holm needs every p-value at once)."""
    return alpha / max(1, scenarios * metrics)
