"""Run sets on disk: one Parquet row per run, a manifest, atomic writes, resumable batches.

A run set is a directory::

    RUNSET/
      manifest.json      suite, models, git sha, config hashes, started / finished, version
      runs.parquet       every finished run, one row each (explicit schema below)
      parts/             rows of a batch still in progress, one small file per run
      started.jsonl      the journal: one line per run as it starts

Runs are written to ``parts/`` the moment they finish (temp file + rename), so a kill loses no
finished run, and the journal tells which runs were cut off mid-run; :func:`compact` merges the
parts into ``runs.parquet`` atomically at the end of a batch. :func:`read_runs` reads both, so
an interrupted run set is still readable. Every Parquet file records
:data:`STORE_SCHEMA_VERSION` in its metadata; another version is refused with a message saying
what to do (:mod:`._schema`). pandas, DuckDB and Polars read the files as they are.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from trajguard._files import atomic_write, remove_stale_temp_files
from trajguard._json import check_regular_file
from trajguard.errors import StoreError
from trajguard.store._bounds import RunBudget
from trajguard.store._lock import exclusive
from trajguard.store._manifest import read_manifest
from trajguard.store._schema import (
    MANIFEST_FILE,
    PARTS_DIR,
    RUN_SCHEMA,
    RUNS_FILE,
    check_version,
    rows_to_table,
)
from trajguard.store._writing import writing

__all__ = [
    "LOCK_FILE",
    "arm_counts",
    "check_new_runset",
    "claim_runset",
    "compact",
    "completed_run_ids",
    "lock_runset",
    "read_runs",
    "read_table",
    "write_run",
    "write_runs",
    "write_runs_table",
]


def check_new_runset(runset: Path) -> None:
    """Refuse a path a new run set cannot be made at, before anything is written.

    Raises:
        StoreError: the path is a file, a directory that is not empty, or under a file or a
            directory that cannot be written to.
    """
    runset = Path(runset)
    if os.path.lexists(runset) and not runset.is_dir():
        what = "a symlink to nothing" if not runset.exists() else "a file"
        raise StoreError(
            f"output path exists and is {what}, not a directory",
            file=runset,
            hint="pass a new --out directory",
        )
    if runset.is_dir() and any(p.name != LOCK_FILE for p in runset.iterdir()):
        raise StoreError(
            "output directory exists and is not empty",
            file=runset,
            hint="pass a new --out directory, or --resume to finish an interrupted batch",
        )
    parent = runset.absolute()
    while not parent.exists():
        if os.path.lexists(parent):  # a symlink to nothing: the run could not create it
            raise StoreError(
                f"cannot create the run set: {parent} is a symlink to nothing", file=runset
            )
        parent = parent.parent
    if not parent.is_dir():
        raise StoreError(f"cannot create the run set: {parent} is not a directory", file=runset)
    if not os.access(parent, os.W_OK | os.X_OK):
        raise StoreError(
            f"cannot create the run set: {parent} is not writable",
            file=runset,
            hint="pass an --out directory you can write to",
        )
    _probe_writable(parent, runset)


def _probe_writable(directory: Path, runset: Path) -> None:
    """Make and remove an empty directory in ``directory``: the permission bits do not tell
    for root, a read-only mount or a file system such as ``/proc``."""
    try:
        os.rmdir(tempfile.mkdtemp(prefix=".trajguard-probe-", dir=directory))
    except OSError as exc:
        raise StoreError(
            f"cannot create the run set: {directory} is not writable ({exc.strerror or exc})",
            file=runset,
            hint="pass an --out directory you can write to",
        ) from None


LOCK_FILE = ".trajguard~lock"
"""Held by the one process writing a run set (a batch, its resume); gone when it ends."""


@contextlib.contextmanager
def lock_runset(runset: Path, *, new: bool) -> Iterator[None]:
    """Be the one writer of ``runset`` for the ``with`` block: a second batch into the same new
    directory, or a second ``--resume`` of a run set being resumed, is refused at once
    (:class:`StoreBusy`) before it writes anything.

    Args:
        new: the run set is being made: the directory is created, and checked again under the
            lock (another batch may have claimed it since the first check).
    """
    runset = Path(runset)
    if new:
        with writing(runset, "the run set"):
            runset.mkdir(parents=True, exist_ok=True)
    held = contextlib.ExitStack()
    with writing(runset, "the run set's lock"):
        held.enter_context(exclusive(runset / LOCK_FILE, what=f"the run set {runset}", wait_s=0))
    with held:
        if new:
            check_new_runset(runset)
        yield


def write_runs(path: Path, rows: Sequence[Mapping[str, Any]]) -> None:
    """Write rows to one Parquet file atomically (temp file in the same directory + rename)."""
    write_runs_table(path, rows_to_table(rows))


def write_run(runset: Path, row: Mapping[str, Any]) -> Path:
    """Persist one finished run as its own part file; returns its path."""
    safe = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in str(row["run_id"]))
    path = runset / PARTS_DIR / f"{safe}.parquet"
    write_runs(path, [row])
    return path


def _read_file(
    path: Path,
    budget: RunBudget,
    columns: Sequence[str] | None = None,
    run_ids: Sequence[str] | None = None,
) -> pa.Table:
    try:
        # a FIFO would block the reader, a device never end
        check_regular_file(path, max_bytes=budget.max_file_bytes)
        metadata = pq.read_metadata(path)
        check_version(path, metadata.schema.to_arrow_schema())
        budget.charge(path, metadata)
        if columns is None and run_ids is None:
            return pq.read_table(path, schema=RUN_SCHEMA)
        return _read_some(path, list(columns or RUN_SCHEMA.names), run_ids)
    except StoreError:
        raise
    except (OSError, pa.ArrowException) as exc:
        raise StoreError(f"cannot read Parquet file: {exc}", file=path) from None


def _read_some(path: Path, columns: list[str], run_ids: Sequence[str] | None) -> pa.Table:
    """Some columns of a run file, and only the row groups holding ``run_ids`` if given;
    columns the file lacks (written before they existed) read as nulls.

    Plain ``ParquetFile`` reads and slices, no compute kernel or dataset: those import pandas,
    which would double the start of ``trajguard runs``.
    """
    file = pq.ParquetFile(path)
    groups = list(range(file.num_row_groups))
    rows: list[int] = []
    if run_ids is not None:
        wanted = set(run_ids)
        ids = file.read(columns=["run_id"]).column("run_id").to_pylist()
        rows = [i for i, run_id in enumerate(ids) if run_id in wanted]
        starts = [0]
        for index in groups:
            starts.append(starts[-1] + file.metadata.row_group(index).num_rows)
        groups = sorted({next(g for g in groups if starts[g + 1] > row) for row in rows})
    target = pa.schema([RUN_SCHEMA.field(c) for c in columns], metadata=RUN_SCHEMA.metadata)
    if not groups:
        return target.empty_table()
    present = [c for c in columns if c in file.schema_arrow.names]
    table = file.read_row_groups(groups, columns=present)
    if run_ids is not None:  # the rows of the runs asked for, in the groups read
        table = pa.concat_tables([table.slice(r, 1) for r in _rebased(rows, file, groups)])
    arrays = [
        table.column(name)
        if name in present
        else pa.nulls(table.num_rows, RUN_SCHEMA.field(name).type)
        for name in columns
    ]
    return pa.Table.from_arrays(arrays, schema=target)


def _rebased(rows: list[int], file: pq.ParquetFile, groups: list[int]) -> list[int]:
    """Row numbers of the file as row numbers of the table of ``groups`` read together."""
    sizes = [file.metadata.row_group(g).num_rows for g in range(file.num_row_groups)]
    offset: dict[int, int] = {}
    position = 0
    for group in groups:
        offset[group] = position
        position += sizes[group]
    out = []
    for row in rows:
        start = 0
        for group, size in enumerate(sizes):
            if row < start + size:
                out.append(offset[group] + row - start)
                break
            start += size
    return out


_ROW_GROUP = 256
"""Rows per Parquet row group: one run's trajectory is read with at most this many others."""


