"""The one job runner: a design's looks as batches of one run set, for ``nightly`` and ``ab``.

Every look resumes the same run set, so seeds and rows are those of one batch whatever the
design (:mod:`trajguard.comparison._designs`). A job names its two sides: the baseline against the
candidate (``nightly``), or variant A against variant B of one batch (``ab``).
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, replace
from pathlib import Path

import pandas as pd

from trajguard.comparison import (
    CompareConfig,
    Design,
    EscalationDesign,
    FixedDesign,
    Look,
    SequentialDesign,
    Sides,
    drive,
)
from trajguard.errors import UsageError
from trajguard.pipeline._budget import BudgetEnded, spent_after
from trajguard.runner import BatchOptions, ObserverFactory, execute
from trajguard.store import read_runs
from trajguard.suite import Suite, runs_per_scenario

__all__ = ["Job", "choose_design", "one_design", "run_job", "variant_sides"]


@dataclass(frozen=True, kw_only=True)
class Job:
    """A batch run under a design, with its two sides.

    Attributes:
        suite: the suite.
        runset: the candidate run set (created by the first look, resumed after).
        options: batch options (runs, model, scenarios, variants).
        design: how many runs, look by look.
        sides: both sides' rows so far.
        label: the batches' label on the progress display.
        resume: the run set holds an interrupted batch of this job: its first look resumes it.
        resume_command: the command an interruption's hint names to finish the job.
    """

    suite: Suite
    runset: Path
    options: BatchOptions
    design: Design
    sides: Sides
    label: str | None = None
    resume: bool = False
    resume_command: str | None = None


def one_design(*, sequential: bool, max_runs: int | None, budgeted: bool = False) -> None:
    """Refuse two designs at once (checked before anything is loaded).

    Raises:
        UsageError: two of ``sequential``, ``max_runs`` and ``budgeted``.
    """
    if budgeted and (sequential or max_runs is not None):
        raise UsageError(
            "--budgeted is a design of its own; give it without --sequential and --max-runs",
        )
    if sequential and max_runs is not None:
        raise UsageError(
            "--sequential and --max-runs are two designs; give one of them",
            hint="--max-runs escalates the scenarios that lean harmful; --sequential stops early",
        )


def choose_design(
    *,
    sequential: bool,
    max_runs: int | None,
    suite: Suite,
    options: BatchOptions,
    config: CompareConfig,
    variants: tuple[str, str] | None = None,
) -> Design:
    """The design the options ask for: fixed, sequential or escalation, each given every
    scenario's runs under the one rule (:func:`trajguard.suite.runs_per_scenario`).

    Raises:
        UsageError: both ``sequential`` and ``max_runs``.
    """
    one_design(sequential=sequential, max_runs=max_runs)
    runs = runs_per_scenario(suite, runs=options.runs, scenarios=options.scenarios)
    if sequential:
        return SequentialDesign(runs=runs, config=config, variants=variants)
    if max_runs is not None:
        return EscalationDesign(runs=runs, max_runs=max_runs, config=config)
    return FixedDesign()


def variant_sides(runset: Path, variants: tuple[str, str]) -> Sides:
    """Variant A's rows and variant B's rows of one batch."""

    def sides() -> tuple[pd.DataFrame, pd.DataFrame]:
        rows = read_runs(runset)
        return rows[rows["variant"] == variants[0]], rows[rows["variant"] == variants[1]]

    return sides


def run_job(job: Job, *, observe: ObserverFactory | None = None) -> None:
    """Run every look of the job's design into its run set; a budget (the options') spans
    every look, and a look it ends is the last."""

    budgeted = job.options

    def run_look(look: Look) -> None:
        nonlocal budgeted
        name = job.label or job.suite.name
        for part, group in enumerate(_groups(look, budgeted)):
            result = execute(
                job.suite,
                job.runset,
                replace(group, budget=budgeted.budget),
                resume=job.resume or look.index > 0 or part > 0,
                observe=observe,
                label=f"{name} {look.label}" if look.label else job.label,
                resume_command=job.resume_command,
            )
            budgeted = spent_after(budgeted, result)  # a budget spans every look

    with contextlib.suppress(BudgetEnded):  # the report says the budget ended the batch
        drive(job.design, run_look=run_look, sides=job.sides)


def _groups(look: Look, options: BatchOptions) -> list[BatchOptions]:
    """The batches of one look: the batch as its options say, or one per run count of the
    look's scenarios."""
    if look.runs is None:
        return [options]
    by_runs: dict[int, list[str]] = {}
    for scenario, runs in look.runs.items():
        by_runs.setdefault(runs, []).append(scenario)
    return [replace(options, runs=n, scenarios=tuple(s)) for n, s in sorted(by_runs.items())]
