"""Routing of litellm events to the zero-code captures active where each call was made.

The state here is trajguard's own (a ContextVar, a call-id registry, a reference count); the
only thing it changes in litellm is the presence of one callback object (see
:mod:`trajguard.capture.zerocode._hook`). Why events are matched by ``litellm_call_id`` and
not by the ContextVar is explained in :mod:`trajguard.capture.zerocode`.
"""

from __future__ import annotations

import itertools
import threading
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Protocol

from trajguard.capture.zerocode._build import CallRecord
from trajguard.capture.zerocode._messages import (
    is_chat_response,
    normalize_messages,
    normalize_response,
)

if TYPE_CHECKING:
    from litellm.integrations.custom_logger import CustomLogger

__all__ = ["ACTIVE", "STATE", "Capture", "forget", "hook_acquire", "hook_release"]


class Capture(Protocol):
    """What routing needs from a capture."""

    @property
    def accepting(self) -> bool:
        """Whether new calls are routed to it."""
        ...

    @property
    def open(self) -> bool:
        """Whether outcomes of its calls are still recorded."""
        ...

    @property
    def records(self) -> list[CallRecord]:
        """Its calls, appended under :data:`STATE`."""
        ...


_CHAT_CALL_TYPES = frozenset({"completion", "acompletion"})

ACTIVE: ContextVar[tuple[Capture, ...]] = ContextVar("trajguard_zerocode_captures", default=())
"""The captures open in the current context, outermost first."""
STATE = threading.Condition()
"""Guards the registry and every capture's records; notified when an outcome arrives."""
_SEQ = itertools.count()


@dataclass
class _Entry:
    record: CallRecord
    owners: tuple[Capture, ...]


_registry: dict[str, _Entry] = {}

_HOOK_LOCK = threading.Lock()
_hook_users = 0
_handler: CustomLogger | None = None


def hook_acquire() -> None:
    """Register the trajguard callback with litellm (first user), counting users."""
    global _hook_users, _handler
    with _HOOK_LOCK:
        from trajguard.capture.zerocode import _hook as hook  # imports litellm: lazily

        if _handler is None:
            _handler = hook.make_handler(_Sink())
        hook.install(_handler)
        _hook_users += 1


def hook_release() -> None:
    """Drop one user; the last one removes the callback from everywhere litellm put it."""
    global _hook_users
    with _HOOK_LOCK:
        _hook_users -= 1
        if _hook_users == 0 and _handler is not None:
            from trajguard.capture.zerocode import _hook as hook

            hook.uninstall(_handler)


def _utc(moment: Any) -> datetime:
    if isinstance(moment, datetime):
        # litellm passes naive local times
        return moment.astimezone(UTC)
    return datetime.now(UTC)


def _is_chat(kwargs: dict[str, Any]) -> bool:
    return kwargs.get("call_type", "completion") in _CHAT_CALL_TYPES


def _model_string(kwargs: dict[str, Any]) -> str | None:
    # litellm reports the model without its provider prefix; put it back so the name is a
    # model string litellm accepts (``openai/gpt-4o`` for ``gpt-4o``).
    model, provider = kwargs.get("model"), kwargs.get("custom_llm_provider")
    if not isinstance(model, str) or not model:
        return None
    if isinstance(provider, str) and provider and not model.startswith(f"{provider}/"):
        return f"{provider}/{model}"
    return model


def _new_record(kwargs: dict[str, Any], messages: Any, call_id: str) -> CallRecord:
    tools = kwargs.get("tools") or (kwargs.get("optional_params") or {}).get("tools") or []
    return CallRecord(
        call_id=call_id,
        seq=next(_SEQ),
        started_at=datetime.now(UTC),
        model=_model_string(kwargs),
        messages=normalize_messages(messages if messages is not None else kwargs.get("messages")),
        tools=[dict(tool) for tool in tools if isinstance(tool, dict)],
        async_call=kwargs.get("call_type") == "acompletion",
        api_base=_api_base(kwargs),
    )


def _api_base(kwargs: dict[str, Any]) -> str | None:
    value = (kwargs.get("litellm_params") or {}).get("api_base") or kwargs.get("api_base")
    return value if isinstance(value, str) and value else None


class _Sink:
    """Routes litellm events to captures (see the module docstring)."""

    def on_pre_call(self, kwargs: dict[str, Any], messages: Any) -> None:
        call_id = kwargs.get("litellm_call_id")
        owners = tuple(c for c in ACTIVE.get() if c.accepting)
        if not owners or not call_id or not _is_chat(kwargs):
            return
        record = _new_record(kwargs, messages, call_id)
        with STATE:
            entry = _registry.get(call_id)
            if entry is not None and entry.record.error is None:
                # A retry inside the same call: keep its place, refresh the request.
                if entry.record.response is None:
                    entry.record.messages = record.messages
                return
            _registry[call_id] = _Entry(record, owners)
            for capture in owners:
                capture.records.append(record)

    def on_success(self, kwargs: dict[str, Any], response: Any, end_time: Any) -> None:
        response = response if response is not None else kwargs.get("complete_streaming_response")
        if not is_chat_response(response) or not _is_chat(kwargs):
            return
        record = self._record_for(kwargs)
        if record is None:
            return
        latency = (_utc(end_time) - record.started_at).total_seconds()
        parsed = normalize_response(response, latency_s=max(latency, 0.0))
        with STATE:
            if record.response is None:
                record.response, record.error = parsed, None
                record.ended_at = _utc(end_time)
            STATE.notify_all()

    def on_failure(self, kwargs: dict[str, Any], end_time: Any) -> None:
        if not _is_chat(kwargs):
            return
        record = self._record_for(kwargs)
        if record is None:
            return
        exception = kwargs.get("exception")
        error = (type(exception).__name__, str(exception)) if exception else ("Error", "")
        with STATE:
            if not record.done:
                record.error, record.ended_at = error, _utc(end_time)
            STATE.notify_all()

    @staticmethod
    def _record_for(kwargs: dict[str, Any]) -> CallRecord | None:
        call_id = kwargs.get("litellm_call_id") or ""
        with STATE:
            entry = _registry.get(call_id)
            if entry is not None:
                return entry.record if any(c.open for c in entry.owners) else None
        # No pre-call event (e.g. a cache hit): litellm runs this event under a copy of the
        # caller's context, so the captures active there are the right owners.
        owners = tuple(c for c in ACTIVE.get() if c.accepting)
        if not owners or not call_id:
            return None
        record = _new_record(kwargs, None, call_id)
        with STATE:
            if call_id in _registry:
                return _registry[call_id].record
            _registry[call_id] = _Entry(record, owners)
            for capture in owners:
                capture.records.append(record)
        return record


def forget(records: list[CallRecord]) -> None:
    """Drop registry entries no open capture needs any more (call with :data:`STATE` held)."""
    for record in records:
        entry = _registry.get(record.call_id)
        if entry is not None and not any(c.open for c in entry.owners):
            del _registry[record.call_id]
