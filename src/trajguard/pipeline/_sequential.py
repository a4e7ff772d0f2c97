"""Sequential looks: run a batch in up to three looks, deciding after each which scenarios go on.

The nightly gate (:func:`run_sequential`) stops a scenario once it has clearly regressed or is no
worse than the baseline; the A/B rule (:func:`run_sequential_ab`) once two variants clearly
differ. Every look resumes the same run set, so seeds and rows are those of one batch.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pandas as pd

from trajguard.compare import (
    CompareConfig,
    Decision,
    LookRecord,
    SequentialOutcome,
    Stop,
    decide_ab_look,
    decide_look,
    gate_metrics,
    gating_alpha,
    schedule,
    split_runs,
)
from trajguard.run import BatchOptions, ObserverFactory, execute
from trajguard.stats import Action
from trajguard.store import read_runs
from trajguard.suite import Suite

__all__ = ["run_sequential", "run_sequential_ab"]

Decide = Callable[[pd.DataFrame, list[str], int], dict[str, Decision]]


def _looks(
    suite: Suite,
    runset: Path,
    options: BatchOptions,
    outcome: SequentialOutcome,
    decide: Decide,
    observe: ObserverFactory | None,
    label: str,
) -> SequentialOutcome:
    active = list(options.scenarios) or [s.id for s in suite.scenarios]
    looks: list[LookRecord] = []
    stopped: dict[str, Stop] = {}
    for look, runs in enumerate(outcome.plan):
        look_options = replace(options, runs=runs, scenarios=tuple(active))
        execute(
            suite,
            runset,
            look_options,
            resume=look > 0,
            observe=observe,
            label=f"{label} look {look + 1}/{len(outcome.plan)}",
        )
        decisions = decide(read_runs(runset), active, look)
        looks.append(
            LookRecord(
                look=look, runs=runs, decisions={s: d.action.value for s, d in decisions.items()}
            )
        )
        for scenario, decision in decisions.items():
            if decision.action is not Action.CONTINUE:
                stopped[scenario] = Stop(runs=runs, decision=decision)
        waiting = Decision(action=Action.CONTINUE)
        active = [s for s in active if decisions.get(s, waiting).action is Action.CONTINUE]
        if not active:
            break
    return replace(outcome, looks=tuple(looks), stopped=stopped)


def run_sequential(
    suite: Suite,
    runset: Path,
    options: BatchOptions,
    *,
    baseline: Path,
    config: CompareConfig,
    observe: ObserverFactory | None = None,
) -> SequentialOutcome:
    """Run the candidate in looks against ``baseline``; the outcome decides the exit code
    (:func:`trajguard.compare.apply_gate` aligns the report with it)."""
    max_runs = options.runs or suite.defaults.runs
    plan = schedule(max_runs)
    statuses = config.crash_statuses
    base_arms = split_runs(read_runs(baseline), crash_statuses=statuses, side="baseline")
    scenarios = list(options.scenarios) or [s.id for s in suite.scenarios]
    metrics = gate_metrics(config)
    alpha = gating_alpha(config.alpha, len(scenarios), len(metrics))
    outcome = SequentialOutcome(max_runs=max_runs, plan=plan, alpha=alpha, gating=metrics)

    def decide(runs: pd.DataFrame, active: list[str], look: int) -> dict[str, Decision]:
        arms = split_runs(runs, crash_statuses=statuses, side="candidate")
        current = {s: arms[s] for s in active if s in arms}
        return decide_look(base_arms, current, look=look, plan=plan, alpha=alpha, config=config)

    return _looks(suite, runset, options, outcome, decide, observe, suite.name)


def run_sequential_ab(
    suite: Suite,
    runset: Path,
    options: BatchOptions,
    *,
    variants: tuple[str, str],
    config: CompareConfig,
    observe: ObserverFactory | None = None,
) -> SequentialOutcome:
    """Run both variants in looks, stopping scenarios whose pass rates clearly differ."""
    max_runs = options.runs or suite.defaults.runs
    plan = schedule(max_runs)
    scenarios = list(options.scenarios) or [s.id for s in suite.scenarios]
    alpha = config.alpha / max(1, len(scenarios))
    outcome = SequentialOutcome(
        max_runs=max_runs, plan=plan, alpha=alpha / 2, gating=("pass_rate",), variants=variants
    )

    def decide(runs: pd.DataFrame, active: list[str], look: int) -> dict[str, Decision]:
        decisions = decide_ab_look(
            runs,
            variants,
            look=look,
            plan=plan,
            alpha=alpha,
            crash_statuses=config.crash_statuses,
        )
        return {s: decisions.get(s, Decision(action=Action.CONTINUE)) for s in active}

    label = f"{variants[0]} vs {variants[1]}"
    return _looks(suite, runset, options, outcome, decide, observe, label)
