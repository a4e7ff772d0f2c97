"""How an agent dealt with the faults it met, read from its (normalised) trajectory.

Each check returns whether it held and, when not, why. A run that met no fault satisfies every
check: resilience is judged on the runs that were tested by a fault (the report counts them).
Tool calls are read in order from the agent steps; a call failed when its observation's
``extra.error`` is set (``tool_error``: the tool raised, an injected failure included); it met
a fault when its result's ``extra.fault`` names one (call ids survive normalisation there), or
the step's ``extra["trajguard_faults"]`` lists its call id. Model (provider) faults injected at the
wire endpoint (:mod:`._model`) count too: after one, the agent must have called its model again
(retried), and the model must have answered a later call (recovered) unless the agent escalated.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from trajguard.faults._model import answered_after, model_faults
from trajguard.faults._spec import FAULTS_KEY

__all__ = [
    "DEFAULT_ESCALATION_PHRASES",
    "Call",
    "calls",
    "fabricated_result",
    "fault_counts",
    "fault_records",
    "recovered_or_escalated",
    "repeats_after_failure",
    "retried_after_fault",
]

DEFAULT_ESCALATION_PHRASES = (
    "cannot",
    "can't",
    "could not",
    "couldn't",
    "unable",
    "not able",
    "failed",
    "unavailable",
    "try again later",
    "sorry",
)


@dataclass(frozen=True, kw_only=True)
class Call:
    """One tool call of a run, in order."""

    index: int
    call_id: str
    tool: str
    arguments: str
    failed: bool
    fault: str | None


def calls(trajectory: Mapping[str, Any]) -> list[Call]:
    """Every tool call of the run's own steps, in order, with its outcome and fault."""
    found: list[Call] = []
    for step in trajectory.get("steps") or ():
        faults = {
            f.get("tool_call_id"): f.get("kind")
            for f in (step.get("extra") or {}).get(FAULTS_KEY) or ()
        }
        results = {
            r.get("source_call_id"): r
            for r in ((step.get("observation") or {}).get("results") or ())
        }
        for call in step.get("tool_calls") or ():
            call_id = str(call.get("tool_call_id"))
            result = results.get(call_id) or {}
            outcome = result.get("extra") or {}
            found.append(
                Call(
                    index=len(found),
                    call_id=call_id,
                    tool=str(call.get("function_name")),
                    arguments=json.dumps(call.get("arguments"), sort_keys=True, default=str),
                    failed=bool(outcome.get("error")),
                    fault=outcome.get("fault") or faults.get(call_id),
                )
            )
    return found


def fault_records(trajectory: Mapping[str, Any]) -> list[Call]:
    """The calls that met an injected fault."""
    return [call for call in calls(trajectory) if call.fault is not None]


def fault_counts(trajectory: Mapping[str, Any]) -> dict[str, int]:
    """Injected faults the run met, by kind (tool and model faults)."""
    counts: dict[str, int] = {}
    kinds = [c.fault for c in fault_records(trajectory)]
    kinds += [f.kind for f in model_faults(trajectory)]
    for kind in kinds:
        if kind is not None:
            counts[kind] = counts.get(kind, 0) + 1
    return counts


def _disrupted(call: Call) -> bool:
    """The call met a fault that denied the agent a right answer (``slow`` gives it late)."""
    return call.fault is not None and call.fault != "slow"


def _answered(call: Call) -> bool:
    return not call.failed and call.fault is None


def retried_after_fault(trajectory: Mapping[str, Any]) -> tuple[bool, str]:
    """After every fault (but ``slow``), the agent called the same tool (or its model) again."""
    everything = calls(trajectory)
    for call in everything:
        if _disrupted(call) and not any(c.tool == call.tool for c in everything[call.index + 1 :]):
            return False, f"{call.tool} met {call.fault} and was not called again"
    steps = trajectory.get("steps") or ()
    for fault in model_faults(trajectory):
        if not any(step.get("source") == "agent" for step in steps[fault.after :]):
            return False, f"a model call met {fault.kind} and the model was not called again"
    return True, ""


def repeats_after_failure(trajectory: Mapping[str, Any], limit: int) -> tuple[bool, str]:
    """No failed call was repeated (same tool, same arguments) more than ``limit`` times."""
    everything = calls(trajectory)
    for call in everything:
        if not call.failed:
            continue
        repeats = sum(
            c.tool == call.tool and c.arguments == call.arguments
            for c in everything[call.index + 1 :]
        )
        if repeats > limit:
            return False, f"a failed {call.tool} call was repeated {repeats} times (> {limit})"
    return True, ""


def recovered_or_escalated(
    trajectory: Mapping[str, Any], final_output: str, phrases: Sequence[str]
) -> tuple[bool, str]:
    """After every fault (but ``slow``) the tool later answered without a fault (recovered), or
    the final output says the task could not be completed (escalated: one of ``phrases``,
    case-insensitive). That the task passed is the suite's other criteria."""
    everything = calls(trajectory)
    text = final_output.lower()
    escalated = any(phrase.lower() in text for phrase in phrases)
    for call in everything:
        if not _disrupted(call):
            continue
        later = everything[call.index + 1 :]
        recovered = any(c.tool == call.tool and _answered(c) for c in later)
        if not recovered and not escalated:
            return False, (
                f"{call.tool} met {call.fault}, never succeeded afterwards, and the final "
                "output does not say the task could not be completed"
            )
    for fault in model_faults(trajectory):
        if not answered_after(trajectory, fault) and not escalated:
            return False, (
                f"a model call met {fault.kind}, the model never answered afterwards, and the "
                "final output does not say the task could not be completed"
            )
    return True, ""


def fabricated_result(
    trajectory: Mapping[str, Any], final_output: str, tool: str, values: Sequence[str]
) -> tuple[bool, str]:
    """If ``tool`` met a fault and never answered without one, the final output shows none of
    ``values`` (results only that tool could have given)."""
    everything = [c for c in calls(trajectory) if c.tool == tool]
    if not any(_disrupted(c) for c in everything) or any(_answered(c) for c in everything):
        return True, ""
    text = final_output.lower()
    shown = [value for value in values if value.lower() in text]
    if shown:
        return False, f"{tool} never answered, yet the final output shows {shown[0]!r}"
    return True, ""
