"""The Parquet run store: round trip, schema checks, atomic writes, readers other than ours."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from trajguard import store
from trajguard.errors import StoreError


def _row(index: int, **overrides: object) -> dict[str, object]:
    row: dict[str, object] = {
        "run_id": f"demo/multiply/base/{index}",
        "batch_id": "b1",
        "suite": "demo",
        "scenario": "multiply",
        "variant": "base",
        "run_index": index,
        "model": "local/smollm2",
        "seed": 1000 + index,
        "started_at": datetime(2026, 11, 29, 10, 0, index, tzinfo=UTC),
        "duration_s": 1.5,
        "status": "ok",
        "passed": index % 2 == 0,
        "failed_criteria": [] if index % 2 == 0 else ["final_output_contains: no 391"],
        "crashed": False,
        "step_count": 4 + index,
        "tool_sequence": ["calculator"] * index,
        "tool_counts": {"calculator": index} if index else {},
        "prompt_tokens": 100,
        "completion_tokens": 20,
        "total_tokens": 120,
        "final_output": "391",
        "trajectory": '{"steps": []}',
    }
    row.update(overrides)
    return row


def test_round_trip_keeps_every_value(tmp_path: Path) -> None:
    runset = tmp_path / "rs"
    rows = [_row(i) for i in range(3)] + [_row(3, status="harness_error", passed=None)]
    for row in rows:
        store.write_run(runset, row)
    frame = store.read_runs(runset)
    assert list(frame["run_id"]) == [r["run_id"] for r in rows]
    assert frame.loc[2, "tool_counts"] == {"calculator": 2}
    assert list(frame.loc[2, "tool_sequence"]) == ["calculator", "calculator"]
    assert frame.loc[3, "passed"] is None or pd.isna(frame.loc[3, "passed"])
    assert frame.loc[0, "started_at"] == pd.Timestamp("2026-11-29T10:00:00Z")
    assert frame.loc[1, "failed_criteria"].tolist() == ["final_output_contains: no 391"]
    assert store.compact(runset) == 4
    assert not (runset / "parts").exists()
    again = store.read_runs(runset)
    assert again.drop(columns=["tool_counts"]).equals(frame.drop(columns=["tool_counts"]))


def test_schema_is_explicit_and_versioned(tmp_path: Path) -> None:
    path = tmp_path / "runs.parquet"
    store.write_runs(path, [_row(0)])
    schema = pq.read_schema(path)
    assert schema.field("tool_counts").type == pa.map_(pa.string(), pa.int32())
    assert schema.field("tool_sequence").type == pa.list_(pa.string())
    assert schema.field("started_at").type == pa.timestamp("us", tz="UTC")
    assert schema.metadata[b"trajguard.store_schema_version"] == b"2"


@pytest.mark.parametrize(("version", "fragment"), [("0", "re-create"), ("3", "upgrade trajguard")])
def test_other_schema_versions_are_refused_clearly(
    tmp_path: Path, version: str, fragment: str
) -> None:
    runset = tmp_path / "rs"
    runset.mkdir()
    table = store.rows_to_table([_row(0)])
    table = table.replace_schema_metadata({b"trajguard.store_schema_version": version.encode()})
    pq.write_table(table, runset / "runs.parquet")
    with pytest.raises(StoreError) as caught:
        store.read_runs(runset)
    assert f"store schema version {version}" in str(caught.value)
    assert fragment in str(caught.value)


def test_foreign_parquet_is_refused(tmp_path: Path) -> None:
    runset = tmp_path / "rs"
    runset.mkdir()
    pq.write_table(pa.table({"x": [1]}), runset / "runs.parquet")
    with pytest.raises(StoreError, match="not a trajguard run file"):
        store.read_runs(runset)


def test_rows_outside_the_schema_are_refused(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="outside the schema"):
        store.write_runs(tmp_path / "x.parquet", [_row(0, surprise=1)])
    with pytest.raises(StoreError, match="do not fit"):
        store.write_runs(tmp_path / "x.parquet", [_row(0, step_count="many")])
    assert list(tmp_path.iterdir()) == [], "a failed write leaves no file behind"


def test_pandas_and_duckdb_read_the_file_as_it_is(tmp_path: Path) -> None:
    duckdb = pytest.importorskip("duckdb")
    runset = tmp_path / "rs"
    for i in range(3):
        store.write_run(runset, _row(i))
    store.compact(runset)
    path = runset / "runs.parquet"
    frame = pd.read_parquet(path)
    assert len(frame) == 3 and "trajectory" in frame.columns
    rows = duckdb.sql(
        f"select run_index, tool_counts['calculator'], len(tool_sequence) from '{path}' "
        "order by run_index"
    ).fetchall()
    assert rows == [(0, None, 0), (1, 1, 1), (2, 2, 2)]


def test_manifest_and_copy(tmp_path: Path) -> None:
    runset = tmp_path / "rs"
    store.write_run(runset, _row(0))
    store.write_manifest(runset, {"suite": "demo", "status": "finished"})
    target = tmp_path / "baselines" / "demo"
    store.copy_runset(runset, target, manifest_updates={"promoted_from": str(runset)})
    assert store.read_manifest(target)["promoted_from"] == str(runset)
    assert len(store.read_runs(target)) == 1
    store.copy_runset(runset, target, manifest_updates={"promoted_from": "again"})
    assert store.read_manifest(target)["promoted_from"] == "again"
    assert sorted(p.name for p in target.parent.iterdir()) == ["demo"]


def test_missing_runset_and_manifest(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="run set not found"):
        store.read_runs(tmp_path / "nope")
    with pytest.raises(StoreError, match=r"manifest\.json is missing"):
        store.read_manifest(tmp_path)


def test_compaction_clears_what_a_killed_writer_left(tmp_path: Path) -> None:
    runset = tmp_path / "rs"
    for index in range(3):
        store.write_run(runset, _row(index))
    # A kill between mkstemp and rename leaves these (the final compaction and a part write).
    stale = [runset / ".runs.parquet.k1ll3d.tmp", runset / "parts" / ".s_base_9.parquet.x.tmp"]
    for path in stale:
        path.write_bytes(b"half a file")
    assert len(store.read_runs(runset)) == 3, "readers never see temp files"
    assert all(path.exists() for path in stale), "a reader leaves them (their writer may live)"
    assert store.compact(runset) == 3
    assert not any(path.exists() for path in stale)
    assert sorted(p.name for p in runset.iterdir()) == ["runs.parquet"]


def test_a_run_file_written_before_the_fault_columns_reads_them_as_null() -> None:
    """The demo baseline of 2026-11-29 was written before chaos (issue 15): same schema
    version, no fault columns; they read as nulls, so a nightly compares against it unchanged."""
    import pyarrow.parquet as pq

    repo = Path(__file__).resolve().parents[2]
    committed = repo / "benchmarks" / "data" / "real-nights-2026-12-01" / "baseline"
    assert "faults_injected" not in pq.read_schema(committed / "runs.parquet").names
    runs = store.read_runs(committed)
    fault_columns = ["faults_injected", "fault_kinds", "retried_after_fault"]
    fault_columns += ["recovered_or_escalated", "no_fabricated_result"]
    assert len(runs) == 80 and runs[fault_columns].isna().all().all()
