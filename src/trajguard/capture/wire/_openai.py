"""The OpenAI wire format of what the endpoint answers: completions, stream chunks, errors."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator
from typing import Any

from trajguard.capture._types import LLMResponse

__all__ = ["completion_body", "error_body", "stream_events"]


def _message(response: LLMResponse) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": response.content}
    if response.tool_calls:
        message["tool_calls"] = [call.to_message_part() for call in response.tool_calls]
    return message


def _finish_reason(response: LLMResponse) -> str:
    if response.tool_calls:
        return "tool_calls"
    return response.finish_reason or "stop"


def _usage(response: LLMResponse) -> dict[str, Any]:
    usage = response.usage
    body: dict[str, Any] = {
        "prompt_tokens": usage.prompt_tokens,
        "completion_tokens": usage.completion_tokens,
        "total_tokens": usage.prompt_tokens + usage.completion_tokens,
    }
    if usage.cached_tokens:
        body["prompt_tokens_details"] = {"cached_tokens": usage.cached_tokens}
    return body


def completion_body(response: LLMResponse, *, model: str) -> dict[str, Any]:
    """A ``chat.completion`` object for a non-streaming request."""
    return {
        "id": f"chatcmpl-{uuid.uuid4().hex}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": _message(response),
                "finish_reason": _finish_reason(response),
                "logprobs": None,
            }
        ],
        "usage": _usage(response),
    }


def stream_events(response: LLMResponse, *, model: str, include_usage: bool) -> Iterator[bytes]:
    """The server-sent events of a streaming request, ``data: [DONE]`` last.

    The model is called without streaming (so its token counts and tool calls are the
    server's own), and its answer is sent as one delta followed by the finish reason.
    """
    base = {
        "id": f"chatcmpl-{uuid.uuid4().hex}",
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": model,
    }
    delta: dict[str, Any] = {"role": "assistant", "content": response.content or ""}
    if response.tool_calls:
        delta["tool_calls"] = [
            {"index": index, **call.to_message_part()}
            for index, call in enumerate(response.tool_calls)
        ]
    chunks: list[dict[str, Any]] = [
        {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
        {
            **base,
            "choices": [{"index": 0, "delta": {}, "finish_reason": _finish_reason(response)}],
        },
    ]
    if include_usage:
        chunks.append({**base, "choices": [], "usage": _usage(response)})
    for chunk in chunks:
        yield b"data: " + json.dumps(chunk, ensure_ascii=False).encode() + b"\n\n"
    yield b"data: [DONE]\n\n"


def error_body(
    message: str, *, kind: str = "invalid_request_error", param: str | None, code: str | None
) -> dict[str, Any]:
    """An OpenAI-style error object (what the SDKs parse into their exceptions)."""
    return {"error": {"message": message, "type": kind, "param": param, "code": code}}
