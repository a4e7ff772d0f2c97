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
what to do. pandas, DuckDB and Polars read the files as they are.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from trajguard._files import atomic_write, atomic_write_text, default_mode
from trajguard.errors import StoreError

__all__ = [
    "RUN_SCHEMA",
    "STORE_SCHEMA_VERSION",
    "arm_counts",
    "check_new_runset",
    "compact",
    "read_manifest",
    "read_runs",
    "write_manifest",
    "write_run",
    "write_runs",
]

STORE_SCHEMA_VERSION = "1"
_VERSION_KEY = b"trajguard.store_schema_version"
RUNS_FILE = "runs.parquet"
PARTS_DIR = "parts"
MANIFEST_FILE = "manifest.json"

RUN_SCHEMA = pa.schema(
    [
        pa.field("run_id", pa.string(), nullable=False),
        pa.field("batch_id", pa.string(), nullable=False),
        pa.field("suite", pa.string(), nullable=False),
        pa.field("scenario", pa.string(), nullable=False),
        pa.field("variant", pa.string(), nullable=False),
        pa.field("run_index", pa.int32(), nullable=False),
        pa.field("model", pa.string(), nullable=False),
        pa.field("seed", pa.int64()),
        pa.field("started_at", pa.timestamp("us", tz="UTC")),
        pa.field("duration_s", pa.float64()),
        pa.field("git_sha", pa.string()),
        pa.field("config_hash", pa.string()),
        pa.field("trajguard_version", pa.string()),
        pa.field("atif_schema_version", pa.string()),
        pa.field("status", pa.string(), nullable=False),
        pa.field("error_type", pa.string()),
        pa.field("error_message", pa.string()),
        pa.field("passed", pa.bool_()),
        pa.field("failed_criteria", pa.list_(pa.string())),
        pa.field("crashed", pa.bool_()),
        pa.field("step_count", pa.int32()),
        pa.field("agent_steps", pa.int32()),
        pa.field("llm_calls", pa.int32()),
        pa.field("tool_call_count", pa.int32()),
        pa.field("tool_sequence", pa.list_(pa.string())),
        pa.field("tool_counts", pa.map_(pa.string(), pa.int32())),
        pa.field("prompt_tokens", pa.int64()),
        pa.field("completion_tokens", pa.int64()),
        pa.field("total_tokens", pa.int64()),
        pa.field("cost_usd", pa.float64()),
        pa.field("subagent_count", pa.int32()),
        pa.field("content_hash", pa.string()),
        pa.field("final_output", pa.string()),
        pa.field("trajectory", pa.string()),
    ],
    metadata={_VERSION_KEY: STORE_SCHEMA_VERSION.encode()},
)


@contextlib.contextmanager
def _writing(path: Path, what: str) -> Iterator[None]:
    """Turn an operating-system error while writing ``path`` into a :class:`StoreError`."""
    try:
        yield
    except OSError as exc:
        raise StoreError(
            f"cannot write {what}: {exc.strerror or exc}",
            file=exc.filename or path,
            hint="pass a directory you can write to (a new or empty one for a run set)",
        ) from None


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


def _table(rows: Sequence[Mapping[str, Any]]) -> pa.Table:
    columns: dict[str, list[Any]] = {name: [] for name in RUN_SCHEMA.names}
    for row in rows:
        unknown = set(row) - set(columns)
        if unknown:
            raise StoreError(f"run row has columns outside the schema: {sorted(unknown)}")
        for name in columns:
            value = row.get(name)
            if name == "tool_counts" and isinstance(value, Mapping):
                value = list(value.items())
            columns[name].append(value)
    try:
        return pa.Table.from_pydict(columns, schema=RUN_SCHEMA)
    except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
        raise StoreError(f"run rows do not fit the Parquet schema: {exc}") from None


def write_runs(path: Path, rows: Sequence[Mapping[str, Any]]) -> None:
    """Write rows to one Parquet file atomically (temp file in the same directory + rename)."""
    write_runs_table(path, _table(rows))


def write_run(runset: Path, row: Mapping[str, Any]) -> Path:
    """Persist one finished run as its own part file; returns its path."""
    safe = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in str(row["run_id"]))
    path = runset / PARTS_DIR / f"{safe}.parquet"
    write_runs(path, [row])
    return path


