"""The run table's Parquet schema (one row per run) and its version.

Every Parquet file records :data:`STORE_SCHEMA_VERSION` in its metadata; another version is
refused with a message saying what to do. The columns are documented in docs/reference/runset.md.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa

from trajguard.errors import StoreError

__all__ = [
    "CRITERION_TYPE",
    "JOURNAL_FILE",
    "MANIFEST_FILE",
    "PARTS_DIR",
    "READABLE_VERSIONS",
    "RUNS_FILE",
    "RUN_SCHEMA",
    "STORE_SCHEMA_VERSION",
    "check_version",
    "rows_to_table",
]

STORE_SCHEMA_VERSION = "2"
READABLE_VERSIONS = ("1", "2")
"""Versions this trajguard reads: version 1 lacks ``criteria`` (it reads as null, "unknown")."""
_VERSION_KEY = b"trajguard.store_schema_version"
RUNS_FILE = "runs.parquet"
PARTS_DIR = "parts"
MANIFEST_FILE = "manifest.json"

CRITERION_TYPE = pa.struct(
    [
        pa.field("criterion", pa.string()),
        pa.field("held", pa.bool_()),
        pa.field("reason", pa.string()),
        pa.field("error", pa.bool_()),
    ]
)
"""One entry of the ``criteria`` column: the criterion's label, whether it held, why not, and
whether it could not judge the run (a criterion error)."""

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
        # schema 2 (issue 22): one entry per pass criterion, in the suite's order; null for runs
        # not judged, and in files of version 1
        pa.field("criteria", pa.list_(CRITERION_TYPE)),
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
        # chaos (issue 15): null for runs of arms without faults, and in files written before
        pa.field("faults_injected", pa.int32()),
        pa.field("fault_kinds", pa.map_(pa.string(), pa.int32())),
        pa.field("retried_after_fault", pa.bool_()),
        pa.field("recovered_or_escalated", pa.bool_()),
        pa.field("no_fabricated_result", pa.bool_()),
        # judged criteria (issue 25): JSON, one entry per judge criterion (its samples'
        # verdicts, reasons and tokens); null without judges, and in files written before
        pa.field("judge_calls", pa.string()),
        # conversations (issue 37): why the conversation ended (user_done, max_turns,
        # agent_ended, error) and its user messages; null for runs without one, and before
        pa.field("stop_reason", pa.string()),
        pa.field("user_turns", pa.int32()),
        # cost (issue 38): the judge's calls, apart from the agent's ``cost_usd``
        pa.field("judge_cost_usd", pa.float64()),
        # ... and the simulated user's (null for runs without one)
        pa.field("user_cost_usd", pa.float64()),
    ],
    metadata={_VERSION_KEY: STORE_SCHEMA_VERSION.encode()},
)


JOURNAL_FILE = "started.jsonl"


def rows_to_table(rows: Sequence[Mapping[str, Any]]) -> pa.Table:
    """Rows (dicts) as an Arrow table of :data:`RUN_SCHEMA`; a column outside it is an error."""
    columns: dict[str, list[Any]] = {name: [] for name in RUN_SCHEMA.names}
    for row in rows:
        unknown = set(row) - set(columns)
        if unknown:
            raise StoreError(f"run row has columns outside the schema: {sorted(unknown)}")
        for name in columns:
            value = row.get(name)
            if name in ("tool_counts", "fault_kinds") and isinstance(value, Mapping):
                value = list(value.items())
            columns[name].append(value)
    try:
        return pa.Table.from_pydict(columns, schema=RUN_SCHEMA)
    except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
        raise StoreError(f"run rows do not fit the Parquet schema: {exc}") from None


def check_version(path: Path, schema: pa.Schema) -> None:
    """Refuse a Parquet file of a store schema version this trajguard does not read (see
    :data:`READABLE_VERSIONS`), or lacking a required column (columns added later read as nulls
    from older files)."""
    found = (schema.metadata or {}).get(_VERSION_KEY)
    if found is None:
        raise StoreError(
            "not a trajguard run file: no store schema version in its metadata",
            file=path,
            hint="run sets are written by `trajguard run`",
        )
    version = found.decode(errors="replace")
    if not version.isdecimal():
        raise StoreError(
            f"run file has an unreadable store schema version {version!r:.40}",
            file=path,
            hint="run sets are written by `trajguard run`",
        )
    missing = [f.name for f in RUN_SCHEMA if not f.nullable and f.name not in schema.names]
    if version in READABLE_VERSIONS and missing:
        raise StoreError(
            f"run file lacks required column(s) {', '.join(missing)}",
            file=path,
            hint="run sets are written by `trajguard run`; this file was not, or was cut",
        )
    if version not in READABLE_VERSIONS:
        newer = int(version) > int(STORE_SCHEMA_VERSION)
        raise StoreError(
            f"run file has store schema version {version}, this trajguard reads "
            f"versions {' and '.join(READABLE_VERSIONS)}",
            file=path,
            hint="upgrade trajguard to read it"
            if newer
            else "re-create the run set with this trajguard version, or read it with the "
            "version that wrote it",
        )
