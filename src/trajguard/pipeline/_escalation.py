"""Escalation (``--max-runs``): run the night, then more runs for the scenarios that lean harmful.

The design is :func:`trajguard.compare.escalation_design`; every look resumes the same run set,
so seeds and rows are those of one batch. ``nightly`` tests the candidate against the baseline,
``ab`` variant B against variant A (two-sided: a scenario escalates when it leans towards any
difference).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import pandas as pd

from trajguard.compare import (
    CompareConfig,
    Comparison,
    EscalationDesign,
    EscalationLook,
    EscalationStop,
    compare_runsets,
    escalation_design,
    later_look,
    leaning,
)
from trajguard.run import BatchOptions, ObserverFactory, execute
from trajguard.store import read_runs
from trajguard.suite import Suite

__all__ = ["Escalation", "run_escalation"]

# (baseline-side rows, candidate-side rows) of the batch so far.
Split = Callable[[pd.DataFrame], tuple[pd.DataFrame, pd.DataFrame]]


@dataclass(frozen=True, kw_only=True)
class Escalation:
    """What an escalated night did: the design, the first look's comparison, where each
    scenario stopped."""

    design: EscalationDesign
    first: Comparison
    stops: dict[str, EscalationStop]


def run_escalation(
    suite: Suite,
    runset: Path,
    options: BatchOptions,
    *,
    max_runs: int,
    config: CompareConfig,
    split: Split,
    observe: ObserverFactory | None = None,
    label: str = "",
) -> Escalation:
    """Run the night at N, then escalate the scenarios that lean harmful up to ``max_runs``.

    Args:
        suite: the suite.
        runset: the candidate run set (created by the first look, resumed after).
        options: batch options; ``runs`` (or the suite's) is the first look's N.
        max_runs: the budget per scenario.
        config: comparison settings (``alpha`` is the report's whole level).
        split: baseline and candidate rows from the batch's rows so far.
        observe: progress of each look.
        label: the batches' label on the progress display.
    """
    first_n = options.runs or suite.defaults.runs
    scenarios = list(options.scenarios) or [s.id for s in suite.scenarios]
    design = escalation_design(
        first=first_n, max_runs=max_runs, alpha=config.alpha, scenarios=len(scenarios)
    )
    name = label or suite.name
    execute(
        suite,
        runset,
        replace(options, runs=first_n),
        observe=observe,
        label=f"{name} look 1/{len(design.looks)}",
    )
    base, cand = split(read_runs(runset))
    first = compare_runsets(base, cand, config=replace(config, alpha=design.alpha_first))
    decided = leaning(first, design)
    stops = {s: stop for s, stop in decided.items() if stop is not None}
    active = [s for s, stop in decided.items() if stop is None]
    seen: dict[str, tuple[EscalationLook, ...]] = {s: () for s in active}
    # One scenario at a time, resolved finely enough for the later looks' small thresholds.
    finest = min(design.thresholds)
    resampling = replace(
        config.resampling,
        max_resamples=max(config.resampling.max_resamples, math.ceil(20 / finest)),
    )
    single = replace(config, suite_share=0.0, resampling=resampling)
    for look in range(1, len(design.looks)):
        if not active:
            break
        execute(
            suite,
            runset,
            replace(options, runs=design.looks[look], scenarios=tuple(active)),
            resume=True,
            observe=observe,
            label=f"{name} look {look + 1}/{len(design.looks)}",
        )
        base, cand = split(read_runs(runset))
        still = []
        for scenario in active:
            b = base[base["scenario"] == scenario]
            c = cand[cand["scenario"] == scenario]
            result = compare_runsets(b, c, config=single).scenario(scenario)
            stop, seen[scenario] = later_look(
                result, design, look, seen[scenario], two_sided=config.two_sided
            )
            if stop is None:
                still.append(scenario)
            else:
                stops[scenario] = stop
        active = still
    return Escalation(design=design, first=first, stops=stops)
