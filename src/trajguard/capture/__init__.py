"""Capture: an agent run becomes an ATIF trajectory.

The value types every model stands behind (:class:`ChatModel`, :class:`LLMResponse`); the model
layer (:class:`LiteLLMModel`, the one caller of litellm); the recorder
(:class:`TrajectoryRecorder`: model calls and tool results as ATIF steps); cassettes
(:class:`Cassette`, :class:`RecordingModel`, :class:`ReplayModel`: record once, replay
strictly); the prices of model calls (:func:`price_of`, :func:`trajectory_cost`); zero-code
capture of agents that call litellm themselves (:mod:`.zerocode`) and the OpenAI-compatible
wire endpoint (:mod:`.wire`).

Names load on first use: litellm is heavy, and the pytest plugin reads cassettes without the
model layer.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_EXPORTS = {
    "ChatModel": "trajguard.capture._types",
    "LLMResponse": "trajguard.capture._types",
    "Message": "trajguard.capture._types",
    "ToolCallRequest": "trajguard.capture._types",
    "Usage": "trajguard.capture._types",
    "BUILTIN_PATTERNS": "trajguard.capture._cassette",
    "FORMAT": "trajguard.capture._cassette",
    "FORMAT_VERSION": "trajguard.capture._cassette",
    "REDACTED": "trajguard.capture._cassette",
    "UNSTORED_PARAMS": "trajguard.capture._cassette",
    "Cassette": "trajguard.capture._cassette",
    "Interaction": "trajguard.capture._cassette",
    "RecordedError": "trajguard.capture._cassette",
    "Redactor": "trajguard.capture._cassette",
    "cassette_path": "trajguard.capture._cassette",
    "fingerprint": "trajguard.capture._cassette",
    "make_request": "trajguard.capture._cassette",
    "redact_response": "trajguard.capture._cassette",
    "stored_params": "trajguard.capture._cassette",
    "DEFAULT_MODEL": "trajguard.capture._llm",
    "MAX_RETRY_AFTER_S": "trajguard.capture._llm",
    "LiteLLMModel": "trajguard.capture._llm",
    "backoff_delay": "trajguard.capture._llm",
    "model_problem": "trajguard.capture._llm",
    "release_loop_clients": "trajguard.capture._llm",
    "Price": "trajguard.capture._prices",
    "PriceSource": "trajguard.capture._prices",
    "call_cost": "trajguard.capture._prices",
    "judge_cost": "trajguard.capture._prices",
    "price_of": "trajguard.capture._prices",
    "trajectory_cost": "trajguard.capture._prices",
    "user_cost": "trajguard.capture._prices",
    "TrajectoryRecorder": "trajguard.capture._recorder",
    "recording": "trajguard.capture._recorder",
    "utc_timestamp": "trajguard.capture._recorder",
    "RecordingModel": "trajguard.capture._replay",
    "ReplayModel": "trajguard.capture._replay",
    "describe_drift": "trajguard.capture._replay",
    "model_params": "trajguard.capture._replay",
}

__all__ = [
    "BUILTIN_PATTERNS",
    "DEFAULT_MODEL",
    "FORMAT",
    "FORMAT_VERSION",
    "MAX_RETRY_AFTER_S",
    "REDACTED",
    "UNSTORED_PARAMS",
    "Cassette",
    "ChatModel",
    "Interaction",
    "LLMResponse",
    "LiteLLMModel",
    "Message",
    "Price",
    "PriceSource",
    "RecordedError",
    "RecordingModel",
    "Redactor",
    "ReplayModel",
    "ToolCallRequest",
    "TrajectoryRecorder",
    "Usage",
    "backoff_delay",
    "call_cost",
    "cassette_path",
    "describe_drift",
    "fingerprint",
    "judge_cost",
    "make_request",
    "model_params",
    "model_problem",
    "price_of",
    "recording",
    "redact_response",
    "release_loop_clients",
    "stored_params",
    "trajectory_cost",
    "user_cost",
    "utc_timestamp",
]

if TYPE_CHECKING:
    from trajguard.capture._cassette import (
        BUILTIN_PATTERNS,
        FORMAT,
        FORMAT_VERSION,
        REDACTED,
        UNSTORED_PARAMS,
        Cassette,
        Interaction,
        RecordedError,
        Redactor,
        cassette_path,
        fingerprint,
        make_request,
        redact_response,
        stored_params,
    )
    from trajguard.capture._llm import (
        DEFAULT_MODEL,
        MAX_RETRY_AFTER_S,
        LiteLLMModel,
        backoff_delay,
        model_problem,
        release_loop_clients,
    )
    from trajguard.capture._prices import (
        Price,
        PriceSource,
        call_cost,
        judge_cost,
        price_of,
        trajectory_cost,
        user_cost,
    )
    from trajguard.capture._recorder import TrajectoryRecorder, recording, utc_timestamp
    from trajguard.capture._replay import RecordingModel, ReplayModel, describe_drift, model_params
    from trajguard.capture._types import ChatModel, LLMResponse, Message, ToolCallRequest, Usage


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'trajguard.capture' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
