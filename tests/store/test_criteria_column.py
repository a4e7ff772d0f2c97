"""Store schema 2's ``criteria`` column: written by the row builder, read back whole, null
("unknown") in every committed file of schema 1; newer versions still refused."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
import pytest
from trajguard_testkit.runsets import make_row, write_runset

from trajguard import store
from trajguard.errors import StoreError
from trajguard.store import CriterionOutcome, criterion_outcomes

REPO = Path(__file__).resolve().parents[2]
COMMITTED = sorted(
    [p.parent for p in (REPO / "benchmarks" / "data").rglob("runs.parquet")]
    + [p.parent for p in (REPO / "baselines").rglob("runs.parquet")]
)


def _version(runset: Path) -> bytes:
    metadata = pq.read_schema(runset / "runs.parquet").metadata
    return bytes(metadata[b"trajguard.store_schema_version"])


SCHEMA_1 = [r for r in COMMITTED if _version(r) == b"1"]
SCHEMA_2 = [r for r in COMMITTED if _version(r) == b"2"]


def test_the_committed_run_sets_are_of_a_schema_this_version_reads() -> None:
    assert len(SCHEMA_1) >= 12, "the real nights written before the criteria column"
    assert sorted(SCHEMA_1 + SCHEMA_2) == COMMITTED


@pytest.mark.parametrize("runset", SCHEMA_2, ids=lambda p: str(p.relative_to(REPO)))
def test_committed_schema_2_run_sets_load_with_their_criteria(runset: Path) -> None:
    frame = store.read_runs(runset)
    judged = frame[frame["status"] != "harness_error"]
    assert len(judged) > 0
    assert all(criterion_outcomes(row) for row in judged.to_dict("records"))


@pytest.mark.parametrize("runset", SCHEMA_1, ids=lambda p: str(p.relative_to(REPO)))
def test_committed_schema_1_run_sets_load_with_criteria_unknown(runset: Path) -> None:
    frame = store.read_runs(runset)
    assert len(frame) > 0
    assert frame["criteria"].isna().all()
    assert all(criterion_outcomes(row) is None for row in frame.to_dict("records"))


def test_the_criteria_column_round_trips(tmp_path: Path) -> None:
    rows = [
        make_row("capital", 0, ["lookup_country", "get_weather"], "It is Sydney."),
        make_row("capital", 1, [], status="harness_error", with_trajectory=False),
    ]
    runset = write_runset(tmp_path / "rs", rows)
    frame = store.read_runs(runset)
    judged, harness = frame.to_dict("records")
    assert criterion_outcomes(judged) == (
        CriterionOutcome(
            criterion="tool_called: lookup_country", held=True, reason="", error=False
        ),
        CriterionOutcome(
            criterion="tool_not_called: get_weather",
            held=False,
            reason="get_weather called 1 times, expected none",
            error=False,
        ),
        CriterionOutcome(
            criterion='final_output_contains: "Canberra"',
            held=False,
            reason="final output does not contain 'Canberra' (it was 'It is Sydney.')",
            error=False,
        ),
    )
    assert criterion_outcomes(judged)[1].kind == "tool_not_called"  # type: ignore[index]
    assert criterion_outcomes(harness) is None
    # failed_criteria keeps its form: "<kind>: <reason>"
    assert list(judged["failed_criteria"]) == [
        "tool_not_called: get_weather called 1 times, expected none",
        "final_output_contains: final output does not contain 'Canberra' (it was 'It is Sydney.')",
    ]
    assert (
        pq.read_schema(runset / "runs.parquet").metadata[b"trajguard.store_schema_version"] == b"2"
    )


def test_a_crashed_run_keeps_the_criteria_it_was_judged_on(tmp_path: Path) -> None:
    row = make_row("capital", 0, ["lookup_country"], status="agent_error")
    runset = write_runset(tmp_path / "rs", [row])
    (read,) = store.read_runs(runset).to_dict("records")
    assert read["passed"] is False or not read["passed"]
    assert [o.held for o in criterion_outcomes(read) or ()] == [True, True, True]
    assert read["failed_criteria"][0].startswith("no crash: the run ended as agent_error")


def test_a_schema_1_file_mixed_with_schema_2_parts_reads_both(tmp_path: Path) -> None:
    """A batch resumed by this trajguard: runs.parquet of schema 1, new parts of schema 2."""
    runset = tmp_path / "rs"
    old = store.rows_to_table([make_row("capital", 0, ["lookup_country"])]).drop_columns(
        ["criteria"]
    )
    old = old.replace_schema_metadata({b"trajguard.store_schema_version": b"1"})
    runset.mkdir()
    pq.write_table(old, runset / "runs.parquet")
    store.write_run(runset, make_row("capital", 1, ["lookup_country"]))
    frame = store.read_runs(runset)
    outcomes = [criterion_outcomes(r) for r in frame.to_dict("records")]
    assert outcomes[0] is None and outcomes[1] is not None and len(outcomes[1]) == 3


def test_listing_reads_only_the_columns_it_needs(tmp_path: Path) -> None:
    runset = write_runset(tmp_path / "rs", [make_row("capital", 0, ["lookup_country"])])
    table = store.read_table(runset, columns=["scenario", "criteria"])
    assert table.column_names == ["run_id", "batch_id", "scenario", "criteria"]
    with pytest.raises(StoreError, match="no such run column"):
        store.read_table(runset, columns=["nope"])


def test_reading_some_runs_finds_them_in_any_row_group(tmp_path: Path) -> None:
    rows = [
        {
            "run_id": f"s/base/{i}",
            "batch_id": "b1",
            "suite": "demo",
            "scenario": "s",
            "variant": "base",
            "run_index": i,
            "model": "m",
            "status": "ok",
            "trajectory": f'{{"n": {i}}}',
        }
        for i in range(700)  # three row groups of at most 256 rows
    ]
    store.write_runs(tmp_path / "rs" / store.RUNS_FILE, rows)
    assert pq.ParquetFile(tmp_path / "rs" / store.RUNS_FILE).num_row_groups == 3
    wanted = ["s/base/699", "s/base/3", "s/base/300"]
    table = store.read_table(tmp_path / "rs", columns=["trajectory"], run_ids=wanted)
    assert sorted(table.to_pylist(), key=lambda r: r["run_id"]) == [
        {"run_id": f"s/base/{i}", "batch_id": "b1", "trajectory": f'{{"n": {i}}}'}
        for i in (3, 300, 699)
    ]
    assert store.read_table(tmp_path / "rs", run_ids=["nope"], columns=["scenario"]).num_rows == 0
