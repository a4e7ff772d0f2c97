"""Per-scenario summaries of a run set (pure; what ``trajguard show`` prints)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

import pandas as pd

from trajguard.outcome import HARNESS_ERROR, ErrorCount, Tally, common_errors, tally

__all__ = ["ArmSummary", "summarize"]


@dataclass(frozen=True, kw_only=True)
class ArmSummary:
    """One scenario under one variant."""

    scenario: str
    variant: str
    statuses: dict[str, int]
    outcomes: Tally
    median_steps: float | None
    median_tokens: float | None
    top_sequences: list[tuple[tuple[str, ...], int]]
    distinct_sequences: int
    errors: tuple[ErrorCount, ...] = ()
    """The most common errors of its runs (type and first line of the message), if any."""

    @property
    def runs(self) -> int:
        """Every run, harness errors included."""
        return self.outcomes.runs

    @property
    def judged(self) -> int:
        """Runs with a pass/fail outcome (a crash is a failure)."""
        return self.outcomes.judged

    @property
    def passed(self) -> int:
        """Judged runs that passed."""
        return self.outcomes.passed

    @property
    def crashed(self) -> int:
        """Behavioural runs that crashed."""
        return self.outcomes.crashed

    @property
    def pass_rate(self) -> float | None:
        """Passed runs over judged runs (harness errors and unjudged runs excluded)."""
        return self.outcomes.pass_rate

    @property
    def crash_rate(self) -> float | None:
        """Crashed runs over behavioural runs (harness errors excluded)."""
        return self.outcomes.crash_rate


def _median(values: Any) -> float | None:
    clean = pd.to_numeric(values, errors="coerce").dropna()
    return float(clean.median()) if len(clean) else None


def _total_tokens(runs: pd.DataFrame) -> Any:
    if "total_tokens" in runs.columns:
        return runs["total_tokens"]
    return runs["prompt_tokens"] + runs["completion_tokens"]


def _errors(runs: pd.DataFrame, top: int) -> tuple[ErrorCount, ...]:
    if "error_type" not in runs.columns:
        return ()
    messages = runs["error_message"] if "error_message" in runs.columns else [None] * len(runs)
    return common_errors(zip(runs["error_type"], messages, strict=True), top=top)


def summarize(runs: pd.DataFrame, *, top: int = 3) -> list[ArmSummary]:
    """Summaries per (scenario, variant) of a run-set DataFrame, in scenario order."""
    out = []
    keys = ["scenario", "variant"] if "variant" in runs.columns else ["scenario"]
    for key, group in runs.groupby(keys, sort=True):
        scenario, variant = key if len(keys) == 2 else (key[0], "base")
        behavioural = group[group["status"] != HARNESS_ERROR]
        sequences = Counter(tuple(seq) for seq in behavioural["tool_sequence"] if seq is not None)
        out.append(
            ArmSummary(
                scenario=str(scenario),
                variant=str(variant),
                statuses=dict(Counter(group["status"])),
                outcomes=tally(group),
                median_steps=_median(behavioural["step_count"]),
                median_tokens=_median(_total_tokens(behavioural)),
                top_sequences=sequences.most_common(top),
                distinct_sequences=len(sequences),
                errors=_errors(group, top),
            )
        )
    return out
