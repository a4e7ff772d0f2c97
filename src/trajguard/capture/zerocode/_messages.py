"""Model requests and responses as plain values: what the conversion to ATIF reads.

Messages and responses arrive as litellm objects, OpenAI SDK objects, pydantic models or dicts,
with roles that may be enums (smolagents' ``MessageRole``) and content that may be a list of
parts; these functions copy them into plain dicts and :class:`LLMResponse` values.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import replace
from enum import Enum
from typing import Any

from trajguard.capture._types import LLMResponse, Message, ToolCallRequest, Usage
from trajguard.capture._unparsed import raw_completion

__all__ = ["field_of", "is_chat_response", "normalize_messages", "normalize_response", "text"]


def field_of(obj: Any, name: str, default: Any = None) -> Any:
    if isinstance(obj, Mapping):
        return obj.get(name, default)
    return getattr(obj, name, default)


def _plain(obj: Any) -> Any:
    """A JSON-like copy of ``obj`` (pydantic objects dumped, containers copied)."""
    if hasattr(obj, "model_dump"):
        obj = obj.model_dump()
    if isinstance(obj, Mapping):
        return {str(key): _plain(value) for key, value in obj.items()}
    if isinstance(obj, list | tuple):
        return [_plain(value) for value in obj]
    if obj is None or isinstance(obj, str | int | float | bool):
        return obj
    return str(obj)


def _argumentstext(arguments: Any) -> str:
    if isinstance(arguments, str):
        return arguments
    if arguments is None:
        return ""
    return json.dumps(_plain(arguments), ensure_ascii=False)


def _tool_calls(raw: Any) -> list[dict[str, Any]]:
    calls = []
    for call in raw or ():
        function = field_of(call, "function") or {}
        calls.append(
            {
                "id": field_of(call, "id") or "",
                "name": field_of(function, "name") or "",
                "arguments": _argumentstext(field_of(function, "arguments")),
            }
        )
    return calls


def _role(value: Any) -> str:
    """A message role as text: an enum role (smolagents' ``MessageRole``) by its value."""
    if isinstance(value, Enum):
        value = value.value
    return str(value or "")


def normalize_messages(messages: Any) -> list[Message]:
    """Plain-dict copies of chat messages, reduced to what the conversion reads.

    The copy is taken when the call is made: agents append to the same list afterwards.
    """
    out: list[Message] = []
    for message in messages or ():
        normal: Message = {
            "role": _role(field_of(message, "role")),
            "content": _plain(field_of(message, "content")),
        }
        calls = _tool_calls(field_of(message, "tool_calls"))
        if calls:
            normal["tool_calls"] = calls
        for key in ("tool_call_id", "name"):
            value = field_of(message, key)
            if value is not None:
                normal[key] = str(value)
        out.append(normal)
    return out


def is_chat_response(response: Any) -> bool:
    """Whether ``response`` looks like a chat completion (it has choices)."""
    return bool(field_of(response, "choices"))


def normalize_response(response: Any, *, latency_s: float = 0.0) -> LLMResponse:
    """An :class:`LLMResponse` from a litellm ``ModelResponse`` (or its dict form).

    Only the first choice is read.
    """
    choices = field_of(response, "choices") or [None]
    message = field_of(choices[0], "message") or {}
    usage = field_of(response, "usage") or {}
    details = field_of(usage, "prompt_tokens_details") or {}
    normal = LLMResponse(
        content=text(field_of(message, "content"))
        if field_of(message, "content") is not None
        else None,
        tool_calls=tuple(
            ToolCallRequest(id=call["id"], name=call["name"], arguments=call["arguments"])
            for call in _tool_calls(field_of(message, "tool_calls"))
        ),
        finish_reason=field_of(choices[0], "finish_reason"),
        usage=Usage(
            prompt_tokens=int(field_of(usage, "prompt_tokens") or 0),
            completion_tokens=int(field_of(usage, "completion_tokens") or 0),
            cached_tokens=int(field_of(details, "cached_tokens") or 0),
        ),
        model=str(field_of(response, "model") or ""),
        latency_s=latency_s,
    )
    if normal.unparsed:
        normal = replace(normal, raw_completion=raw_completion(message, choices[0]))
    return normal


def text(content: Any) -> str:
    """Message content as text: content parts are joined, non-text parts are named."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for part in content:
            if field_of(part, "type") == "text":
                parts.append(str(field_of(part, "text") or ""))
            else:
                parts.append(f"[{field_of(part, 'type') or 'part'}]")
        return "\n".join(parts)
    return str(content)
