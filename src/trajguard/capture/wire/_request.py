"""What the wire endpoint accepts: a chat-completions request, checked and made sendable.

:func:`parse_request` turns an OpenAI chat-completions body into a :class:`WireRequest` or
raises :class:`RequestShapeError` naming the field. With ``embedded=True`` (the run's model is
the embedded llama.cpp server) it also rewrites the shapes that server cannot take, and says so
in :attr:`WireRequest.notes`:

* content given as a list of parts → their text joined (``text`` parts only: the embedded model
  reads no images, audio or files, and such a part is an error naming it);
* ``content: None`` (an assistant message that only calls tools) → ``""``;
* ``tool_choice``: ``"none"`` → the tools are not sent; ``"required"`` or a named function →
  ``"auto"`` (the server emits tool calls only under ``"auto"``; it cannot be forced);
* ``developer`` messages → ``system``; ``max_completion_tokens`` → ``max_tokens``; tool-call
  arguments given as an object → JSON text; fields the server does not know are dropped (named in
  the notes).

For any other model the request is passed on as the client sent it, apart from the fields the
endpoint itself consumes (``stream``, ``stream_options``, ``model``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["RequestShapeError", "WireRequest", "parse_request"]

_ROLES = frozenset({"system", "developer", "user", "assistant", "tool"})
# Sampling and output parameters forwarded to the model (through litellm).
_FORWARDED = frozenset(
    {
        "temperature",
        "top_p",
        "max_tokens",
        "max_completion_tokens",
        "seed",
        "stop",
        "presence_penalty",
        "frequency_penalty",
        "response_format",
        "tool_choice",
        "parallel_tool_calls",
        "logit_bias",
        "top_k",
        "min_p",
        "repeat_penalty",
    }
)
# What the embedded server does not take; dropped, and named in the step's notes.
_EMBEDDED_DROPS = frozenset({"parallel_tool_calls", "logit_bias"})
# Fields that describe the client, not the completion: never forwarded.
_CLIENT_ONLY = frozenset(
    {
        "store",
        "metadata",
        "user",
        "service_tier",
        "prompt_cache_key",
        "safety_identifier",
        "reasoning_effort",
        "verbosity",
        "extra_headers",
        "timeout",
    }
)
_MESSAGE_KEYS = frozenset({"role", "content", "name", "tool_calls", "tool_call_id"})


class RequestShapeError(ValueError):
    """A request the endpoint cannot serve: ``param`` names the field (``messages[2].content``)."""

    def __init__(self, param: str, message: str) -> None:
        super().__init__(f"{param}: {message}")
        self.param = param
        self.message = message


@dataclass(frozen=True, kw_only=True)
class WireRequest:
    """A checked chat-completions request, ready for the model layer."""

    messages: list[dict[str, Any]]
    """As sent to the model (rewritten for the embedded server)."""
    client_messages: list[Any]
    """As the client sent them (what the trajectory records)."""
    tools: list[dict[str, Any]] | None
    client_tools: list[dict[str, Any]]
    """Tool definitions as the client sent them (kept even when ``tool_choice`` is none)."""
    options: dict[str, Any]
    """Further parameters for the model layer (``temperature``, ``stop`` ...)."""
    stream: bool
    include_usage: bool
    requested_model: str | None
    notes: list[str] = field(default_factory=list)
    """How the request was rewritten, one sentence each."""


def parse_request(body: Any, *, embedded: bool) -> WireRequest:
    """Check a chat-completions body and make it sendable (see the module docstring).

    Raises:
        RequestShapeError: the body is not a request this endpoint can serve.
    """
    if not isinstance(body, Mapping):
        raise RequestShapeError("body", "the request body must be a JSON object")
    notes: list[str] = []
    _refuse(body)
    raw_messages = body.get("messages")
    if not isinstance(raw_messages, list) or not raw_messages:
        raise RequestShapeError("messages", "a non-empty list of messages is required")
    messages = [
        _message(message, f"messages[{i}]", embedded=embedded, notes=notes)
        for i, message in enumerate(raw_messages)
    ]
    client_tools = _tools(body.get("tools"))
    options: dict[str, Any] = {}
    for key, value in body.items():
        if key in _FORWARDED and value is not None:
            options[key] = value
        elif key not in _CLIENT_ONLY and key not in _CONSUMED and embedded:
            notes.append(f"dropped {key}: the embedded server does not take it")
        elif key not in _CLIENT_ONLY and key not in _CONSUMED:
            options[key] = value
    tools: list[dict[str, Any]] | None = client_tools or None
    if embedded:
        tools = _embedded_options(options, tools, notes)
    stream = body.get("stream") is True
    stream_options = body.get("stream_options")
    include_usage = isinstance(stream_options, Mapping) and stream_options.get("include_usage")
    model = body.get("model")
    return WireRequest(
        messages=messages,
        client_messages=list(raw_messages),
        tools=tools,
        client_tools=client_tools,
        options=options,
        stream=stream,
        include_usage=bool(include_usage),
        requested_model=model if isinstance(model, str) else None,
        notes=notes,
    )


# Read by the endpoint itself (or checked by _refuse), never forwarded as they are.
_CONSUMED = frozenset(
    {
        "messages",
        "tools",
        "stream",
        "stream_options",
        "model",
        "n",
        "logprobs",
        "top_logprobs",
        "modalities",
        "audio",
        "functions",
        "function_call",
        # the model layer's own keys: a body cannot set them
        "api_key",
        "api_base",
        "base_url",
        "drop_params",
    }
)


def _refuse(body: Mapping[str, Any]) -> None:
    """Parameters whose meaning the endpoint cannot honour: an error, never a silent change."""
    n = body.get("n")
    if n is not None and n != 1:
        raise RequestShapeError("n", f"only one choice per request is served (got n={n!r})")
    if body.get("functions") is not None or body.get("function_call") is not None:
        raise RequestShapeError(
            "functions", "the legacy functions / function_call fields are not served; use tools"
        )
    if body.get("logprobs") or body.get("top_logprobs"):
        raise RequestShapeError("logprobs", "log probabilities are not served")
    modalities = body.get("modalities")
    if isinstance(modalities, list) and any(m != "text" for m in modalities):
        raise RequestShapeError("modalities", "only text output is served")
    if body.get("audio") is not None:
        raise RequestShapeError("audio", "audio output is not served")
    stream = body.get("stream")
    if stream is not None and not isinstance(stream, bool):
        raise RequestShapeError("stream", "must be true or false")


def _message(raw: Any, where: str, *, embedded: bool, notes: list[str]) -> dict[str, Any]:
    if not isinstance(raw, Mapping):
        raise RequestShapeError(where, "each message must be a JSON object")
    role = raw.get("role")
    if role not in _ROLES:
        raise RequestShapeError(
            f"{where}.role",
            f"unknown role {role!r}; expected one of {', '.join(sorted(_ROLES))}",
        )
    if role == "tool" and not isinstance(raw.get("tool_call_id"), str):
        raise RequestShapeError(f"{where}.tool_call_id", "a tool message must name its call")
    if not embedded:
        return dict(raw)
    message: dict[str, Any] = {k: v for k, v in raw.items() if k in _MESSAGE_KEYS}
    if role == "developer":
        message["role"] = "system"
    message["content"] = _text_content(raw.get("content"), f"{where}.content", notes)
    calls = raw.get("tool_calls")
    if calls is not None:
        message["tool_calls"] = _tool_calls(calls, f"{where}.tool_calls")
        if not message["tool_calls"]:
            del message["tool_calls"]
    return message


def _text_content(content: Any, where: str, notes: list[str]) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        raise RequestShapeError(where, "content must be a string, null or a list of parts")
    texts = []
    for j, part in enumerate(content):
        kind = part.get("type") if isinstance(part, Mapping) else None
        if kind != "text":
            raise RequestShapeError(
                f"{where}[{j}].type",
                f"{kind!r} parts are not supported: the embedded model reads text only",
            )
        text = part.get("text")
        if not isinstance(text, str):
            raise RequestShapeError(f"{where}[{j}].text", "a text part needs its text")
        texts.append(text)
    if "joined content parts" not in notes:
        notes.append("joined content parts")
    return "\n".join(texts)


def _tool_calls(calls: Any, where: str) -> list[dict[str, Any]]:
    if not isinstance(calls, list):
        raise RequestShapeError(where, "tool_calls must be a list")
    out = []
    for k, call in enumerate(calls):
        function = call.get("function") if isinstance(call, Mapping) else None
        if not isinstance(function, Mapping) or not isinstance(function.get("name"), str):
            raise RequestShapeError(f"{where}[{k}].function", "a tool call needs a function name")
        arguments = function.get("arguments")
        if not isinstance(arguments, str):
            arguments = json.dumps(arguments if arguments is not None else {})
        out.append(
            {
                "id": str(call.get("id") or f"call_{k + 1}"),
                "type": "function",
                "function": {"name": function["name"], "arguments": arguments},
            }
        )
    return out


def _tools(raw: Any) -> list[dict[str, Any]]:
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise RequestShapeError("tools", "tools must be a list")
    tools = []
    for i, tool in enumerate(raw):
        if not isinstance(tool, Mapping) or tool.get("type", "function") != "function":
            kind = tool.get("type") if isinstance(tool, Mapping) else None
            raise RequestShapeError(
                f"tools[{i}].type", f"only function tools are served (got {kind!r})"
            )
        function = tool.get("function")
        if not isinstance(function, Mapping) or not isinstance(function.get("name"), str):
            raise RequestShapeError(f"tools[{i}].function", "a tool needs a function name")
        tools.append(dict(tool))
    return tools


def _embedded_options(
    options: dict[str, Any], tools: list[dict[str, Any]] | None, notes: list[str]
) -> list[dict[str, Any]] | None:
    """``tool_choice`` and parameters as the embedded server takes them."""
    for key in _EMBEDDED_DROPS & options.keys():
        del options[key]
        notes.append(f"dropped {key}: the embedded server does not take it")
    if "max_completion_tokens" in options:
        options.setdefault("max_tokens", options["max_completion_tokens"])
        del options["max_completion_tokens"]
    choice = options.pop("tool_choice", None)
    if tools and choice == "none":
        notes.append('tool_choice "none": the tools were not sent')
        return None
    if tools and choice not in (None, "auto"):
        shown = choice if isinstance(choice, str) else json.dumps(choice, sort_keys=True)
        notes.append(f"tool_choice {shown} sent as auto: the embedded server cannot be forced")
    if tools:
        options["tool_choice"] = "auto"
        return [_plain_tool(tool) for tool in tools]
    return None


def _plain_tool(tool: Mapping[str, Any]) -> dict[str, Any]:
    function = dict(tool["function"])
    function.setdefault("parameters", {"type": "object", "properties": {}})
    function.pop("strict", None)
    return {"type": "function", "function": function}
