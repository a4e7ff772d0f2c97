"""Sequential looks for ``nightly --sequential`` and ``ab --sequential``."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pandas as pd

from trajguard.cli.run import execute
from trajguard.live.results import CompareConfig
from trajguard.live.runner import BatchOptions
from trajguard.live.runs import split_runs
from trajguard.live.sequential import Action
from trajguard.live.sequential_run import (
    Decision,
    LookRecord,
    SequentialOutcome,
    decide_ab_look,
    decide_look,
    gate_metrics,
    gating_alpha,
    schedule,
)
from trajguard.live.store import read_runs
from trajguard.live.suite import Suite

Decide = Callable[[pd.DataFrame, list[str], int], dict[str, Decision]]


def _looks(
    suite: Suite,
    runset: Path,
    options: BatchOptions,
    outcome: SequentialOutcome,
    decide: Decide,
    progress: bool,
    label: str,
) -> SequentialOutcome:
    active = list(options.scenarios) or [s.id for s in suite.scenarios]
    for look, runs in enumerate(outcome.plan):
        look_options = replace(options, runs=runs, scenarios=tuple(active))
        execute(
            suite,
            runset,
            look_options,
            resume=look > 0,
            progress=progress,
            label=f"{label} look {look + 1}/{len(outcome.plan)}",
        )
        decisions = decide(read_runs(runset), active, look)
        outcome.looks.append(
            LookRecord(look, runs, {s: d.action.value for s, d in decisions.items()})
        )
        for scenario, decision in decisions.items():
            if decision.action is not Action.CONTINUE:
                outcome.stopped[scenario] = (runs, decision)
        waiting = Decision(Action.CONTINUE)
        active = [s for s in active if decisions.get(s, waiting).action is Action.CONTINUE]
        if not active:
            break
    return outcome


def run_sequential(
    suite: Suite,
    runset: Path,
    options: BatchOptions,
    *,
    baseline: Path,
    config: CompareConfig,
    progress: bool,
) -> SequentialOutcome:
    """Run the candidate in looks against ``baseline``; the outcome decides the exit code
    (:func:`trajguard.live.sequential_run.apply_gate` aligns the report with it)."""
    max_runs = options.runs or suite.defaults.runs
    plan = schedule(max_runs)
    statuses = config.crash_statuses
    base_arms = split_runs(read_runs(baseline), crash_statuses=statuses, side="baseline")
    scenarios = list(options.scenarios) or [s.id for s in suite.scenarios]
    metrics = gate_metrics(config)
    alpha = gating_alpha(config.alpha, len(scenarios), len(metrics))
    outcome = SequentialOutcome(max_runs, plan, alpha, gating=metrics)

    def decide(runs: pd.DataFrame, active: list[str], look: int) -> dict[str, Decision]:
        arms = split_runs(runs, crash_statuses=statuses, side="candidate")
        current = {s: arms[s] for s in active if s in arms}
        return decide_look(base_arms, current, look=look, plan=plan, alpha=alpha, config=config)

    return _looks(suite, runset, options, outcome, decide, progress, suite.name)


def run_sequential_ab(
    suite: Suite,
    runset: Path,
    options: BatchOptions,
    *,
    variants: tuple[str, str],
    config: CompareConfig,
    progress: bool,
) -> str:
    """Run both variants in looks, stopping scenarios whose pass rates clearly differ."""
    max_runs = options.runs or suite.defaults.runs
    plan = schedule(max_runs)
    scenarios = list(options.scenarios) or [s.id for s in suite.scenarios]
    alpha = config.alpha / max(1, len(scenarios))
    outcome = SequentialOutcome(max_runs, plan, alpha / 2, gating=("pass_rate",), variants=variants)

    def decide(runs: pd.DataFrame, active: list[str], look: int) -> dict[str, Decision]:
        decisions = decide_ab_look(
            runs,
            variants,
            look=look,
            plan=plan,
            alpha=alpha,
            crash_statuses=config.crash_statuses,
        )
        return {s: decisions.get(s, Decision(Action.CONTINUE)) for s in active}

    _looks(suite, runset, options, outcome, decide, progress, f"{variants[0]} vs {variants[1]}")
    return outcome.section()
