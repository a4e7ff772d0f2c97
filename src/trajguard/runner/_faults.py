"""The faults of one run: its plan, their record in a callable agent's trajectory, its columns.

A run's plan is derived from the batch seed, the scenario, the run index and the faults'
configuration (:func:`trajguard.faults.plan_faults`), so baseline and candidate batches run with
one seed meet the same faults at the same run index, and a resumed batch the same as before.
A builtin agent applies it to its tools; a callable agent wraps its tools with
``ctx.faults.wrap`` (the faults it met are written onto the captured steps afterwards,
:func:`annotate_tool_faults`); the wire endpoint applies its model faults to every agent that
reaches its model there.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from trajguard.atif import Trajectory
from trajguard.faults import (
    FAULTS_KEY,
    MODEL_CALLS,
    FaultPlan,
    ToolFaults,
    fabricated_result,
    fault_counts,
    fault_kind,
    model_faults,
    plan_faults,
    recovered_or_escalated,
    retried_after_fault,
)
from trajguard.faults import calls as tool_calls
from trajguard.suite import ResolvedScenario

__all__ = ["FAULT_COLUMNS", "annotate_tool_faults", "fault_columns", "run_faults"]

FAULT_COLUMNS = (
    "faults_injected",
    "fault_kinds",
    "retried_after_fault",
    "recovered_or_escalated",
    "no_fabricated_result",
)
"""The run-table columns this module fills (null for a run of an arm without faults)."""


def run_faults(arm: ResolvedScenario, *, batch_seed: int, run_index: int) -> ToolFaults | None:
    """The faults of one run of ``arm`` (``None`` when the arm has none)."""
    if not arm.faults:
        return None
    plan: FaultPlan = plan_faults(
        arm.faults, batch_seed=batch_seed, scenario=arm.scenario, run_index=run_index
    )
    return ToolFaults(plan=plan)


def annotate_tool_faults(trajectory: Trajectory, faults: ToolFaults | None) -> Trajectory:
    """``trajectory`` with the tool faults a callable agent met written onto its steps.

    The wrapper counts each tool's calls as the trajectory does: the Nth call of tool T in
    step order is the Nth call the wrapper saw, so the fault is recorded on that call's step
    (``extra["trajguard_faults"]``) and result (``extra.fault``, and ``extra.error`` for a
    failing kind). Faults a trajectory already records (the reference agent's) are left as
    they are.
    """
    events = [e for e in (faults.events if faults else ()) if e.tool != MODEL_CALLS]
    if not events or any(FAULTS_KEY in (s.extra or {}) for s in trajectory.steps):
        return trajectory
    wanted = {(e.tool, e.call): e.kind for e in events}
    seen: Counter[str] = Counter()
    steps = []
    for step in trajectory.steps:
        met = []
        for call in step.tool_calls or ():
            seen[call.function_name] += 1
            kind = wanted.get((call.function_name, seen[call.function_name]))
            if kind is not None:
                met.append((call.tool_call_id, call.function_name, kind))
        if met:
            step = _mark(step, met)
        steps.append(step)
    return trajectory.model_copy(update={"steps": steps})


def _mark(step: Any, met: Sequence[tuple[str, str, str]]) -> Any:
    records = [{"tool_call_id": c, "tool": t, "kind": k} for c, t, k in met]
    extra = {**(step.extra or {}), FAULTS_KEY: records}
    observation = step.observation
    if observation is not None:
        kinds = {call_id: kind for call_id, _, kind in met}
        results = []
        for result in observation.results:
            kind = kinds.get(result.source_call_id or "")
            if kind is not None:
                marks = {
                    "fault": kind,
                    **({"error": "tool_error"} if fault_kind(kind).fails else {}),
                }
                result = result.model_copy(update={"extra": {**(result.extra or {}), **marks}})
            results.append(result)
        observation = observation.model_copy(update={"results": results})
    return step.model_copy(update={"extra": extra, "observation": observation})


def fault_columns(
    normalized: Mapping[str, Any],
    final_output: str,
    *,
    planned: bool,
    criteria: Sequence[Any] = (),
) -> dict[str, Any]:
    """The fault columns of a run's row (see :data:`FAULT_COLUMNS` and the README).

    Args:
        normalized: the run's normalised trajectory.
        planned: the run's arm has faults; otherwise every column is null.
        criteria: the scenario's pass criteria: ``no_fabricated_result`` is judged with the
            ``(tool, values)`` of its ``no_fabricated_result`` criteria (null without one);
            escalating is saying one of its ``recovered_or_escalated`` phrases (else the
            defaults).
    """
    if not planned:
        return dict.fromkeys(FAULT_COLUMNS)
    from trajguard.faults import DEFAULT_ESCALATION_PHRASES

    fabrication_checks = [(c.tool, c.values) for c in criteria if c.kind == "no_fabricated_result"]
    escalation_phrases = next(
        (c.phrases for c in criteria if c.kind == "recovered_or_escalated"), None
    )

    counts = fault_counts(normalized)
    disrupted = any(
        c.fault is not None and c.fault != "slow" for c in tool_calls(normalized)
    ) or bool(model_faults(normalized))
    row: dict[str, Any] = {
        "faults_injected": sum(counts.values()),
        "fault_kinds": counts,
        "retried_after_fault": None,
        "recovered_or_escalated": None,
        "no_fabricated_result": None,
    }
    if not disrupted:  # nothing to recover from: the resilience columns judge nothing
        return row
    phrases = escalation_phrases or DEFAULT_ESCALATION_PHRASES
    row["retried_after_fault"] = retried_after_fault(normalized)[0]
    row["recovered_or_escalated"] = recovered_or_escalated(normalized, final_output, phrases)[0]
    judged = [
        fabricated_result(normalized, final_output, tool, values)[0]
        for tool, values in fabrication_checks
        if any(c.tool == tool and c.fault not in (None, "slow") for c in tool_calls(normalized))
    ]
    if judged:
        row["no_fabricated_result"] = all(judged)
    return row
