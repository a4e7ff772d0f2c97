"""The store of nights' row schema: one row per night, scenario and variant.

Each night is one Parquet file, ``<root>/suite=<suite>/date=<YYYY-MM-DD>/<night_id>.parquet``
(hive partitioning: ``suite`` and ``date`` live in the path, not in the file). The columns are
documented in ``docs/reference/nights-store.md``; ``schema_version`` says which version wrote
a row. A row of an
older version reads with the columns it lacks as nulls (:data:`READ_SCHEMA`).
"""

from __future__ import annotations

import pyarrow as pa

__all__ = [
    "NIGHT_SCHEMA",
    "NIGHT_SCHEMA_VERSION",
    "PARTITION_SCHEMA",
    "READABLE_NIGHT_VERSIONS",
    "READ_SCHEMA",
]

NIGHT_SCHEMA_VERSION = 1
"""Bumped when a column changes meaning or goes away (adding one keeps old nights readable)."""

READABLE_NIGHT_VERSIONS = frozenset({0, 1})
"""Versions this trajguard reads: 0 (the first draft: no tool mix, latency or baseline columns)
and 1."""

NIGHT_SCHEMA = pa.schema(
    [
        pa.field("schema_version", pa.int32(), nullable=False),
        pa.field("night_id", pa.string(), nullable=False),
        pa.field("recorded_at", pa.timestamp("us", tz="UTC"), nullable=False),
        pa.field("scenario", pa.string(), nullable=False),
        pa.field("variant", pa.string(), nullable=False),
        pa.field("runs", pa.int64(), nullable=False),
        pa.field("passes", pa.int64(), nullable=False),
        pa.field("crashes", pa.int64(), nullable=False),
        pa.field("judged", pa.int64()),
        pa.field("mean_steps", pa.float64()),
        pa.field("mean_tokens", pa.float64()),
        pa.field("total_tokens", pa.int64()),
        pa.field("tool_mix", pa.string()),
        pa.field("mean_latency_s", pa.float64()),
        pa.field("p95_latency_s", pa.float64()),
        pa.field("config_hash", pa.string()),
        pa.field("verdict", pa.string()),
        pa.field("git_sha", pa.string()),
        pa.field("model", pa.string()),
        pa.field("runset", pa.string()),
        pa.field("night_verdict", pa.string()),
        pa.field("exit_code", pa.int32()),
        pa.field("comparison", pa.string()),
        pa.field("baseline", pa.string()),
        pa.field("baseline_batch", pa.string()),
        pa.field("baseline_started_at", pa.string()),
        pa.field("baseline_pinned", pa.bool_()),
        pa.field("baseline_runs", pa.int64()),
        pa.field("baseline_passes", pa.int64()),
        pa.field("baseline_tool_mix", pa.string()),
        pa.field("judge_disagreement", pa.float64()),
        pa.field("path_runs", pa.string()),
        pa.field("failing_paths", pa.string()),
        # cost (issue 38): over the runs whose cost is known; null when none is
        pa.field("mean_cost_usd", pa.float64()),
        pa.field("total_cost_usd", pa.float64()),
    ]
)
"""What a night's file holds (version :data:`NIGHT_SCHEMA_VERSION`)."""

PARTITION_SCHEMA = pa.schema([pa.field("suite", pa.string()), pa.field("date", pa.string())])
"""The hive partition keys of the path."""

READ_SCHEMA = pa.schema(list(NIGHT_SCHEMA) + list(PARTITION_SCHEMA))
"""What a read returns: every column of the current version plus the partition keys."""
