"""How litellm's answers and errors are read: responses, usage, and which errors merit a retry."""

from __future__ import annotations

import re
from types import ModuleType
from typing import Any

from trajguard.capture.types import LLMResponse, ToolCallRequest, Usage

__all__ = [
    "describe",
    "is_request_validation_error",
    "is_transient",
    "mentions_context",
    "retryable_errors",
    "to_response",
    "usage",
]


def retryable_errors(litellm: ModuleType) -> tuple[type[BaseException], ...]:
    # Timeout subclasses openai's APIConnectionError, but litellm may raise either; list both.
    return (
        litellm.APIConnectionError,
        litellm.Timeout,
        litellm.RateLimitError,
        litellm.ServiceUnavailableError,
        litellm.InternalServerError,
        litellm.BadGatewayError,
    )


def is_transient(exc: Exception, retryable: tuple[type[BaseException], ...]) -> bool:
    if is_request_validation_error(exc):
        return False
    if isinstance(exc, retryable):
        return True
    # litellm raises its generic APIError for 5xx codes it has no class for (504, 520, ...).
    status = getattr(exc, "status_code", None)
    return isinstance(status, int) and (status == 429 or status >= 500)


def is_request_validation_error(exc: Exception) -> bool:
    # The llama.cpp server answers a malformed request (e.g. response_format type json_schema)
    # with HTTP 500 and a pydantic "validation error" on the body: retrying cannot help.
    text = str(exc)
    return (
        getattr(exc, "status_code", None) == 500
        and "validation error" in text
        and ("'body'" in text)
    )


# litellm stacks class names in front of the provider's text:
# "litellm.ContextWindowExceededError: litellm.BadRequestError: ...: OpenAIException - <text>".
_PREFIX_NOISE = re.compile(r"^(?:(?:litellm\.)?\w+(?:Error|Exception|Timeout)(?::|\s+-)\s*)+")


def describe(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    first = _PREFIX_NOISE.sub("", lines[0]).strip() if lines else ""
    return f"{type(exc).__name__}: {first}" if first else type(exc).__name__


def mentions_context(exc: BaseException) -> bool:
    text = str(exc).lower()
    return "context length" in text or "context window" in text or "maximum context" in text


def to_response(raw: Any, *, latency_s: float) -> LLMResponse:
    choice = raw.choices[0]
    message = choice.message
    calls = tuple(
        ToolCallRequest(
            id=str(call.id or ""),
            name=str(call.function.name or ""),
            arguments=str(call.function.arguments or ""),
        )
        for call in (getattr(message, "tool_calls", None) or ())
    )
    return LLMResponse(
        content=message.content,
        tool_calls=calls,
        finish_reason=choice.finish_reason,
        usage=usage(getattr(raw, "usage", None)),
        model=str(raw.model or ""),
        latency_s=latency_s,
    )


def usage(usage: Any) -> Usage:
    if usage is None:
        return Usage()
    details = getattr(usage, "prompt_tokens_details", None)
    cached = getattr(details, "cached_tokens", None) if details is not None else None
    return Usage(
        prompt_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
        completion_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
        cached_tokens=int(cached or 0),
    )
