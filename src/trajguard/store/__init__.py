"""Run sets on disk: one Parquet row per run, a manifest, a start journal, atomic writes.

A run set is a directory::

    RUNSET/
      manifest.json      suite, models, git sha, config hashes, options, started / finished
      runs.parquet       every finished run, one row each (explicit schema, versioned)
      parts/             rows of a batch still in progress, one small file per run
      started.jsonl      the journal: one line per run as it starts

Baselines are run sets too, under ``baselines/<suite>/`` (:func:`promote`), with the batches
promoted before them under ``baselines/<suite>/history/`` (:func:`load_history`).
"""

from trajguard.store._baseline import (
    DEFAULT_KEEP,
    HISTORY_DIR,
    baseline_lock,
    copy_runset,
    history_entries,
    load_history,
    promote,
)
from trajguard.store._bounds import MAX_RUN_ROWS, ROWS_ENV, run_rows_limit
from trajguard.store._loaded import RunSet, check_comparable_sides, check_finished, load_runset
from trajguard.store._manifest import journal_start, read_journal, read_manifest, write_manifest
from trajguard.store._outcomes import CriterionOutcome, criterion_outcomes
from trajguard.store._run_row import (
    MESSAGE_CHARS,
    criterion_entry,
    outcome_columns,
    run_columns,
    shape_columns,
    token_columns,
)
from trajguard.store._runset import (
    LOCK_FILE,
    arm_counts,
    check_new_runset,
    claim_runset,
    compact,
    completed_run_ids,
    lock_runset,
    read_runs,
    read_table,
    write_run,
    write_runs,
    write_runs_table,
)
from trajguard.store._schema import (
    CRITERION_TYPE,
    JOURNAL_FILE,
    MANIFEST_FILE,
    PARTS_DIR,
    READABLE_VERSIONS,
    RUN_SCHEMA,
    RUNS_FILE,
    STORE_SCHEMA_VERSION,
    rows_to_table,
)
from trajguard.store._trajectory import stored_trajectory

__all__ = [
    "CRITERION_TYPE",
    "DEFAULT_KEEP",
    "HISTORY_DIR",
    "JOURNAL_FILE",
    "LOCK_FILE",
    "MANIFEST_FILE",
    "MAX_RUN_ROWS",
    "MESSAGE_CHARS",
    "PARTS_DIR",
    "READABLE_VERSIONS",
    "ROWS_ENV",
    "RUNS_FILE",
    "RUN_SCHEMA",
    "STORE_SCHEMA_VERSION",
    "CriterionOutcome",
    "RunSet",
    "arm_counts",
    "baseline_lock",
    "check_comparable_sides",
    "check_finished",
    "check_new_runset",
    "claim_runset",
    "compact",
    "completed_run_ids",
    "copy_runset",
    "criterion_entry",
    "criterion_outcomes",
    "history_entries",
    "journal_start",
    "load_history",
    "load_runset",
    "lock_runset",
    "outcome_columns",
    "promote",
    "read_journal",
    "read_manifest",
    "read_runs",
    "read_table",
    "rows_to_table",
    "run_columns",
    "run_rows_limit",
    "shape_columns",
    "stored_trajectory",
    "token_columns",
    "write_manifest",
    "write_run",
    "write_runs",
    "write_runs_table",
]
