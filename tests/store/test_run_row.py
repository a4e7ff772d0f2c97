"""One run-row builder beside the run schema: a batch's row (``trajguard.runner.build_row``)
and an imported run's row (``trajguard import``) of the same run have the same columns, of the
same types and values, from :mod:`trajguard.store._run_row`."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from trajguard_testkit.runsets import make_row, trajectory

from trajguard import store
from trajguard.importers._model import ImportedCriterion, ImportedRun
from trajguard.importers._rows import imported_row
from trajguard.redaction import Redactor

CALLS = ["lookup_country"]
BATCH = {"batch_id": "b1", "suite": "demo", "trajguard_version": "test"}
IDENTITY = {"run_id", "batch_id", "suite", "scenario", "variant", "run_index", "model", "seed"}
IDENTITY |= {"started_at", "duration_s", "git_sha", "config_hash", "trajguard_version"}
SAME_RUN = IDENTITY - {"seed", "git_sha", "config_hash"}  # what an importer cannot know


def _imported(batch_row: dict[str, Any]) -> dict[str, Any]:
    """The same run as another tool's log would give it: its trajectory and its verdicts."""
    run = ImportedRun(
        scenario=batch_row["scenario"],
        run_index=batch_row["run_index"],
        variant=batch_row["variant"],
        model=batch_row["model"],
        status=batch_row["status"],
        passed=not batch_row["failed_criteria"],
        crashed=batch_row["crashed"],
        criteria=tuple(
            ImportedCriterion(name=c["criterion"], held=c["held"], reason=c["reason"])
            for c in batch_row["criteria"]
        ),
        trajectory=trajectory(CALLS),
        started_at=batch_row["started_at"],
        duration_s=batch_row["duration_s"],
        error_type=batch_row["error_type"],
        error_message=batch_row["error_message"],
    )
    return imported_row(run, batch=BATCH, redactor=Redactor())


@pytest.mark.parametrize("status", ["ok", "crash"])
def test_a_batch_row_and_an_imported_row_share_the_builders_columns(status: str) -> None:
    batch_row = make_row("capital", 0, CALLS, status=status)
    imported = _imported(batch_row)
    assert set(imported) <= set(batch_row) <= set(store.RUN_SCHEMA.names)
    shared = set(imported) - IDENTITY
    assert "trajectory" in shared and "failed_criteria" in shared and "total_tokens" in shared
    for column in sorted(shared | SAME_RUN):
        assert imported[column] == batch_row[column], column
        assert type(imported[column]) is type(batch_row[column]), column
    if status == "crash":
        assert imported["passed"] is False
        assert imported["failed_criteria"][0].startswith("no crash: the run ended as crash")


def test_both_rows_are_one_table_of_the_run_schema() -> None:
    batch_row = make_row("capital", 0, CALLS)
    table = store.rows_to_table([batch_row, _imported(batch_row)])
    assert table.schema.equals(store.RUN_SCHEMA, check_metadata=True)
    batch, imported = table.to_pylist()
    known = {column for column, value in imported.items() if value is not None}
    assert known >= SAME_RUN | {"trajectory", "tool_counts", "criteria", "total_tokens"}
    assert {c: batch[c] for c in known} == {c: imported[c] for c in known}


def test_the_identity_columns_are_built_once() -> None:
    row = store.run_columns(
        run_id="s/base/0",
        batch=BATCH,
        scenario="s",
        variant="base",
        run_index=0,
        model="m",
        seed=None,
        started_at=datetime(2026, 12, 1, tzinfo=UTC),
        duration_s=1.0,
        git_sha=None,
        config_hash=None,
        status="ok",
        error_type=None,
        error_message=None,
        crashed=False,
    )
    assert set(row) == IDENTITY | {"status", "error_type", "error_message", "crashed"}
    assert store.outcome_columns(row, passed=True, failed=[], criteria=[]) == {
        "passed": True,
        "failed_criteria": [],
        "criteria": [],
    }
