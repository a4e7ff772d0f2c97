"""Model (provider) faults injected by the wire endpoint into the calls of one run.

A session opened with a run's :class:`~trajguard.faults.ToolFaults` asks it, for each model
call, whether the call meets a model fault (the calls are counted under
:data:`~trajguard.faults.MODEL_CALLS`):

* ``provider_rate_limited``: answered 429 with ``Retry-After: <seconds>`` and an OpenAI-style
  ``rate_limit_exceeded`` error, without calling the model;
* ``provider_error``: answered 503 with a ``server_error``, without calling the model;
* ``truncated_output``: the model is called; its answer is cut off: half its text, no tool
  call, ``finish_reason`` ``length``;
* ``malformed_tool_call``: the model is called; each tool call's arguments are cut to broken
  JSON (when it called no tool, its text is cut instead).

A failed call is recorded with the error ``InjectedFault`` and ``notes`` naming the fault (the
trajectory's ``extra.llm_errors`` entry of that call carries it); a distorted answer's step
carries ``extra["trajguard_faults"]``.
"""

from __future__ import annotations

from dataclasses import replace

from trajguard.capture._types import LLMResponse
from trajguard.capture.zerocode import CallRecord
from trajguard.faults import FAULTS_KEY, MODEL_CALLS, FaultSpec, fault_kind

__all__ = ["INJECTED", "distort_answer", "failure_of", "mark"]

INJECTED = "InjectedFault"
"""The error type of a model call the wire failed on purpose (not an upstream error)."""


def mark(record: CallRecord, spec: FaultSpec, call: int) -> None:
    """Record on the call that it met ``spec`` (its ``call``-th model call, from 1)."""
    entry = {"tool_call_id": None, "tool": MODEL_CALLS, "kind": spec.kind, "model_call": call}
    notes = dict(record.notes or {})
    notes[FAULTS_KEY] = [*notes.get(FAULTS_KEY, []), entry]
    record.notes = notes


def failure_of(spec: FaultSpec) -> tuple[int, str, str, dict[str, str]] | None:
    """The HTTP answer of a failing fault: status, message, error code, headers (``None``
    for a fault that distorts the model's answer instead)."""
    message = (spec.message or fault_kind(spec.kind).message).format(seconds=spec.seconds)
    if spec.kind == "provider_rate_limited":
        return 429, message, "rate_limit_exceeded", {"Retry-After": f"{spec.seconds:g}"}
    if spec.kind == "provider_error":
        return 503, message, "server_error", {}
    return None


def distort_answer(spec: FaultSpec, response: LLMResponse) -> LLMResponse:
    """The model's answer as a distorting fault delivers it."""
    if spec.kind == "malformed_tool_call" and response.tool_calls:
        broken = tuple(
            replace(call, arguments=call.arguments[: max(1, len(call.arguments) // 2)])
            for call in response.tool_calls
        )
        return replace(response, tool_calls=broken)
    text = response.content or ""
    return replace(response, content=text[: len(text) // 2], tool_calls=(), finish_reason="length")
