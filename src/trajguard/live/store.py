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

import json
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from trajguard._files import atomic_write, atomic_write_text, default_mode
from trajguard.errors import StoreError

__all__ = [
    "RUN_SCHEMA",
    "STORE_SCHEMA_VERSION",
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
    table = _table(rows)
    atomic_write(path, lambda temp: pq.write_table(table, temp, compression="zstd"))


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


def completed_run_ids(runset: Path) -> set[str]:
    """The run ids already on disk (for ``--resume``)."""
    if not Path(runset).is_dir():
        return set()
    return set(read_table(runset).column("run_id").to_pylist())


def compact(runset: Path) -> int:
    """Merge in-progress parts into ``runs.parquet`` atomically; returns the row count."""
    runset = Path(runset)
    table = read_table(runset)
    atomic_write(runset / RUNS_FILE, lambda temp: pq.write_table(table, temp, compression="zstd"))
    shutil.rmtree(runset / PARTS_DIR, ignore_errors=True)
    return int(table.num_rows)


JOURNAL_FILE = "started.jsonl"


def journal_start(runset: Path, run_id: str, started_at: str) -> None:
    """Append a run's start to the run set's journal (so an interrupted run is known)."""
    path = Path(runset) / JOURNAL_FILE
    with path.open("a", encoding="utf-8") as journal:
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
    atomic_write_text(Path(runset) / MANIFEST_FILE, text)


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


def copy_runset(source: Path, target: Path, *, manifest_updates: Mapping[str, Any]) -> None:
    """Copy a run set's runs and manifest to ``target``, replacing it atomically."""
    manifest = {**read_manifest(source), **manifest_updates}
    table = read_table(source)
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    staging.chmod(default_mode(directory=True))
    try:
        atomic_write(
            staging / RUNS_FILE, lambda temp: pq.write_table(table, temp, compression="zstd")
        )
        write_manifest(staging, manifest)
        old = None
        if target.exists():
            old = target.with_name(f".{target.name}.old")
            shutil.rmtree(old, ignore_errors=True)
            target.rename(old)
        staging.rename(target)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
