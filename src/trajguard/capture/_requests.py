"""The stored form of a model request: what a cassette keeps of it, and its fingerprint."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from trajguard.capture._redaction import Redactor
from trajguard.capture._types import Message
from trajguard.core.normalize import canonical_json, mask_addresses

__all__ = ["UNSTORED_PARAMS", "fingerprint", "make_request", "stored_params"]

UNSTORED_PARAMS = frozenset(
    {
        # where the call goes, with what key, and how it is transported
        "api_key",
        "api_base",
        "base_url",
        "api_version",
        "organization",
        "headers",
        "extra_headers",
        # how long it may take and how often it is retried
        "timeout",
        "timeout_s",
        "request_timeout",
        "stream_timeout",
        "max_retries",
        "num_retries",
        "backoff_s",
        # bookkeeping the model never sees
        "metadata",
        "user",
        "logger_fn",
        "callbacks",
        "drop_params",
    }
)
"""Request parameters that are never stored nor fingerprinted: they do not change the model's
answer (endpoint, timeouts, retries, headers, metadata). Credential-named parameters (matching
``key``, ``secret``, ``token``, ``password``, ``credential``, ``auth`` … but not ``max_tokens``)
are never stored either."""

_CREDENTIAL_PARAM = re.compile(
    r"(?i)(?:api[_-]?key|access[_-]?key|private[_-]?key|secret|password|passwd|credential"
    r"|auth|cookie|(?:^|[_-])token$|(?:^|[_-])key$)"
)


def _mask(value: Any) -> Any:
    if isinstance(value, str):
        return mask_addresses(value)
    if isinstance(value, dict):
        return {k: _mask(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_mask(v) for v in value]
    return value


def _renumber_call_ids(messages: list[Any]) -> None:
    """Rewrite tool-call ids to ``call_1, call_2 …`` in place, keeping call and result joined."""
    ids: dict[str, str] = {}

    def new_id(old: Any) -> Any:
        if not isinstance(old, str):
            return old
        return ids.setdefault(old, f"call_{len(ids) + 1}")

    for message in messages:
        if not isinstance(message, dict):
            continue
        for call in message.get("tool_calls") or ():
            if isinstance(call, dict) and "id" in call:
                call["id"] = new_id(call["id"])
        if "tool_call_id" in message:
            message["tool_call_id"] = new_id(message["tool_call_id"])


def _jsonable(value: Any) -> Any:
    """``value`` as JSON data; what JSON cannot hold becomes its ``repr`` (addresses masked)."""
    if value is None or isinstance(value, str | bool | int | float):
        return value
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    return repr(value)


def stored_params(params: Mapping[str, Any] | None) -> dict[str, Any]:
    """The parameters of ``params`` that go into a cassette (and its fingerprint).

    Drops :data:`UNSTORED_PARAMS` and every credential-named parameter; values JSON cannot
    hold are stored as their ``repr``.
    """
    return {
        str(key): _jsonable(value)
        for key, value in (params or {}).items()
        if str(key) not in UNSTORED_PARAMS and not _CREDENTIAL_PARAM.search(str(key))
    }


def make_request(
    messages: Sequence[Message],
    *,
    tools: Sequence[Mapping[str, Any]] | None,
    response_format: Mapping[str, Any] | None,
    temperature: float | None,
    max_tokens: int | None,
    seed: int | None,
    redactor: Redactor,
    extra_params: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The stored form of one request: redacted, address-masked, tool-call ids renumbered.

    ``params`` holds the four arguments of ``ChatModel.complete`` (``None`` when not sent) and
    :func:`stored_params` of ``extra_params``, the parameters the model adds to every call; an
    explicit argument that is not ``None`` wins over the same key in ``extra_params``, as in
    :class:`~trajguard.capture.LiteLLMModel`.
    """
    params = stored_params(extra_params)
    explicit = {
        "max_tokens": max_tokens,
        "response_format": response_format,
        "seed": seed,
        "temperature": temperature,
    }
    for key, value in explicit.items():
        if value is not None or key not in params:
            params[key] = _jsonable(value)
    raw = {
        "messages": list(messages),
        "tools": list(tools) if tools else None,
        "params": params,
    }
    request: dict[str, Any] = _mask(json.loads(canonical_json(redactor.value(raw))))
    _renumber_call_ids(request["messages"])
    return request


def fingerprint(request: Mapping[str, Any]) -> str:
    """SHA-256 prefix (16 hex digits) of a stored request, ``params.seed`` left out."""
    params = {k: v for k, v in request.get("params", {}).items() if k != "seed"}
    text = canonical_json({**request, "params": params})
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
