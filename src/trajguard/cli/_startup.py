"""A command's start-up steps on stderr, each with its time, and the command's own clock.

A batch can wait many seconds before its first run (imports, the embedded model's servers, the
first call to each model). Each step is printed when it begins ("trajguard: starting the
embedded model server…") and its time added when it ends, with or without ``--no-progress``, so
that a user knows what a long wait is for; a step that raised says "failed after 0.3 s", and the
error follows on the next line.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import TracebackType

__all__ = ["PREFIX", "StartupLog"]

PREFIX = "trajguard: "
"""What begins every start-up line, as it begins the command line's error messages."""


class StartupLog:
    """The start-up of one command: the steps the command line takes itself (:meth:`step`,
    :meth:`begin`), the steps a batch reports (as a :class:`~trajguard.runner.StartupObserver`),
    and when the first run began.

    Args:
        started: ``time.monotonic()`` when the command began.
        on_step: called at every step's start and end (the command line turns litellm's banner
            off there, as soon as a step has imported litellm and before any call is made).
    """

    def __init__(self, *, started: float, on_step: Callable[[], None] | None = None) -> None:
        self._started = started
        self._on_step = on_step
        self._line: str | None = None  # the step whose line waits for its time
        self._open: list[str] = []  # steps started and not yet ended, oldest first
        self._begun: dict[str, float] = {}  # steps begun with begin(), not yet ended
        self.first_run_s: float | None = None
        """Seconds from the command's start to its first run (``None`` before)."""

    @property
    def elapsed_s(self) -> float:
        """Seconds since the command began."""
        return time.monotonic() - self._started

    def step_started(self, step: str) -> None:
        self._end_line()
        self._write(f"{PREFIX}{step}…")
        self._line = step
        self._open.append(step)
        if self._on_step is not None:
            self._on_step()

    def step_finished(self, step: str, elapsed_s: float) -> None:
        self._close(step, f" {elapsed_s:.1f} s")

    def step_failed(self, step: str, elapsed_s: float) -> None:
        self._close(step, f" failed after {elapsed_s:.1f} s")

    def _close(self, step: str, outcome: str) -> None:
        if self._line == step:  # nothing was printed since the step began: finish its line
            self._write(f"{outcome}\n")
            self._line = None
        else:  # steps overlapped: the step is named again with its time
            self._end_line()
            self._write(f"{PREFIX}{step}…{outcome}\n")
        if step in self._open:
            self._open.remove(step)
        if self._open:  # the last line on screen names what is still being waited for
            self._line = self._open[-1]
            self._write(f"{PREFIX}{self._line}…")
        if self._on_step is not None:
            self._on_step()

    @contextmanager
    def step(self, step: str) -> Iterator[None]:
        """Report the block as one step."""
        self.begin(step)
        yield
        self.end()

    def begin(self, step: str) -> None:
        """A step of the command line's own that :meth:`end` (or the first run) ends."""
        self._begun[step] = time.monotonic()
        self.step_started(step)

    def end(self) -> None:
        """End the steps begun with :meth:`begin` (a no-op when there are none)."""
        for step, since in list(self._begun.items()):
            del self._begun[step]
            self.step_finished(step, time.monotonic() - since)

    def runs_begin(self) -> None:
        """The batch's runs start (only the first batch of a command counts)."""
        self.end()
        if self.first_run_s is None:
            self.first_run_s = self.elapsed_s

    def __enter__(self) -> StartupLog:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._open.clear()  # nothing is waited for any more
        if isinstance(exc, Exception):  # the steps it interrupted failed; the error follows
            for step, since in self._begun.items():
                self.step_failed(step, time.monotonic() - since)
        self._begun.clear()
        self._end_line()  # a step cut short by Ctrl-C leaves its line open: end it

    def _end_line(self) -> None:
        if self._line is not None:
            self._write("\n")
            self._line = None

    @staticmethod
    def _write(text: str) -> None:
        sys.stderr.write(text)  # looked up each time: tests and callers may swap sys.stderr
        sys.stderr.flush()