def _check_version(path: Path, schema: pa.Schema) -> None:
    found = (schema.metadata or {}).get(_VERSION_KEY)
    if found is None:
        raise StoreError(
            "not a trajguard run file: no store schema version in its metadata",
            file=path,
            hint="run sets are written by `trajguard run`",
        )
    if found.decode() != STORE_SCHEMA_VERSION:
        newer = int(found.decode()) > int(STORE_SCHEMA_VERSION)
        raise StoreError(
            f"run file has store schema version {found.decode()}, this trajguard reads "
            f"version {STORE_SCHEMA_VERSION}",
            file=path,
            hint="upgrade trajguard to read it"
            if newer
            else "re-create the run set with this trajguard version, or read it with the "
            "version that wrote it",
        )


def _read_file(path: Path) -> pa.Table:
    try:
        schema = pq.read_schema(path)
        _check_version(path, schema)
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
    table = read_table(runset)
    write_runs_table(runset / RUNS_FILE, table)
    shutil.rmtree(runset / PARTS_DIR, ignore_errors=True)
    return int(table.num_rows)


JOURNAL_FILE = "started.jsonl"


def journal_start(runset: Path, run_id: str, started_at: str) -> None:
    """Append a run's start to the run set's journal (so an interrupted run is known)."""
    path = Path(runset) / JOURNAL_FILE
    with _writing(path, "the journal"), path.open("a", encoding="utf-8") as journal:
        journal.write(json.dumps({"run_id": run_id, "started_at": started_at}) + "\n")
        journal.flush()


def read_journal(runset: Path) -> dict[str, str]:
    """run_id → start time of every run that started (a torn last line is ignored)."""
    path = Path(runset) / JOURNAL_FILE
    started: dict[str, str] = {}
    if not path.exists():
        return started
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            entry = json.loads(line)
        except json.JSONDecodeError:
            continue
        started[str(entry["run_id"])] = str(entry["started_at"])
    return started


def write_manifest(runset: Path, manifest: Mapping[str, Any]) -> None:
    """Write ``manifest.json`` atomically."""
    text = json.dumps(manifest, indent=2, sort_keys=True, default=str) + "\n"
    path = Path(runset) / MANIFEST_FILE
    with _writing(path, "the manifest"):
        atomic_write_text(path, text)


def read_manifest(runset: Path) -> dict[str, Any]:
    """The run set's manifest."""
    path = Path(runset) / MANIFEST_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise StoreError(
            "not a run set: manifest.json is missing",
            file=path.parent,
            hint="pass a directory written by `trajguard run`",
        ) from None
    except (OSError, json.JSONDecodeError) as exc:
        raise StoreError(f"cannot read manifest: {exc}", file=path) from None
    if not isinstance(data, dict):
        raise StoreError("manifest.json does not hold an object", file=path)
    return data


def write_runs_table(path: Path, table: pa.Table) -> None:
    """Write an Arrow table of runs to one Parquet file atomically."""
    with _writing(path, "Parquet file"):
        atomic_write(path, lambda temp: pq.write_table(table, temp, compression="zstd"))


def copy_runset(source: Path, target: Path, *, manifest_updates: Mapping[str, Any]) -> None:
    """Copy a run set's runs and manifest to ``target``, replacing it atomically.

    Raises:
        StoreError: ``target`` is a file, or cannot be written.
    """
    manifest = {**read_manifest(source), **manifest_updates}
    table = read_table(source)
    if target.exists() and not target.is_dir():
        raise StoreError(
            "cannot replace a file with a run set",
            file=target,
            hint="remove the file, or pass another --baselines directory",
        )
    with _writing(target, "the run set"):
        target.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    try:
        staging.chmod(default_mode(directory=True))
        write_runs_table(staging / RUNS_FILE, table)
        write_manifest(staging, manifest)
        with _writing(target, "the run set"):
            _swap(staging, target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def _swap(staging: Path, target: Path) -> None:
    """Move ``staging`` to ``target``, replacing the directory there (if any) without debris."""
    old = None
    if target.exists():
        old = target.with_name(f".{target.name}.old")
        shutil.rmtree(old, ignore_errors=True)
        target.rename(old)
    try:
        staging.rename(target)
    except OSError:
        if old is not None:
            old.rename(target)  # put the previous run set back
        raise
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)
