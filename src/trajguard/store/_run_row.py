"""One run's row of :data:`~trajguard.store.RUN_SCHEMA`, built by the same functions whether
``trajguard run`` ran it or ``trajguard import`` read it from another tool's log.

A row is its run's identity (:func:`run_columns`), the shape of its trajectory when there is one
(:func:`shape_columns`, :func:`token_columns`) and its outcome (:func:`outcome_columns`, one
:func:`criterion_entry` per criterion); what only a batch records (faults, judges, a
conversation) its builder adds. Every string given is stored as given: the callers redact.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any

from trajguard.outcome import crash_reason, is_crash_row

if TYPE_CHECKING:  # the store's face loads this module: reading runs needs no ATIF models
    from trajguard.core.shape import Shape

__all__ = [
    "MESSAGE_CHARS",
    "criterion_entry",
    "outcome_columns",
    "run_columns",
    "shape_columns",
    "token_columns",
]

MESSAGE_CHARS = 2000
"""The most characters of an error message or a criterion's reason a row keeps."""


def run_columns(
    *,
    run_id: str,
    batch: Mapping[str, Any],
    scenario: str,
    variant: str,
    run_index: int,
    model: str,
    seed: int | None,
    started_at: datetime | None,
    duration_s: float | None,
    git_sha: str | None,
    config_hash: str | None,
    status: str,
    error_type: str | None,
    error_message: str | None,
    crashed: bool | None,
) -> dict[str, Any]:
    """The columns every row has: which run, of which batch (``batch``: ``batch_id``,
    ``suite``, ``trajguard_version``), when, how it ended."""
    return {
        "run_id": run_id,
        "batch_id": batch["batch_id"],
        "suite": batch["suite"],
        "scenario": scenario,
        "variant": variant,
        "run_index": run_index,
        "model": model,
        "seed": seed,
        "started_at": started_at,
        "duration_s": duration_s,
        "git_sha": git_sha,
        "config_hash": config_hash,
        "trajguard_version": batch["trajguard_version"],
        "status": status,
        "error_type": error_type,
        "error_message": error_message,
        "crashed": crashed,
    }


def shape_columns(normalized: Mapping[str, Any], run_shape: Shape) -> dict[str, Any]:
    """The columns of a run's (normalized, redacted) trajectory: its steps, tool calls and the
    trajectory itself."""
    from trajguard.core.normalize import canonical_json

    return {
        "atif_schema_version": run_shape.schema_version,
        "step_count": run_shape.step_count,
        "agent_steps": sum(1 for source, _ in run_shape.steps if source == "agent"),
        "llm_calls": run_shape.llm_calls,
        "tool_call_count": len(run_shape.tool_calls),
        "tool_sequence": list(run_shape.tool_calls),
        "tool_counts": dict(run_shape.tool_counts),
        "subagent_count": run_shape.subagent_count,
        "content_hash": run_shape.content_hash,
        "trajectory": canonical_json(normalized),
    }


def token_columns(prompt: int | None, completion: int | None) -> dict[str, Any]:
    """The token columns: the total is null only when neither count is known."""
    unknown = prompt is None and completion is None
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": None if unknown else (prompt or 0) + (completion or 0),
    }


def outcome_columns(
    row: Mapping[str, Any],
    *,
    passed: bool | None,
    failed: list[str],
    criteria: list[dict[str, Any]] | None,
) -> dict[str, Any]:
    """``passed``, ``failed_criteria`` and ``criteria`` of a row whose other columns are set:
    a crash has not passed, whatever its criteria say, and its failed criteria start with how
    it ended (:func:`trajguard.outcome.crash_reason`)."""
    crash = is_crash_row(row["status"], row["crashed"])
    return {
        "passed": False if crash else passed,
        "failed_criteria": [crash_reason(row), *failed] if crash else failed,
        "criteria": criteria,
    }


def criterion_entry(
    *, criterion: str, held: bool | None, reason: str, error: bool
) -> dict[str, Any]:
    """One entry of the ``criteria`` column (:data:`~trajguard.store.CRITERION_TYPE`)."""
    return {"criterion": criterion, "held": held, "reason": reason, "error": error}
