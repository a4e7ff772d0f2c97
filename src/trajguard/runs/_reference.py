"""A run named on the command line: its run id, or ``scenario/variant/index``."""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from trajguard._text import printable
from trajguard.errors import UsageError
from trajguard.runs._listing import RunLine, list_runs
from trajguard.store import read_table

__all__ = ["RunNotFound", "read_run", "resolve_run"]


class RunNotFound(UsageError):
    """No run of the run set has the id (or ``scenario/variant/index``) given."""

    def __init__(self, reference: str, runset: Path | str, nearest: Sequence[str]) -> None:
        self.nearest = tuple(nearest)
        shown = ", ".join(printable(n) for n in self.nearest)
        super().__init__(
            f"no run {printable(reference)!r} in the run set",
            file=runset,
            hint=(f"nearest run ids: {shown}; " if shown else "")
            + f"list them with: trajguard runs {printable(runset)}",
        )


def resolve_run(reference: str, lines: Sequence[RunLine], *, runset: Path | str) -> RunLine:
    """The run a reference names: a run id, else ``scenario/variant/index``.

    Raises:
        RunNotFound: no run matches; it lists the nearest ids (by :mod:`difflib`).
    """
    for line in lines:
        if line.run_id == reference:
            return line
    for line in lines:
        if f"{line.scenario}/{line.variant}/{line.run_index}" == reference:
            return line
    ids = [line.run_id for line in lines]
    nearest = difflib.get_close_matches(reference, ids, n=5, cutoff=0.5)
    raise RunNotFound(reference, runset, nearest)


def read_run(runset: Path, reference: str) -> dict[str, Any]:
    """One run's whole row (its trajectory included), named by :func:`resolve_run`'s rules.

    Only that row's trajectory is read.

    Raises:
        RunNotFound: no run matches.
        StoreError: not a run set, or a file in it cannot be read.
    """
    line = resolve_run(reference, list_runs(runset), runset=runset)
    rows = read_table(runset, run_ids=[line.run_id]).to_pylist()
    return dict(rows[-1])  # a run id twice (a part and the finished file): the last one wins
