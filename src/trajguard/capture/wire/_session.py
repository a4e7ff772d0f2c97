"""One run's view of the wire endpoint: its address, its forwarder and what it recorded."""

from __future__ import annotations

import asyncio
import concurrent.futures
import itertools
import threading
from collections.abc import Awaitable, Callable
from dataclasses import replace

from trajguard.capture._types import LLMResponse
from trajguard.capture.wire._request import WireRequest
from trajguard.capture.zerocode import CallRecord
from trajguard.faults import ToolFaults

__all__ = ["Forward", "WireSession"]

Forward = Callable[[WireRequest], Awaitable[LLMResponse]]
"""Sends one checked request to the run's model (called on the endpoint's event loop)."""
NextTurn = Callable[[str], "concurrent.futures.Future[dict[str, str | None]]"]
"""Hands the agent's answer to the user of a conversation, from any thread; resolves to
``{"message": next}`` or ``{"message": None, "stop_reason": why}``."""


class WireSession:
    """The wire endpoint as one run sees it: ``base_url`` routes to this run only.

    Made by :meth:`WireServer.open <trajguard.capture.wire.WireServer.open>`; every exchange
    (answered, refused or failed) is kept as a :class:`~trajguard.capture.zerocode.CallRecord`
    in the order the requests arrived, until the session is closed.
    """

    def __init__(
        self,
        *,
        token: str,
        base_url: str,
        forward: Forward,
        model: str,
        embedded: bool,
        faults: ToolFaults | None = None,
    ) -> None:
        self.token = token
        self.base_url = base_url
        """The OpenAI-compatible base URL of this run (``http://127.0.0.1:PORT/runs/TOKEN/v1``)."""
        self.forward = forward
        self.model = model
        """The run's model string (recorded as the model of every call)."""
        self.embedded = embedded
        """Whether requests are rewritten for the embedded server."""
        self.faults = faults
        """The run's faults: its model faults are injected here (:mod:`._faults`)."""
        self._records: list[CallRecord] = []
        self._lock = threading.Lock()
        self._seq = itertools.count()
        self._tasks: set[asyncio.Task[object]] = set()
        self.closed = False
        self.conversation: NextTurn | None = None
        """The user's side of a conversational run (``POST conversation_url``), if any."""

    @property
    def conversation_url(self) -> str:
        """Where a command agent of a conversational run asks for the next user message."""
        return self.base_url.removesuffix("/v1") + "/conversation"

    def __repr__(self) -> str:
        return f"WireSession({self.base_url!r}, {len(self._records)} calls)"

    def add(self, record: CallRecord) -> CallRecord:
        """Append a record, numbered in arrival order (called on the endpoint's loop)."""
        with self._lock:
            record.seq = next(self._seq)
            self._records.append(record)
        return record

    @property
    def records(self) -> list[CallRecord]:
        """Copies of the calls recorded so far, in arrival order."""
        with self._lock:
            return [replace(record) for record in self._records]

    @property
    def upstream_errors(self) -> int:
        """Calls the model failed (refused requests of the client not counted)."""
        with self._lock:
            return sum(
                1
                for r in self._records
                if r.error is not None
                and r.error[0] not in ("RequestShapeError", "Cancelled", "InjectedFault")
            )
