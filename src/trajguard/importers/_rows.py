"""One imported run → one Parquet row of :data:`trajguard.store.RUN_SCHEMA` (pure).

The row is what ``trajguard run`` would have written for the same run, from what the source
recorded: with a trajectory, its shape fills the step, tool and token columns as it does for a
run of trajguard's own; without one, those columns stay null (the source lacks them), except the
token columns when the source recorded usage. Every string is redacted, as in a batch's rows.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from trajguard.core.normalize import normalize
from trajguard.core.shape import shape
from trajguard.importers._model import ImportedCriterion, ImportedRun
from trajguard.outcome import is_behavioural
from trajguard.redaction import Redactor
from trajguard.store import (
    MESSAGE_CHARS,
    criterion_entry,
    outcome_columns,
    run_columns,
    shape_columns,
    token_columns,
)

__all__ = ["imported_row", "run_id"]


def run_id(run: ImportedRun) -> str:
    """The run's id within its run set, as a batch names its runs."""
    return f"{run.scenario}/{run.variant}/{run.run_index}"


def imported_row(
    run: ImportedRun, *, batch: Mapping[str, Any], redactor: Redactor
) -> dict[str, Any]:
    """The Parquet row of one imported run (``batch``: ``batch_id``, ``suite``,
    ``trajguard_version``)."""
    judged = is_behavioural(run.status)
    row = run_columns(
        run_id=run_id(run),
        batch=batch,
        scenario=run.scenario,
        variant=run.variant,
        run_index=run.run_index,
        model=run.model,
        seed=None,
        started_at=run.started_at,
        duration_s=run.duration_s,
        git_sha=None,
        config_hash=run.config_hash,
        status=run.status,
        error_type=run.error_type,
        error_message=_text(redactor, run.error_message, MESSAGE_CHARS),
        crashed=run.crashed if judged else None,
    )
    row["cost_usd"] = run.cost_usd
    row.update(token_columns(run.prompt_tokens, run.completion_tokens))
    row["final_output"] = _text(redactor, run.final_output, None)
    failed = [_failure(redactor, c) for c in run.criteria if c.held is False]
    if judged:  # on the source's own crash flag: the trajectory's only fills a missing one
        entries = [_criterion(redactor, c) for c in run.criteria]
        row.update(outcome_columns(row, passed=run.passed, failed=failed, criteria=entries))
    else:
        row.update(passed=None, failed_criteria=None, criteria=None)
    if run.trajectory is not None:
        row.update(_shape_columns(run, redactor))
    return row


def _shape_columns(run: ImportedRun, redactor: Redactor) -> dict[str, Any]:
    assert run.trajectory is not None
    normalized = redactor.value(normalize(run.trajectory))
    run_shape = shape(normalized)
    columns = shape_columns(normalized, run_shape)
    if run.prompt_tokens is None and run.completion_tokens is None:
        has_usage = any(step.metrics is not None for step in run.trajectory.steps)
        if has_usage:
            columns.update(token_columns(run_shape.prompt_tokens, run_shape.completion_tokens))
    if run.final_output is None and run_shape.final_output is not None:
        columns["final_output"] = redactor.text(run_shape.final_output)
    if run.crashed is None and is_behavioural(run.status):
        columns["crashed"] = run_shape.crashed
    return columns


def _criterion(redactor: Redactor, criterion: ImportedCriterion) -> dict[str, Any]:
    reason = criterion.reason
    if criterion.value:
        reason = f"value {criterion.value}" + (f": {reason}" if reason else "")
    return criterion_entry(
        criterion=criterion.name,
        held=criterion.held,
        reason=redactor.text(reason[:MESSAGE_CHARS]),
        error=False,
    )


def _failure(redactor: Redactor, criterion: ImportedCriterion) -> str:
    detail = criterion.reason or (f"value {criterion.value}" if criterion.value else "failed")
    return redactor.text(f"{criterion.name}: {detail}"[:MESSAGE_CHARS])


def _text(redactor: Redactor, text: str | None, limit: int | None) -> str | None:
    if not text:
        return None
    return redactor.text(text if limit is None else text[:limit]) or None
