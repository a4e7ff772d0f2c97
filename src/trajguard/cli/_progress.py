"""A progress display for long batches: a rich bar on a terminal, periodic lines elsewhere."""

from __future__ import annotations

import sys
import time
from collections.abc import Mapping
from types import TracebackType
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from trajguard._text import counted
from trajguard.outcome import is_crash_row, passed_row

if TYPE_CHECKING:
    from trajguard.cli._startup import StartupLog


class BatchProgress:
    """Shows runs done / total, ETA, pass and crash counts (crashes as
    :mod:`trajguard.outcome` counts them, timeouts included), harness errors (failed judges
    counted apart: never the agent's crash) and the judgements in flight.
    Writes to stderr. The batch's start-up steps go to ``startup`` (printed whatever
    ``enabled`` says)."""

    def __init__(
        self, *, enabled: bool = True, label: str = "runs", startup: StartupLog | None = None
    ) -> None:
        self._startup = startup
        self._console = Console(stderr=True)
        self._interactive = enabled and self._console.is_terminal
        self._enabled = enabled
        self._label = label
        self._progress: Progress | None = None
        self._task: Any = None
        self._total = 0
        self._done = 0
        self._passed = 0
        self._crashed = 0
        self._errors = 0
        self._judge_failed = 0
        self._judging = 0
        self._last_line = 0.0
        self._started = time.monotonic()

    def __enter__(self) -> BatchProgress:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._progress is not None:
            self._progress.stop()

    def step_started(self, step: str) -> None:
        if self._startup is not None:
            self._startup.step_started(step)

    def step_finished(self, step: str, elapsed_s: float) -> None:
        if self._startup is not None:
            self._startup.step_finished(step, elapsed_s)

    def step_failed(self, step: str, elapsed_s: float) -> None:
        if self._startup is not None:
            self._startup.step_failed(step, elapsed_s)

    def start(self, total: int, skipped: int, interrupted: int = 0) -> None:
        if self._startup is not None:
            self._startup.runs_begin()
        self._started = time.monotonic()  # the ETA counts runs, not the start-up before them
        self._total, self._done = total, skipped
        if skipped or interrupted:
            self._console.print(
                f"resuming: {skipped} of {counted(total, 'run')} already on disk"
                + (f", {interrupted} interrupted mid-run, redone" if interrupted else "")
            )
        if self._interactive:
            self._progress = Progress(
                TextColumn("[bold]{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.fields[stats]}"),
                TimeElapsedColumn(),
                TextColumn("ETA"),
                TimeRemainingColumn(),
                console=self._console,
            )
            self._progress.start()
            self._task = self._progress.add_task(
                self._label, total=total, completed=skipped, stats=self._stats()
            )

    def _stats(self) -> str:
        judge = f" (judge failed {self._judge_failed})" if self._judge_failed else ""
        judging = f" · judging {self._judging}" if self._judging else ""
        return (
            f"pass {self._passed} · crash {self._crashed} · harness error {self._errors}{judge}"
            + judging
        )

    def judging(self, active: int) -> None:
        """``active`` judgements are in flight (shown as "judging N" while any are)."""
        self._judging = active
        if self._progress is not None:
            self._progress.update(self._task, stats=self._stats())

    def update(self, row: Mapping[str, Any]) -> None:
        self._done += 1
        self._passed += passed_row(row["status"], row.get("crashed"), row.get("passed"))
        self._crashed += is_crash_row(row["status"], row.get("crashed"))
        self._errors += row.get("status") == "harness_error"
        self._judge_failed += row.get("error_type") == "judge_failed"  # never the agent's crash
        if self._progress is not None:
            self._progress.update(self._task, advance=1, stats=self._stats())
        elif self._enabled:
            now = time.monotonic()
            if now - self._last_line > 15 or self._done == self._total:
                self._last_line = now
                rate = (now - self._started) / max(self._done, 1)
                eta = rate * (self._total - self._done)
                print(
                    f"{self._label}: {self._done}/{self._total} · {self._stats()} · "
                    f"ETA {eta:.0f} s",
                    file=sys.stderr,
                    flush=True,
                )
