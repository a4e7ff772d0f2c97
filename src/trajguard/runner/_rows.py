"""One run → one Parquet row (pure).

Statuses (:data:`trajguard.outcome.STATUS_TABLE` owns them): ``ok`` (the agent finished),
``crash`` (the agent's code raised or its command exited non-zero: ``error_type`` the
exception's class, ``error_message`` ending with where the agent's code raised it),
``agent_error`` (the agent gave up: ran out of steps, overflowed its context, or declared it),
``harness_error`` (trajguard or the infrastructure failed: excluded from every statistic),
``timeout`` (the per-run limit passed).

``crashed`` follows one rule (:func:`trajguard.outcome.crashed_flag`): true for every run of a
crash status (``crash``, ``agent_error``, ``timeout``; with steps or without), false for ``ok``,
null for a harness error. ``passed`` is null for a harness error (not judged) and false for a
crash (a run that did not end normally has not passed, whatever its criteria say;
``failed_criteria`` then starts with the reason), and otherwise whether every criterion held.
``criteria`` holds each criterion's label, whether it held and why not, for every judged run (a
crashed one included); null for a run not judged (a harness error, a crash before any step).

A ``judge`` criterion whose judge could not decide (unreachable, no verdict) is recorded as not
judged (``held`` null, with the reason); when no other criterion failed the run and it did not
crash, its pass cannot be decided: the run is a ``harness_error`` (``error_type``
:data:`JUDGE_FAILED`), never a fail. ``judge_calls`` (JSON) holds every judge criterion's
samples — verdict, reason, tokens — apart from the agent's own columns, which never count them;
``judge_cost_usd`` their dollars, apart from the agent's ``cost_usd`` (both priced by
:func:`trajguard.capture.price_of` from the suite's ``prices``, else litellm's price map; null when
unknown).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any

from trajguard._text import safe_str
from trajguard.atif import Trajectory
from trajguard.capture import Price, judge_cost, trajectory_cost
from trajguard.core.normalize import canonical_json, normalize
from trajguard.core.shape import shape
from trajguard.errors import AgentFailure, ModelUnavailable, UserCodeError
from trajguard.outcome import (
    CRITERION_ERROR,
    HARNESS_ERROR,
    Status,
    crashed_flag,
    is_behavioural,
    is_crash_row,
)
from trajguard.redaction import Redactor, environment_secrets
from trajguard.runner._conversation_rows import turn_results
from trajguard.runner._faults import fault_columns
from trajguard.runner._plan import RunSpec
from trajguard.runs import error_summaries
from trajguard.store import (
    MESSAGE_CHARS,
    criterion_entry,
    outcome_columns,
    run_columns,
    shape_columns,
    token_columns,
)
from trajguard.suite import CriterionResult, JudgeFunction, ScriptedTurn, evaluate_criteria

__all__ = ["JUDGE_FAILED", "build_row", "errors_by_arm", "final_output"]

JUDGE_FAILED = "judge_failed"
"""The ``error_type`` of a run whose pass a failed judge left undecided (a harness error)."""


def build_row(
    *,
    spec: RunSpec,
    batch: Mapping[str, Any],
    model: str,
    status: Status,
    started_at: datetime,
    duration_s: float,
    trajectory: Trajectory | None,
    criteria: list[Any],
    resolve: Callable[[str], Callable[[Mapping[str, Any]], object]],
    error: BaseException | None = None,
    error_message: str | None = None,
    final_answer_tool: str | None = None,
    faults_planned: bool = False,
    judge: JudgeFunction | None = None,
    turns: Sequence[ScriptedTurn] | None = None,
    prices: Mapping[str, Price] | None = None,
) -> dict[str, Any]:
    """The Parquet row of a finished run (see :data:`trajguard.store.RUN_SCHEMA`).

    Every string stored is redacted first (the patterns of :mod:`trajguard.redaction` and the
    values of the environment's secret-named variables): a provider that echoes an API key in
    an error, or an agent that prints one, does not put it in the run set.

    The final output is the answer the agent returned (``extra.final_output``), else the
    answer given through a call of ``final_answer_tool`` on the last agent step, else the text
    of the last agent step.
    """
    raised = _raised_by_agent(error)
    location = error.raised_at if isinstance(error, AgentFailure) else None
    if raised is not None:  # report the agent's own exception, not the wrapper around it
        error = raised
    if error_message is None and error is not None:
        error_message = safe_str(error)[:MESSAGE_CHARS] + (f"\n  at {location}" if location else "")
    redactor = Redactor(secrets=environment_secrets())
    row = run_columns(
        run_id=spec.run_id,
        batch=batch,
        scenario=spec.scenario,
        variant=spec.variant,
        run_index=spec.run_index,
        model=model,
        seed=spec.seed,
        started_at=started_at,
        duration_s=duration_s,
        git_sha=batch.get("git_sha"),
        config_hash=spec.config_hash,
        status=status,
        error_type=_error_type(error),
        error_message=_redacted(redactor, error_message),
        crashed=crashed_flag(status, raised is not None),
    )
    if trajectory is None:
        if is_crash_row(status, row["crashed"]):
            row.update(outcome_columns(row, passed=None, failed=[], criteria=None))
        else:
            row.update(passed=None, failed_criteria=None, criteria=None)
        return row
    normalized = redactor.value(normalize(trajectory))
    run_shape = shape(normalized)
    final = final_output(normalized, final_answer_tool)
    if final is not None:
        run_shape = replace(run_shape, final_output=final)
    crashed = crashed_flag(status, run_shape.crashed or raised is not None)
    extra_error = (trajectory.extra or {}).get("error")
    if row["error_message"] is None and isinstance(extra_error, Mapping):
        row["error_type"] = str(extra_error.get("type", "")) or None
        row["error_message"] = _redacted(
            redactor, str(extra_error.get("message", ""))[:MESSAGE_CHARS]
        )
    agent_error = (trajectory.extra or {}).get("agent_error")
    if row["error_message"] is None and isinstance(agent_error, Mapping):
        # ended without an answer (step cap, context overflow): the reason is the error type
        row["error_type"] = str(agent_error.get("reason", "")) or None
        row["error_message"] = _redacted(
            redactor, str(agent_error.get("message", ""))[:MESSAGE_CHARS]
        )
    judged = is_behavioural(status)
    results = (
        evaluate_criteria(criteria, normalized, run_shape, resolve=resolve, judge=judge)
        if judged
        else []
    )
    if judged and turns:  # a scripted conversation's criteria of each turn
        answer = functools.partial(final_output, final_answer_tool=final_answer_tool)
        results += turn_results(
            turns, normalized, final_output=answer, resolve=resolve, judge=judge
        )
    failed = [  # redacted like every stored string: a judge's reason may echo its key
        redactor.text(f"{r.criterion}: {r.reason}")
        for r in results
        if not r.passed and not r.undecided
    ]
    broken = [f"{r.criterion}: {r.reason}" for r in results if r.error]
    if broken and row["error_type"] is None:  # the user's criterion failed, not the agent
        row["error_type"] = CRITERION_ERROR
        row["error_message"] = _redacted(redactor, broken[0][:MESSAGE_CHARS])
    row["crashed"] = crashed
    crash = is_crash_row(status, row["crashed"])
    entries = [_criterion_entry(redactor, r) for r in results] if judged else None
    row.update(
        outcome_columns(row, passed=not failed if judged else None, failed=failed, criteria=entries)
    )
    row.update(shape_columns(normalized, run_shape))
    row.update(token_columns(run_shape.prompt_tokens, run_shape.completion_tokens))
    row["cost_usd"] = trajectory_cost(trajectory, model, prices)
    final_text = run_shape.final_output
    row["final_output"] = None if final_text is None else redactor.text(final_text)
    if judged:
        output = run_shape.final_output or ""
        row.update(fault_columns(normalized, output, planned=faults_planned, criteria=criteria))
    records = [r.judge_record for r in results if r.judge_record is not None]
    row["judge_calls"] = canonical_json(redactor.value(records)) if records else None
    row["judge_cost_usd"] = judge_cost(records, prices)
    undecided = [r for r in results if r.undecided]
    if undecided and not failed and not crash:  # the pass cannot be decided: not the agent's
        row.update(
            status=HARNESS_ERROR,
            passed=None,
            crashed=None,
            failed_criteria=None,
            error_type=JUDGE_FAILED,
            error_message=_redacted(redactor, undecided[0].reason[:MESSAGE_CHARS]),
        )
    return row


def final_output(normalized: Mapping[str, Any], final_answer_tool: str | None) -> str | None:
    """The answer a run gave other than as its last message, or ``None``: the string the
    agent returned, or the argument of a final-answer tool call on its last agent step."""
    returned = (normalized.get("extra") or {}).get("final_output")
    if isinstance(returned, str):
        return returned
    agent_steps = [s for s in normalized.get("steps", []) if s.get("source") == "agent"]
    if final_answer_tool is None or not agent_steps:
        return None
    calls = [
        call
        for call in agent_steps[-1].get("tool_calls") or ()
        if call.get("function_name") == final_answer_tool
    ]
    if not calls:
        return None
    arguments = calls[-1].get("arguments") or {}
    if isinstance(arguments, Mapping) and "answer" in arguments:
        answer = arguments["answer"]
    elif isinstance(arguments, Mapping) and len(arguments) == 1:
        answer = next(iter(arguments.values()))
    else:
        answer = arguments
    return answer if isinstance(answer, str) else canonical_json(answer)


def errors_by_arm(rows: Sequence[Mapping[str, Any]], *, top: int = 3) -> dict[str, Any]:
    """The most common errors of some rows per ``scenario/variant`` (arms without any left out):
    :func:`trajguard.runs.error_summaries` keyed as a batch's manifest keys them."""
    by_arm = error_summaries(rows, top=top)
    return dict(
        sorted((f"{scenario}/{variant}", errors) for (scenario, variant), errors in by_arm.items())
    )


def _error_type(error: BaseException | None) -> str | None:
    """A run's ``error_type``: the provider failure's reason (``rate_limited``,
    ``unreachable``, ``auth`` …) for a model that did not answer, else the exception's class."""
    if error is None:
        return None
    if isinstance(error, ModelUnavailable):
        return error.reason
    if isinstance(error, UserCodeError):  # the user's code's own exception, not the wrapper
        return error.error_type
    return type(error).__name__


def _criterion_entry(redactor: Redactor, result: CriterionResult) -> dict[str, Any]:
    """One entry of the ``criteria`` column (its reason redacted like every stored string)."""
    return criterion_entry(
        criterion=result.label or result.criterion,
        held=None if result.undecided else result.passed,
        reason=redactor.text(result.reason) if result.reason else "",
        error=result.error,
    )


def _redacted(redactor: Redactor, text: str | None) -> str | None:
    """An error message to store: redacted, and ``None`` for none or an empty one."""
    return (redactor.text(text) or None) if text else None


def _raised_by_agent(error: BaseException | None) -> BaseException | None:
    """The agent's own exception, when ``error`` is the :class:`AgentFailure` wrapping it."""
    if isinstance(error, AgentFailure) and isinstance(error.__cause__, Exception):
        return error.__cause__
    return None
