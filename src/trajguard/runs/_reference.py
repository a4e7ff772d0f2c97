"""A run named on the command line: its run id, or ``scenario/variant/index``."""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Protocol, TypeVar

import pyarrow as pa

from trajguard._text import printable
from trajguard.errors import UsageError
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


class Named(Protocol):
    """What names a run: its id, scenario, variant and index (a :class:`RunLine` has them)."""

    @property
    def run_id(self) -> str: ...
    @property
    def scenario(self) -> str: ...
    @property
    def variant(self) -> str: ...
    @property
    def run_index(self) -> int: ...


@dataclass(frozen=True, kw_only=True)
class _Name:
    run_id: str
    scenario: str
    variant: str
    run_index: int


N = TypeVar("N", bound=Named)


def resolve_run(reference: str, lines: Sequence[N], *, runset: Path | str) -> N:
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
    table = read_table(runset, columns=["scenario", "variant", "run_index"])
    names = [
        _Name(
            run_id=r["run_id"],
            scenario=r["scenario"],
            variant=r["variant"],
            run_index=r["run_index"],
        )
        for r in table.to_pylist()
    ]
    line = resolve_run(reference, names, runset=runset)
    rows = _python_rows(read_table(runset, run_ids=[line.run_id]))
    return rows[-1]  # a run id twice (a part and the finished file): the last one wins


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _python_rows(table: pa.Table) -> list[dict[str, Any]]:
    """``table.to_pylist()``, but timestamps made here: pyarrow's conversion of a timestamp
    with a time zone imports pandas, which would double the time ``show --run`` takes."""
    columns: dict[str, list[Any]] = {}
    for field in table.schema:
        column = table.column(field.name)
        if pa.types.is_timestamp(field.type) and field.type.unit == "us":
            micros = [v for chunk in column.chunks for v in chunk.view(pa.int64()).to_pylist()]
            columns[field.name] = [
                None if v is None else _EPOCH + timedelta(microseconds=v) for v in micros
            ]
        else:
            columns[field.name] = column.to_pylist()
    return [
        dict(zip(columns, values, strict=True)) for values in zip(*columns.values(), strict=True)
    ]
