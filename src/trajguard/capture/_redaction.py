"""Cassette responses with their secrets masked (the rules are :mod:`trajguard.redaction`)."""

from __future__ import annotations

from trajguard.capture._types import LLMResponse, ToolCallRequest
from trajguard.redaction import BUILTIN_PATTERNS, REDACTED, Redactor

__all__ = ["BUILTIN_PATTERNS", "REDACTED", "Redactor", "redact_response"]


def redact_response(response: LLMResponse, redactor: Redactor) -> LLMResponse:
    """The stored copy of ``response``: every string redacted, no latency."""
    text = redactor.text
    return LLMResponse(
        content=None if response.content is None else text(response.content),
        tool_calls=tuple(
            ToolCallRequest(id=text(c.id), name=text(c.name), arguments=text(c.arguments))
            for c in response.tool_calls
        ),
        finish_reason=None if response.finish_reason is None else text(response.finish_reason),
        usage=response.usage,
        model=text(response.model),
        raw_completion=None if response.raw_completion is None else text(response.raw_completion),
    )
