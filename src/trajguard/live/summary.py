"""Per-scenario summaries of a run set (pure; what ``trajguard show`` prints)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from trajguard.live.runs import is_crash  # one definition of a crash for show and compare

__all__ = ["ArmSummary", "summarize"]


@dataclass(frozen=True)
class ArmSummary:
    """One scenario under one variant."""

    scenario: str
    variant: str
    runs: int
    statuses: dict[str, int]
    judged: int
    passed: int
    crashed: int
    median_steps: float | None
    median_tokens: float | None
    top_sequences: list[tuple[tuple[str, ...], int]]
    distinct_sequences: int

    @property
    def pass_rate(self) -> float | None:
        """Passed runs over judged runs (harness errors and unjudged runs excluded)."""
        return self.passed / self.judged if self.judged else None

    @property
    def crash_rate(self) -> float | None:
        """Crashed runs over behavioural runs (harness errors excluded)."""
        behavioural = self.runs - self.statuses.get("harness_error", 0)
        return self.crashed / behavioural if behavioural else None


def _median(values: Any) -> float | None:
    clean = values.dropna()
    return float(clean.median()) if len(clean) else None


def _total_tokens(runs: Any) -> Any:
    if "total_tokens" in runs.columns:
        return runs["total_tokens"]
    return runs["prompt_tokens"] + runs["completion_tokens"]


def summarize(runs: Any, *, top: int = 3) -> list[ArmSummary]:
    """Summaries per (scenario, variant) of a run-set DataFrame, in scenario order."""
    out = []
    keys = ["scenario", "variant"] if "variant" in runs.columns else ["scenario"]
    for key, group in runs.groupby(keys, sort=True):
        scenario, variant = key if len(keys) == 2 else (key[0], "base")
        behavioural = group[group["status"] != "harness_error"]
        judged = behavioural["passed"].dropna()
        sequences = Counter(tuple(seq) for seq in behavioural["tool_sequence"] if seq is not None)
        out.append(
            ArmSummary(
                scenario=str(scenario),
                variant=str(variant),
                runs=len(group),
                statuses=dict(Counter(group["status"])),
                judged=len(judged),
                passed=int(judged.astype(bool).sum()),
                crashed=int(is_crash(behavioural).sum()),
                median_steps=_median(behavioural["step_count"]),
                median_tokens=_median(_total_tokens(behavioural)),
                top_sequences=sequences.most_common(top),
                distinct_sequences=len(sequences),
            )
        )
    return out
