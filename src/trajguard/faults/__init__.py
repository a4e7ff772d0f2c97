"""Chaos: faults injected into an agent's tool calls, reproducibly, and the record of them.

A suite's ``faults:`` entries (:class:`FaultSpec`, kinds in :data:`FAULT_KINDS`) become one
:class:`FaultPlan` per run (:func:`plan_faults`: a pure function of the batch seed, scenario,
run index and fault configuration); :class:`ToolFaults` applies it to tool calls and logs every
injected fault. A trajectory records them in ``extra["trajguard_faults"]`` of the step that met
them (:data:`FAULTS_KEY`).
"""

from trajguard.faults._active import FaultsNotInjected, active_faults, inject_faults
from trajguard.faults._inject import FaultEvent, ToolFault, ToolFaults
from trajguard.faults._model import ModelFault, answered_after, model_faults
from trajguard.faults._plan import FaultPlan, plan_faults
from trajguard.faults._resilience import (
    DEFAULT_ESCALATION_PHRASES,
    Call,
    calls,
    fabricated_result,
    fault_counts,
    fault_records,
    recovered_or_escalated,
    repeats_after_failure,
    retried_after_fault,
)
from trajguard.faults._spec import (
    FAULT_KINDS,
    FAULTS_KEY,
    MODEL_CALLS,
    FaultKind,
    FaultSpec,
    FaultTarget,
    fault_kind,
)

__all__ = [
    "DEFAULT_ESCALATION_PHRASES",
    "FAULTS_KEY",
    "FAULT_KINDS",
    "MODEL_CALLS",
    "Call",
    "FaultEvent",
    "FaultKind",
    "FaultPlan",
    "FaultSpec",
    "FaultTarget",
    "FaultsNotInjected",
    "ModelFault",
    "ToolFault",
    "ToolFaults",
    "active_faults",
    "answered_after",
    "calls",
    "fabricated_result",
    "fault_counts",
    "fault_kind",
    "fault_records",
    "inject_faults",
    "model_faults",
    "plan_faults",
    "recovered_or_escalated",
    "repeats_after_failure",
    "retried_after_fault",
]