def _files(runset: Path) -> list[Path]:
    files = [runset / RUNS_FILE] if os.path.lexists(runset / RUNS_FILE) else []
    parts = runset / PARTS_DIR
    if parts.is_dir():
        files += sorted(p for p in parts.glob("*.parquet") if not p.name.startswith("."))
    return files


def _own_batch(runset: Path) -> str | None:
    """The batch id the run set's manifest names (``None``: no manifest, or it names none)."""
    if not os.path.lexists(runset / MANIFEST_FILE):
        return None
    batch = read_manifest(runset).get("batch_id")
    return None if batch is None else str(batch)


def _check_batch(path: Path, table: pa.Table, batch: str | None) -> pa.Table:
    """Refuse a file holding runs of another batch than its run set's manifest names (a
    ``runs.parquet`` copied or linked from another run set): its runs were not made by this
    batch, with its seeds and settings."""
    if batch is None or table.num_rows == 0:
        return table
    found = set(table.column("batch_id").unique().to_pylist())
    others = sorted(str(b) for b in found - {batch})
    if others:
        raise StoreError(
            f"the file holds runs of another batch ({', '.join(repr(b) for b in others[:3])}) "
            f"than its run set's manifest names ({batch!r})",
            file=path,
            hint="a run set's files belong together: restore this file from the batch's own "
            "run set, or run the batch again",
        )
    return table


