"""The litellm side of zero-code capture: one callback object, added and removed reversibly.

Imported only when the first capture opens: importing it imports litellm (after setting
``LITELLM_LOCAL_MODEL_COST_MAP`` so the import does not fetch a price map from the network).

litellm distributes whatever is in ``litellm.callbacks`` into ``input_callback``,
``success_callback``, ``failure_callback``, ``_async_success_callback`` and
``_async_failure_callback`` on every call (``function_setup``), and remembers the first
non-empty set in ``litellm.utils.callback_list``. :func:`uninstall` therefore removes the
handler from all of them, in place and under litellm's own lock, so list identity and the
order of the user's callbacks are kept.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
from collections.abc import Callable, Iterator
from datetime import datetime
from typing import Any, Protocol

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

# (imported after the environment variable above on purpose)
import litellm
from litellm.integrations.custom_logger import CustomLogger

__all__ = ["CALLBACK_LISTS", "EventSink", "install", "make_handler", "uninstall"]

_log = logging.getLogger("trajguard.capture.zerocode")

CALLBACK_LISTS = (
    "callbacks",
    "input_callback",
    "success_callback",
    "failure_callback",
    "service_callback",
    "_async_input_callback",
    "_async_success_callback",
    "_async_failure_callback",
)
"""The ``litellm`` module attributes that can end up holding the handler."""


class EventSink(Protocol):
    """Receives the events of litellm chat calls (implemented by the zero-code module)."""

    def on_pre_call(self, kwargs: dict[str, Any], messages: Any) -> None:
        """A request is about to be sent (runs in the caller's thread and context)."""

    def on_success(self, kwargs: dict[str, Any], response: Any, end_time: Any) -> None:
        """A call returned (runs later, in a logging thread or task)."""

    def on_failure(self, kwargs: dict[str, Any], end_time: Any) -> None:
        """A call raised (in the caller for sync calls, in a task for async ones)."""


def _guarded(event: Callable[..., None], *args: Any) -> None:
    # A capture bug must never break the user's model call.
    try:
        event(*args)
    except Exception:
        _log.exception("trajguard zero-code capture: a litellm event could not be recorded")


class _TrajguardCallback(CustomLogger):
    """Forwards litellm's logging events to an :class:`EventSink`."""

    def __init__(self, sink: EventSink) -> None:
        super().__init__()
        self._sink = sink

    def log_pre_api_call(self, model: Any, messages: Any, kwargs: dict[str, Any]) -> None:
        _guarded(self._sink.on_pre_call, kwargs, messages)

    def log_success_event(
        self, kwargs: dict[str, Any], response_obj: Any, start_time: Any, end_time: datetime
    ) -> None:
        _guarded(self._sink.on_success, kwargs, response_obj, end_time)

    async def async_log_success_event(
        self, kwargs: dict[str, Any], response_obj: Any, start_time: Any, end_time: datetime
    ) -> None:
        _guarded(self._sink.on_success, kwargs, response_obj, end_time)

    def log_failure_event(
        self, kwargs: dict[str, Any], response_obj: Any, start_time: Any, end_time: datetime
    ) -> None:
        _guarded(self._sink.on_failure, kwargs, end_time)

    async def async_log_failure_event(
        self, kwargs: dict[str, Any], response_obj: Any, start_time: Any, end_time: datetime
    ) -> None:
        _guarded(self._sink.on_failure, kwargs, end_time)


def make_handler(sink: EventSink) -> CustomLogger:
    """The one callback object the zero-code capture registers with litellm."""
    return _TrajguardCallback(sink)


@contextlib.contextmanager
def _lists_locked() -> Iterator[None]:
    # function_setup copies litellm.callbacks into the other lists under this lock.
    manager = getattr(litellm, "logging_callback_manager", None)
    lock = getattr(manager, "callback_lists_lock", None)
    if lock is None:
        yield
        return
    with lock:
        yield


def install(handler: CustomLogger) -> None:
    """Append ``handler`` to ``litellm.callbacks`` (in place) unless it is already there."""
    with _lists_locked():
        if not any(callback is handler for callback in litellm.callbacks):
            litellm.callbacks.append(handler)


def uninstall(handler: CustomLogger) -> None:
    """Remove ``handler`` from every list litellm may have copied it into, in place.

    A call whose ``function_setup`` read ``litellm.callbacks`` just before this runs can copy
    the handler back into the derived lists; it then ignores every event (no capture is open)
    and the next capture to close removes it again.
    """
    with _lists_locked():
        holders: list[Any] = [getattr(litellm, name, None) for name in CALLBACK_LISTS]
        utils = sys.modules.get("litellm.utils")
        holders.append(getattr(utils, "callback_list", None))
        for holder in holders:
            if isinstance(holder, list) and any(item is handler for item in holder):
                holder[:] = [item for item in holder if item is not handler]
