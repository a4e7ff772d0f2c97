"""Sequential looks for ``nightly --sequential`` and ``ab --sequential``."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from trajguard.cli.run import execute
from trajguard.live.results import CompareConfig
from trajguard.live.runner import BatchOptions
from trajguard.live.runs import split_runs
from trajguard.live.sequential import Action
from trajguard.live.sequential_run import (
    LookRecord,
    SequentialOutcome,
    decide_ab_look,
    decide_look,
    gating_alpha,
    schedule,
)
from trajguard.live.store import read_runs
from trajguard.live.suite import Suite


def _looks(
    suite: Suite,
    runset: Path,
    options: BatchOptions,
    outcome: SequentialOutcome,
    decide: object,
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
        actions = decide(read_runs(runset), active, look)  # type: ignore[operator]
        outcome.looks.append(LookRecord(look, runs, {s: a.value for s, a in actions.items()}))
        for scenario, action in actions.items():
            if action is not Action.CONTINUE:
                outcome.stopped[scenario] = (runs, action.value)
        active = [s for s in active if actions.get(s, Action.CONTINUE) is Action.CONTINUE]
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
) -> tuple[str, bool]:
    """Run the candidate in looks against ``baseline``; returns the report section and the
    sequential gate's verdict (True: some scenario regressed)."""
    max_runs = options.runs or suite.defaults.runs
    plan = schedule(max_runs)
    base_arms = split_runs(read_runs(baseline), side="baseline")
    scenarios = list(options.scenarios) or [s.id for s in suite.scenarios]
    alpha = gating_alpha(config.alpha, len(scenarios))
    outcome = SequentialOutcome(max_runs, plan, alpha)

    def decide(runs: object, active: list[str], look: int) -> dict[str, Action]:
        arms = split_runs(runs, side="candidate")  # type: ignore[arg-type]
        current = {s: arms[s] for s in active if s in arms}
        return decide_look(base_arms, current, look=look, plan=plan, alpha=alpha)

    _looks(suite, runset, options, outcome, decide, progress, suite.name)
    return outcome.section(), outcome.regressed


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
    outcome = SequentialOutcome(max_runs, plan, alpha)

    def decide(runs: object, active: list[str], look: int) -> dict[str, Action]:
        actions = decide_ab_look(runs, variants, look=look, plan=plan, alpha=alpha)  # type: ignore[arg-type]
        return {s: actions.get(s, Action.CONTINUE) for s in active}

    _looks(suite, runset, options, outcome, decide, progress, f"{variants[0]} vs {variants[1]}")
    return outcome.section()
