"""Run rows as a run set holds them, for the comparison and report tests."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd


def run_row(
    scenario: str,
    passed: bool | None = True,
    tools: Sequence[str] = ("calc",),
    status: str = "ok",
    steps: int = 3,
    prompt: int = 100,
    *,
    batch: str | None = None,
    config_hash: str | None = None,
    duration: float = 1.0,
) -> dict[str, Any]:
    """One run's row; ``batch`` and ``config_hash`` only when given (history tests)."""
    tools = list(tools)
    row: dict[str, Any] = {"scenario": scenario}
    if batch is not None:
        row["batch_id"] = batch
    if config_hash is not None:
        row["config_hash"] = config_hash
    return row | {
        "variant": "base",
        "status": status,
        "passed": passed,
        "step_count": steps,
        "tool_sequence": tools,
        "tool_counts": {t: tools.count(t) for t in set(tools)},
        "prompt_tokens": prompt,
        "completion_tokens": 20,
        "duration_s": duration,
    }


def pass_rows(
    scenario: str,
    passes: int,
    n: int,
    tools: Sequence[str] = ("calc",),
    *,
    batch: str | None = None,
    config_hash: str | None = None,
    duration: float = 1.0,
) -> list[dict[str, Any]]:
    """``n`` runs of ``scenario``, the first ``passes`` of them passed."""
    return [
        run_row(
            scenario, i < passes, tools, batch=batch, config_hash=config_hash, duration=duration
        )
        for i in range(n)
    ]


def frame(rows: Sequence[dict[str, Any]]) -> pd.DataFrame:
    return pd.DataFrame(list(rows))
