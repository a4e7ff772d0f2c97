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

import os
import shutil
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from trajguard._files import atomic_write, remove_stale_temp_files
from trajguard.errors import StoreError
from trajguard.store._schema import PARTS_DIR, RUN_SCHEMA, RUNS_FILE, check_version, rows_to_table
from trajguard.store._writing import writing

__all__ = [
    "arm_counts",
    "check_new_runset",
    "claim_runset",
    "compact",
    "completed_run_ids",
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
    if runset.exists() and not runset.is_dir():
        raise StoreError(
            "output path exists and is a file, not a directory",
            file=runset,
            hint="pass a new --out directory",
        )
    if runset.is_dir() and any(runset.iterdir()):
        raise StoreError(
            "output directory exists and is not empty",
            file=runset,
            hint="pass a new --out directory, or --resume to finish an interrupted batch",
        )
    parent = runset.absolute()
    while not parent.exists():
        parent = parent.parent
    if not parent.is_dir():
        raise StoreError(f"cannot create the run set: {parent} is not a directory", file=runset)
    if not os.access(parent, os.W_OK | os.X_OK):
        raise StoreError(
            f"cannot create the run set: {parent} is not writable",
            file=runset,
            hint="pass an --out directory you can write to",
        )


def write_runs(path: Path, rows: Sequence[Mapping[str, Any]]) -> None:
    """Write rows to one Parquet file atomically (temp file in the same directory + rename)."""
    write_runs_table(path, rows_to_table(rows))


def write_run(runset: Path, row: Mapping[str, Any]) -> Path:
    """Persist one finished run as its own part file; returns its path."""
    safe = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in str(row["run_id"]))
    path = runset / PARTS_DIR / f"{safe}.parquet"
    write_runs(path, [row])
    return path


def _read_file(path: Path) -> pa.Table:
    try:
        schema = pq.read_schema(path)
        check_version(path, schema)
        return pq.read_table(path, schema=RUN_SCHEMA)
    except StoreError:
        raise
    except (OSError, pa.ArrowException) as exc:
        raise StoreError(f"cannot read Parquet file: {exc}", file=path) from None


def _files(runset: Path) -> list[Path]:
    files = [runset / RUNS_FILE] if (runset / RUNS_FILE).exists() else []
    parts = runset / PARTS_DIR
    if parts.is_dir():
        files += sorted(p for p in parts.glob("*.parquet") if not p.name.startswith("."))
    return files


def read_table(runset: Path) -> pa.Table:
    """Every run of a run set as one Arrow table (finished file plus in-progress parts)."""
    runset = Path(runset)
    if not runset.is_dir():
        raise StoreError(
            "run set not found", file=runset, hint="pass a directory written by `trajguard run`"
        )
    tables = [_read_file(path) for path in _files(runset)]
    if not tables:
        return RUN_SCHEMA.empty_table()
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
        atomic_write(path, lambda temp: pq.write_table(table, temp, compression="zstd"))
