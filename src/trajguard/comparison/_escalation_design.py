"""Escalation (``--max-runs``) as an object of the one design protocol.

Its numbers are an :class:`~trajguard.comparison._escalation.EscalationPlan`; after the first look
it keeps the first look's comparison (:func:`~trajguard.comparison._escalation.leaning` chooses the
scenarios that go on, the suite-level verdicts are that look's) and after each later look it
tests each escalated scenario alone (:func:`~trajguard.comparison._escalation.later_look`). A/B
(``two_sided``) escalates the scenarios that lean towards any difference.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping
from dataclasses import replace

import pandas as pd

from trajguard.comparison._compare import compare_runsets
from trajguard.comparison._config import CompareConfig
from trajguard.comparison._designs import Look, decided_by_design
from trajguard.comparison._escalation import (
    EscalationLook,
    EscalationPlan,
    EscalationStop,
    escalation_plan,
    later_look,
    leaning,
)
from trajguard.comparison._results import Comparison
from trajguard.errors import UsageError

__all__ = ["EscalationDesign"]


class EscalationDesign:
    """A first look at each scenario's runs, then more runs for the scenarios that lean
    harmful, up to a budget.

    Args:
        runs: scenario → its candidate runs at the first look (per variant for A/B): its runs
            under the one rule (:func:`trajguard.suite.runs_per_scenario`).
        max_runs: the budget per scenario.
        config: comparison settings (``alpha`` is the report's whole level).

    Raises:
        UsageError: a scenario whose runs are not below ``max_runs``.
    """

    def __init__(self, *, runs: Mapping[str, int], max_runs: int, config: CompareConfig) -> None:
        counts = Counter(runs.values())
        common = max(counts, key=lambda n: (counts[n], n), default=1)
        for scenario, n in runs.items():
            if n >= max_runs:
                raise UsageError(
                    f"--max-runs ({max_runs}) must be above the runs per scenario: scenario "
                    f"{scenario} has {n}, so escalation could never give it more",
                    hint=f"raise --max-runs above {max(runs.values())} (e.g. --runs 20 "
                    "--max-runs 60), or lower the scenario's runs:",
                )

        def plan_from(first: int) -> EscalationPlan:
            return escalation_plan(
                first=first, max_runs=max_runs, alpha=config.alpha, scenarios=len(runs)
            )

        main = plan_from(common)
        self._plans = {s: main if n == common else plan_from(n) for s, n in runs.items()}
        own = {s: p.looks for s, p in self._plans.items() if p is not main}
        self.plan: EscalationPlan = replace(main, own_looks=own)
        self._looks = max(len(p.looks) for p in self._plans.values()) if runs else 1
        self._config = config
        self.first_look: Comparison | None = None
        self.stops: dict[str, EscalationStop] = {}
        self._active: list[str] = []
        self._seen: dict[str, tuple[EscalationLook, ...]] = {}
        # One scenario at a time, resolved finely enough for the later looks' small thresholds.
        finest = min(t for p in self._plans.values() for t in p.thresholds) if runs else 1.0
        resampling = replace(
            config.resampling,
            max_resamples=max(config.resampling.max_resamples, math.ceil(20 / finest)),
        )
        self._single = replace(config, suite_share=0.0, resampling=resampling)

    @property
    def name(self) -> str:
        """``escalation``."""
        return "escalation"

    def _label(self, index: int) -> str:
        return f"look {index + 1}/{self._looks}"

    def _runs_at(self, scenario: str, index: int) -> int:
        looks = self._plans[scenario].looks
        return looks[min(index, len(looks) - 1)]

    def first(self) -> Look:
        """Every scenario of the batch at its runs."""
        return Look(
            index=0, runs={s: p.first for s, p in self._plans.items()}, label=self._label(0)
        )

    def after(self, look: Look, baseline: pd.DataFrame, candidate: pd.DataFrame) -> Look | None:
        """After the first look, choose the scenarios that go on; after a later one, decide
        each of them alone."""
        if look.index == 0:
            first = compare_runsets(
                baseline, candidate, config=replace(self._config, alpha=self.plan.alpha_first)
            )
            self.first_look = first
            decided = leaning(first, self.plan)
            self.stops = {s: stop for s, stop in decided.items() if stop is not None}
            self._active = [s for s, stop in decided.items() if stop is None]
            self._seen = {s: () for s in self._active}
        else:
            still = []
            for scenario in self._active:
                b = baseline[baseline["scenario"] == scenario]
                c = candidate[candidate["scenario"] == scenario]
                result = compare_runsets(b, c, config=self._single).scenario(scenario)
                stop, self._seen[scenario] = later_look(
                    result,
                    self._plans.get(scenario, self.plan),
                    look.index,
                    self._seen[scenario],
                    two_sided=self._config.two_sided,
                )
                if stop is None:
                    still.append(scenario)
                else:
                    self.stops[scenario] = stop
            self._active = still
        following = look.index + 1
        if not self._active or following >= self._looks:
            return None
        return Look(
            index=following,
            runs={s: self._runs_at(s, following) for s in self._active},
            label=self._label(following),
        )

    def final_config(self, config: CompareConfig) -> CompareConfig:
        """The first look's level: every scenario was tested there at ``alpha_first``."""
        return replace(config, alpha=self.plan.alpha_first)

    def settle(self, comparison: Comparison) -> Comparison:
        """A gating metric is significant exactly when its scenario stopped on it; the suite
        level keeps the first look's verdicts (it is tested only there)."""
        reasons = {
            s: f"{stop.runs} candidate runs, {stop.reason}" for s, stop in self.stops.items()
        }
        first = self.first_look
        suite = first.family.suite if first is not None and first.family is not None else ()
        return decided_by_design(
            comparison,
            design="escalation",
            decided={s: stop.regressed for s, stop in self.stops.items()},
            reasons=reasons,
            note_every_metric=True,
            suite=suite,
        )
