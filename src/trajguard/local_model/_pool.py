"""The process-wide embedded model servers: one per slot, started on first use.

A run's model calls share a growing prefix (the conversation so far), and a llama.cpp server
reuses the cached prefix of the request it served last. Two runs that take turns on one server
evict each other's prefix, so every call is evaluated again from the start. The batch runner
therefore gives each of its concurrent runs a slot (:func:`model_slot`), and each slot its own
single-threaded server: parallel runs get parallel servers, and a run's consecutive calls meet
the server that holds their prefix. Code outside a batch uses slot 0.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass, replace

from trajguard.errors import EmbeddedModelCrashed
from trajguard.local_model._server import LocalModelServer

__all__ = [
    "ServerSettings",
    "configure_local_servers",
    "current_slot",
    "fatal_crash",
    "get_local_server",
    "local_model_server",
    "local_slots",
    "model_slot",
    "running_local_server",
    "slot_crash",
    "stop_local_server",
]

_SLOT: ContextVar[int] = ContextVar("trajguard_local_model_slot", default=0)


@dataclass(frozen=True, kw_only=True)
class ServerSettings:
    """How the process-wide servers are started (see :class:`LocalModelServer`)."""

    n_threads: int = 1
    n_threads_batch: int | None = None
    logits_all: bool = False
    n_ctx: int = 4096
    max_slots: int | None = None
    """At most this many servers (default: one per core)."""
    extra_args: tuple[str, ...] = ()
    program: tuple[str, ...] | None = None
    """The argv that starts a server, before its options (default: ``python -m
    trajguard.local_model``); tests put a stand-in here."""
    restarts: int = 1
    """How many times a server that died on its own (a crash) is started again in this
    process; the next death stops the batch (:class:`~trajguard.errors.EmbeddedModelCrashed`)."""


_settings = ServerSettings()
_servers: dict[int, LocalModelServer] = {}
_lock = threading.Lock()
_crashes: list[EmbeddedModelCrashed] = []


def configure_local_servers(**changes: object) -> ServerSettings:
    """Change the settings of servers started from now on (benchmarks compare settings this
    way); returns the previous settings, to restore them."""
    global _settings
    previous = _settings
    _settings = replace(_settings, **changes)  # type: ignore[arg-type]
    return previous


def local_slots(concurrency: int) -> int:
    """How many servers ``concurrency`` parallel runs get: one each, at most one per core."""
    cap = _settings.max_slots if _settings.max_slots is not None else os.cpu_count() or 1
    return max(1, min(concurrency, cap))


def current_slot() -> int:
    """The slot of the code running now (0 outside a batch)."""
    return _SLOT.get()


@contextlib.contextmanager
def model_slot(slot: int) -> Iterator[None]:
    """Run the block's model calls (and the tasks it starts) on slot ``slot``'s server."""
    token = _SLOT.set(slot)
    try:
        yield
    finally:
        _SLOT.reset(token)


def running_local_server(slot: int | None = None) -> LocalModelServer | None:
    """The server of ``slot`` (default: the current slot) if it is running, without starting
    or waiting for anything. Async code uses this as a fast path and falls back to
    ``asyncio.to_thread(get_local_server)``."""
    server = _servers.get(current_slot() if slot is None else slot)
    return server if server is not None and server.running else None


def slot_crash(slot: int | None = None) -> EmbeddedModelCrashed | None:
    """How the server of ``slot`` (default: the current slot) died, if its process died on its
    own, else ``None`` (never started, stopped, or running)."""
    server = _servers.get(current_slot() if slot is None else slot)
    return server.crash() if server is not None else None


def get_local_server(slot: int | None = None, *, self_test: bool = True) -> LocalModelServer:
    """The server of ``slot`` (default: the current slot), started on first use (thread-safe).

    Concurrent first calls for one slot start exactly one server; the others wait for it. From
    async code call it through ``asyncio.to_thread`` so the event loop keeps running while it
    starts (about a second). A server whose process died on its own is started again
    (:attr:`ServerSettings.restarts` times in this process, over all slots).

    Args:
        slot: the slot; default the current one.
        self_test: pass a newly started server the start-up self-test before returning it
            (a batch reports that as a start-up step of its own, so it asks for it apart).

    Raises:
        MissingExtra: the ``local`` extra is not installed.
        EmbeddedModelCrashed: the server died, and the restarts are spent (or it died again
            in its self-test).
        ModelUnavailable: the server did not start.
    """
    key = current_slot() if slot is None else slot
    with _lock:
        server = _servers.get(key)
        if server is None:
            settings = _settings
            server = LocalModelServer(
                n_threads=settings.n_threads,
                n_threads_batch=settings.n_threads_batch,
                logits_all=settings.logits_all,
                n_ctx=settings.n_ctx,
                extra_args=settings.extra_args,
                program=settings.program,
            )
            _servers[key] = server
    return server.start(self_test=self_test, on_crash=_restart_or_stop)


def _restart_or_stop(crash: EmbeddedModelCrashed) -> None:
    """Count a server's death; refuse its restart once :attr:`ServerSettings.restarts` are
    spent, with the first death's diagnosis."""
    with _lock:
        _crashes.append(crash)
    refusal = fatal_crash()
    if refusal is not None:
        raise refusal


def fatal_crash() -> EmbeddedModelCrashed | None:
    """The error that refuses a restart, once the servers died more often than
    :attr:`ServerSettings.restarts` allows (a batch stops when it sees it), else ``None``."""
    with _lock:
        deaths, restarts = len(_crashes), _settings.restarts
        if deaths <= restarts:
            return None
        first = _crashes[0]
    return EmbeddedModelCrashed(
        f"{first.message}\n(it died {deaths} times in this batch; restarted "
        f"{restarts} time{'s' if restarts != 1 else ''})",
        hint=first.hint,
    )


def stop_local_server() -> None:
    """Stop every process-wide server that was started. Safe to call repeatedly."""
    with _lock:
        servers = list(_servers.values())
        _servers.clear()
        _crashes.clear()
    for server in servers:
        server.stop()


@contextlib.contextmanager
def local_model_server() -> Iterator[LocalModelServer]:
    """Scope the process-wide servers to a ``with`` block (yields slot 0's).

    Started on entry if needed; stopped on exit (also on exceptions) only if this block started
    them, so nesting and an already running server are left alone.
    """
    started_here = running_local_server(0) is None
    server = get_local_server(0)
    try:
        yield server
    finally:
        if started_here:
            stop_local_server()
