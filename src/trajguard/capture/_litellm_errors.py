"""How litellm's answers and errors are read: responses, usage, and which errors merit a retry."""

from __future__ import annotations

import email.utils
import re
import time
from dataclasses import replace
from types import ModuleType
from typing import Any

from trajguard.capture._types import LLMResponse, ToolCallRequest, Usage
from trajguard.capture._unparsed import raw_completion

__all__ = [
    "MalformedResponse",
    "describe",
    "failure_reason",
    "is_request_validation_error",
    "is_transient",
    "lacks_credentials",
    "mentions_context",
    "retry_after_s",
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


class MalformedResponse(Exception):
    """The endpoint answered 200 with something that is not a chat completion."""


def lacks_credentials(exc: BaseException) -> bool:
    # The OpenAI client refuses to send without a key, and litellm reports that as a 500.
    text = str(exc)
    return "Missing credentials" in text or "api_key client option must be set" in text


def is_transient(exc: Exception, retryable: tuple[type[BaseException], ...]) -> bool:
    if is_request_validation_error(exc) or lacks_credentials(exc):
        return False
    if isinstance(exc, MalformedResponse):
        return True
    if isinstance(exc, retryable):
        return True
    # litellm raises its generic APIError for 5xx codes it has no class for (504, 520, ...).
    status = getattr(exc, "status_code", None)
    return isinstance(status, int) and (status == 429 or status >= 500)


def _causes(exc: BaseException) -> list[str]:
    """The class names of ``exc`` and the exceptions behind it (litellm reports a cut
    connection or a body that is not JSON as an HTTP 500 it never received)."""
    names: list[str] = []
    current: BaseException | None = exc
    while current is not None and len(names) < 12:
        names.append(type(current).__name__)
        current = current.__cause__ or current.__context__
    return names


def failure_reason(exc: BaseException, litellm: ModuleType) -> str:
    """Which provider failure a transient error is, once the retries are spent."""
    status = getattr(exc, "status_code", None)
    if isinstance(exc, litellm.RateLimitError) or status == 429:
        return "rate_limited"
    causes = _causes(exc)
    if isinstance(exc, MalformedResponse) or "JSONDecodeError" in causes:
        return "malformed_response"
    connection = {"APIConnectionError", "APITimeoutError", "Timeout", "ReadError", "ConnectError"}
    if isinstance(exc, litellm.Timeout | litellm.APIConnectionError) or connection & set(causes):
        return "unreachable"
    if isinstance(status, int) and status >= 500:
        return "server_error"
    return "unreachable"


def _headers(exc: BaseException) -> Any:
    headers = getattr(exc, "litellm_response_headers", None)
    if headers is None:
        headers = getattr(getattr(exc, "response", None), "headers", None)
    return headers


def retry_after_s(exc: BaseException) -> float | None:
    """The wait a 429 or 503 answer asks for (``Retry-After`` in seconds or as an HTTP date,
    or ``retry-after-ms``), or ``None``."""
    headers = _headers(exc)
    if headers is None:
        return None
    try:
        millis = headers.get("retry-after-ms")
        if millis is not None:
            return max(0.0, float(millis) / 1000)
        value = headers.get("retry-after")
    except (AttributeError, TypeError, ValueError):
        return None
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except (TypeError, ValueError):
        pass
    try:
        moment = email.utils.parsedate_to_datetime(str(value))
    except (TypeError, ValueError):
        return None
    return max(0.0, moment.timestamp() - time.time())


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
    choices = getattr(raw, "choices", None)
    if not choices:
        raise MalformedResponse("the endpoint answered a completion with no choices")
    choice = choices[0]
    message = getattr(choice, "message", None)
    if message is None:
        raise MalformedResponse("the endpoint answered a choice with no message")
    calls = tuple(
        ToolCallRequest(
            id=str(call.id or ""),
            name=str(call.function.name or ""),
            arguments=str(call.function.arguments or ""),
        )
        for call in (getattr(message, "tool_calls", None) or ())
    )
    response = LLMResponse(
        content=message.content,
        tool_calls=calls,
        finish_reason=choice.finish_reason,
        usage=usage(getattr(raw, "usage", None)),
        model=str(raw.model or ""),
        latency_s=latency_s,
    )
    if response.unparsed:
        response = replace(response, raw_completion=raw_completion(message, choice))
    return response


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