def read_table(
    runset: Path,
    *,
    columns: Sequence[str] | None = None,
    run_ids: Sequence[str] | None = None,
) -> pa.Table:
    """Every run of a run set as one Arrow table (finished file plus in-progress parts).

    Args:
        columns: read only these columns (``run_id`` and ``batch_id`` are always read): a
            listing need not read every trajectory.
        run_ids: read only the rows of these runs.

    Raises:
        StoreError: not a run set directory, a file that is not a regular file or not a run
            file, files over the limits of :mod:`._bounds` (rows, bytes), or a file holding
            runs of another batch than the manifest names.
    """
    runset = Path(runset)
    if not runset.is_dir():
        raise StoreError(
            "run set not found", file=runset, hint="pass a directory written by `trajguard run`"
        )
    batch = _own_batch(runset)
    if columns is not None:
        unknown = sorted(set(columns) - set(RUN_SCHEMA.names))
        if unknown:
            raise StoreError(f"no such run column(s): {', '.join(unknown)}")
        columns = ["run_id", "batch_id", *(c for c in columns if c not in ("run_id", "batch_id"))]
    budget = RunBudget()
    tables = [
        _check_batch(path, _read_file(path, budget, columns, run_ids), batch)
        for path in _files(runset)
    ]
    if not tables:
        empty = RUN_SCHEMA.empty_table()
        return empty if columns is None else empty.select(columns)
    table = pa.concat_tables(tables)
    ids = table.column("run_id").to_pylist()
    if len(set(ids)) != len(ids):
        keep = sorted({run_id: i for i, run_id in enumerate(ids)}.values())
        table = table.take(keep)
    return table


def read_runs(runset: Path) -> Any:
    """Every run of a run set as a pandas DataFrame (one row per run)."""
    return read_table(runset).to_pandas(maps_as_pydicts="strict")


def arm_counts(runset: Path) -> dict[tuple[str, str], int]:
    """Runs per (scenario, variant) of a run set."""
    table = read_table(runset)
    pairs = zip(
        table.column("scenario").to_pylist(), table.column("variant").to_pylist(), strict=True
    )
    return dict(Counter(pairs))


def completed_run_ids(runset: Path) -> set[str]:
    """The run ids already on disk (for ``--resume``)."""
    if not Path(runset).is_dir():
        return set()
    return set(read_table(runset).column("run_id").to_pylist())


def compact(runset: Path) -> int:
    """Merge in-progress parts into ``runs.parquet`` atomically; returns the row count."""
    runset = Path(runset)
    claim_runset(runset)
    table = read_table(runset)
    write_runs_table(runset / RUNS_FILE, table)
    shutil.rmtree(runset / PARTS_DIR, ignore_errors=True)
    return int(table.num_rows)


def claim_runset(runset: Path) -> None:
    """Clear what a killed writer left behind (temp files of interrupted atomic writes) before
    this process writes to the run set: a resumed batch, or the compaction that ends one."""
    remove_stale_temp_files(runset)
    remove_stale_temp_files(runset / PARTS_DIR)


def write_runs_table(path: Path, table: pa.Table) -> None:
    """Write an Arrow table of runs to one Parquet file atomically."""
    with writing(path, "Parquet file"):
        atomic_write(
            path,
            lambda temp: pq.write_table(table, temp, compression="zstd", row_group_size=_ROW_GROUP),
        )
