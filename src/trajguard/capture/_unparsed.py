"""The text of a completion that yielded neither text nor a tool call.

A provider may parse a completion into an empty message: a tool call it could not parse, or a
reasoning model that spent its tokens on reasoning. What it returned beside the message is the
only trace of those tokens; :func:`raw_completion` finds it so the trajectory keeps it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["raw_completion"]

# Where providers (through litellm or the OpenAI format) put text that is not the message.
_MESSAGE_FIELDS = ("reasoning_content", "reasoning", "refusal")


def raw_completion(message: Any, choice: Any) -> str | None:
    """The first non-empty text of ``message``'s other fields, then of ``choice.text``."""
    for name in _MESSAGE_FIELDS:
        text = _text(_field(message, name))
        if text:
            return text
    specific = _field(message, "provider_specific_fields")
    if isinstance(specific, Mapping):
        for name in _MESSAGE_FIELDS:
            text = _text(specific.get(name))
            if text:
                return text
    return _text(_field(choice, "text")) or None


def _field(obj: Any, name: str) -> Any:
    if isinstance(obj, Mapping):
        return obj.get(name)
    return getattr(obj, name, None)


def _text(value: Any) -> str:
    return value if isinstance(value, str) and value.strip() else ""
