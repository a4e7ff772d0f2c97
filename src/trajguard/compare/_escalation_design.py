"""Escalation (``--max-runs``) as an object of the one design protocol.

Its numbers are an :class:`~trajguard.compare._escalation.EscalationPlan`; after the first look
it keeps the first look's comparison (:func:`~trajguard.compare._escalation.leaning` chooses the
scenarios that go on, the suite-level verdicts are that look's) and after each later look it
tests each escalated scenario alone (:func:`~trajguard.compare._escalation.later_look`). A/B
(``two_sided``) escalates the scenarios that lean towards any difference.
"""

from __future__ import annotations

import math
from dataclasses import replace

import pandas as pd

from trajguard.compare._compare import compare_runsets
from trajguard.compare._config import CompareConfig
from trajguard.compare._designs import Look, decided_by_design
from trajguard.compare._escalation import (
    EscalationLook,
    EscalationPlan,
    EscalationStop,
    escalation_plan,
    later_look,
    leaning,
)
from trajguard.compare._results import Comparison

__all__ = ["EscalationDesign"]


class EscalationDesign:
    """A first look at N, then more runs for the scenarios that lean harmful, up to a budget.

    Args:
        first: candidate runs per scenario at the first look (per variant for A/B).
        max_runs: the budget per scenario.
        scenarios: the scenarios of the batch.
        config: comparison settings (``alpha`` is the report's whole level).
    """

    def __init__(self, *, first: int, max_runs: int, scenarios: int, config: CompareConfig) -> None:
        self.plan: EscalationPlan = escalation_plan(
            first=first, max_runs=max_runs, alpha=config.alpha, scenarios=scenarios
        )
        self._config = config
        self.first_look: Comparison | None = None
        self.stops: dict[str, EscalationStop] = {}
        self._active: list[str] = []
        self._seen: dict[str, tuple[EscalationLook, ...]] = {}
        # One scenario at a time, resolved finely enough for the later looks' small thresholds.
        finest = min(self.plan.thresholds)
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
        return f"look {index + 1}/{len(self.plan.looks)}"

    def first(self) -> Look:
        """Every scenario of the batch at N."""
        return Look(index=0, runs=self.plan.first, label=self._label(0))

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
                    self.plan,
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
        if not self._active or following >= len(self.plan.looks):
            return None
        return Look(
            index=following,
            runs=self.plan.looks[following],
            scenarios=tuple(self._active),
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
