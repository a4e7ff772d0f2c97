"""The model (provider) faults a run met, read from its trajectory.

The wire endpoint records a failed model call it injected (``provider_rate_limited``,
``provider_error``) in the trajectory's ``extra.llm_errors`` entry of that call, with its
``fault`` and ``after_step`` (how many steps came before it); a distorted answer
(``truncated_output``, ``malformed_tool_call``) is recorded in ``extra["trajguard_faults"]`` of
the agent step that answer became, as ``{"tool": "<model>", "kind": ...}``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from trajguard.faults._spec import FAULTS_KEY, MODEL_CALLS

__all__ = ["ModelFault", "answered_after", "model_faults"]


@dataclass(frozen=True, kw_only=True)
class ModelFault:
    """One model call that met a fault: its kind, and the index of the first step after it."""

    kind: str
    after: int
    failed: bool


def _steps(trajectory: Mapping[str, Any]) -> Sequence[Mapping[str, Any]]:
    return trajectory.get("steps") or ()


def model_faults(trajectory: Mapping[str, Any]) -> list[ModelFault]:
    """Every model call of the run that met an injected fault, failed calls first."""
    found = [
        ModelFault(kind=str(entry["fault"]), after=int(entry.get("after_step") or 0), failed=True)
        for entry in (trajectory.get("extra") or {}).get("llm_errors") or ()
        if isinstance(entry, Mapping) and entry.get("fault")
    ]
    for position, step in enumerate(_steps(trajectory)):
        for record in (step.get("extra") or {}).get(FAULTS_KEY) or ():
            if record.get("tool") == MODEL_CALLS:
                found.append(ModelFault(kind=str(record["kind"]), after=position + 1, failed=False))
    return found


def answered_after(trajectory: Mapping[str, Any], fault: ModelFault) -> bool:
    """Whether the model answered a later call without a fault (the agent called it again)."""
    for step in _steps(trajectory)[fault.after :]:
        if step.get("source") != "agent":
            continue
        met = (step.get("extra") or {}).get(FAULTS_KEY) or ()
        if not any(record.get("tool") == MODEL_CALLS for record in met):
            return True
    return False
