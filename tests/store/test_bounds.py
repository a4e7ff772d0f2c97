"""A run set's Parquet files read within limits: rows, bytes on disk, bytes decoded."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from trajguard import store
from trajguard.errors import StoreError, UsageError
from trajguard.store._bounds import MAX_RUN_ROWS


def _row(index: int) -> dict[str, object]:
    return {
        "run_id": f"demo/s/base/{index}",
        "batch_id": "b1",
        "suite": "demo",
        "scenario": "s",
        "variant": "base",
        "run_index": index,
        "model": "local/smollm2",
        "seed": index,
        "started_at": datetime(2026, 11, 29, tzinfo=UTC),
        "duration_s": 1.5,
        "status": "ok",
        "passed": True,
        "crashed": False,
        "step_count": 4,
        "tool_sequence": [],
        "tool_counts": {},
        "trajectory": '{"steps": []}',
    }


def _runset(tmp_path: Path, rows: int = 6, *, parts: int = 0) -> Path:
    runset = tmp_path / "rs"
    store.write_runs(runset / store.RUNS_FILE, [_row(i) for i in range(rows)])
    for index in range(rows, rows + parts):
        store.write_run(runset, _row(index))
    return runset


def test_the_defaults_read_a_run_set_whole(tmp_path: Path) -> None:
    assert store.read_table(_runset(tmp_path, parts=2)).num_rows == 8
    assert MAX_RUN_ROWS >= 100 * 10_000  # 100 scenarios at the most --runs allows


def test_rows_over_the_limit_are_refused_from_the_footer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runset = _runset(tmp_path)
    monkeypatch.setenv("TRAJGUARD_MAX_RUN_ROWS", "5")
    with pytest.raises(StoreError) as caught:
        store.read_table(runset)
    message = str(caught.value)
    assert "runs.parquet" in message
    assert "brings the run set to 6 rows, more than the 5 rows trajguard reads" in message
    assert "$TRAJGUARD_MAX_RUN_ROWS" in message


def test_rows_are_counted_over_every_file_of_the_run_set(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runset = _runset(tmp_path, rows=4, parts=2)
    monkeypatch.setenv("TRAJGUARD_MAX_RUN_ROWS", "5")
    with pytest.raises(StoreError, match="brings the run set to 6 rows") as caught:
        store.read_table(runset)
    assert "parts" in str(caught.value)  # the file that went over: the second part
    monkeypatch.setenv("TRAJGUARD_MAX_RUN_ROWS", "6")
    assert store.read_table(runset).num_rows == 6


def test_declared_decoded_bytes_over_the_limit_are_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runset = _runset(tmp_path)
    metadata = pq.read_metadata(runset / store.RUNS_FILE)
    declared = sum(metadata.row_group(g).total_byte_size for g in range(metadata.num_row_groups))
    monkeypatch.setenv("TRAJGUARD_MAX_INFLATED_BYTES", str(declared - 1))
    with pytest.raises(StoreError, match=f"{declared:,} bytes decoded") as caught:
        store.read_table(runset)
    assert "$TRAJGUARD_MAX_INFLATED_BYTES" in str(caught.value)
    monkeypatch.setenv("TRAJGUARD_MAX_INFLATED_BYTES", str(declared))
    assert store.read_table(runset).num_rows == 6


def test_a_file_over_the_size_on_disk_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runset = _runset(tmp_path)
    monkeypatch.setenv("TRAJGUARD_MAX_FILE_BYTES", "100")
    with pytest.raises(StoreError, match=r"more than the 100 trajguard reads") as caught:
        store.read_table(runset)
    assert "$TRAJGUARD_MAX_FILE_BYTES" in str(caught.value)


def test_a_limit_set_to_nonsense_is_a_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runset = _runset(tmp_path)
    monkeypatch.setenv("TRAJGUARD_MAX_RUN_ROWS", "many")
    with pytest.raises(UsageError, match=r"\$TRAJGUARD_MAX_RUN_ROWS must be a whole number"):
        store.read_table(runset)
