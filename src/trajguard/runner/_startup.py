"""The start-up steps of a batch (importing the model client, starting the embedded model's
servers, the first call to each model, connecting to a cluster), told to whoever watches.

A batch can spend many seconds before its first run; the command line prints these steps with
their times so that a user knows what the wait is for. Library code reports a step here and
never prints.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Iterator
from contextlib import contextmanager
from typing import Protocol, TypeVar, runtime_checkable

__all__ = ["NO_STEPS", "StartupObserver", "StartupSteps"]

_T = TypeVar("_T")


@runtime_checkable
class StartupObserver(Protocol):
    """A batch observer that also wants the start-up steps (it need not: a plain
    :class:`~trajguard.runner.BatchObserver` is told runs only). Steps may overlap: the embedded
    model's servers start while the model client is imported."""

    def step_started(self, step: str) -> None:
        """``step`` (a phrase such as "starting the embedded model server") has begun."""

    def step_finished(self, step: str, elapsed_s: float) -> None:
        """``step`` is done after ``elapsed_s`` seconds."""

    def step_failed(self, step: str, elapsed_s: float) -> None:
        """``step`` raised after ``elapsed_s`` seconds; the batch then raises the error (a step
        cancelled, by Ctrl-C or a failed sibling, is told neither this nor finished)."""


class StartupSteps:
    """Where the batch reports its start-up steps: to ``observer`` if it is a
    :class:`StartupObserver`, else nowhere."""

    def __init__(self, observer: object | None = None) -> None:
        self._observer = observer if isinstance(observer, StartupObserver) else None

    @contextmanager
    def step(self, step: str) -> Iterator[None]:
        """Report the block as ``step``: its start, then its time when it ends, or that it
        failed when it raised an :class:`Exception`."""
        if self._observer is None:
            yield
            return
        self._observer.step_started(step)
        started = time.monotonic()
        try:
            yield
        except Exception:
            self._observer.step_failed(step, time.monotonic() - started)
            raise
        self._observer.step_finished(step, time.monotonic() - started)

    async def timed(self, step: str, awaitable: Awaitable[_T]) -> _T:
        """Await ``awaitable`` as ``step`` (several can run at once under ``asyncio.gather``)."""
        with self.step(step):
            return await awaitable


NO_STEPS = StartupSteps()
"""Steps told to no one."""
