"""One bad file cannot block the store of nights: foreign files (a README, a CSV export, a
FIFO, Parquet outside the partitions) and unreadable nights (not Parquet, truncated, without a
night's columns) are skipped and named; every other night is read."""

from __future__ import annotations

import os
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from trajguard_testkit.nights import night

from trajguard.errors import StoreError
from trajguard.nights import list_night_files, open_location, read_store, record_night, trend


def _good(store: Path) -> None:
    for i in range(3):
        record_night(store, night(f"n{i}", date=f"2026-12-0{i + 1}", seed=i))


def _reasons(store: Path) -> dict[str, str]:
    read = read_store(open_location(store))
    root = store.as_posix() + "/"
    return {s.path.removeprefix(root): s.reason for s in read.skipped}


def test_foreign_files_are_skipped_and_named(tmp_path: Path) -> None:
    _good(tmp_path)
    (tmp_path / "README").write_text("nightly results, do not delete\n")
    (tmp_path / "suite=demo" / "export.csv").write_text("a,b\n1,2\n")
    (tmp_path / "loose.parquet").write_bytes(b"PAR1")
    os.mkfifo(tmp_path / "suite=demo" / "date=2026-12-01" / "pipe.parquet")
    reasons = _reasons(tmp_path)
    assert sorted(reasons) == [
        "README",
        "loose.parquet",
        "suite=demo/date=2026-12-01/pipe.parquet",
        "suite=demo/export.csv",
    ]
    assert reasons["README"].startswith("not a night's file (only suite=")
    assert reasons["suite=demo/date=2026-12-01/pipe.parquet"] == "not a regular file"
    rows = read_store(open_location(tmp_path)).rows
    assert sorted(set(rows["night_id"])) == ["n0", "n1", "n2"] and len(rows) == 6


def test_unreadable_nights_are_skipped_and_the_others_read(tmp_path: Path) -> None:
    _good(tmp_path)
    day = tmp_path / "suite=demo" / "date=2026-12-02"
    (day / "garbage.parquet").write_text("not parquet at all")
    good = (day / "n1.parquet").read_bytes()
    (day / "truncated.parquet").write_bytes(good[: len(good) // 2])
    pq.write_table(pa.table({"x": [1, 2]}), day / "foreign.parquet")
    reasons = _reasons(tmp_path)
    assert set(reasons) == {
        f"suite=demo/date=2026-12-02/{name}.parquet" for name in ("garbage", "truncated", "foreign")
    }
    assert reasons["suite=demo/date=2026-12-02/garbage.parquet"].startswith(
        "not a readable Parquet file ("
    )
    assert reasons["suite=demo/date=2026-12-02/foreign.parquet"] == (
        "a Parquet file without the columns of a night (night_id, passes, runs, scenario)"
    )
    rows = read_store(open_location(tmp_path)).rows
    assert sorted(set(rows["night_id"])) == ["n0", "n1", "n2"] and len(rows) == 6


def test_a_night_whose_pages_are_corrupt_is_skipped_alone(tmp_path: Path) -> None:
    _good(tmp_path)
    target = tmp_path / "suite=demo" / "date=2026-12-03" / "n2.parquet"
    data = bytearray(target.read_bytes())
    # the footer (and so the schema) stays readable; the column pages become noise
    for at in range(8, len(data) // 2):
        data[at] = (data[at] * 7 + 13) % 256
    target.write_bytes(bytes(data))
    read = read_store(open_location(tmp_path))
    assert sorted(set(read.rows["night_id"])) == ["n0", "n1"]
    assert [s.path for s in read.skipped] == [target.as_posix()]


def test_trend_counts_the_skipped_files_and_reads_the_rest(tmp_path: Path) -> None:
    _good(tmp_path)
    (tmp_path / "README.md").write_text("# store\n")
    (tmp_path / "suite=demo" / "date=2026-12-02" / "broken.parquet").write_text("x")
    facts = trend(tmp_path, simulations=99)
    assert facts.nights == 3
    assert [s.path.rsplit("/", 1)[-1] for s in facts.skipped] == ["README.md", "broken.parquet"]


def test_a_store_of_only_foreign_files_says_what_it_skipped(tmp_path: Path) -> None:
    (tmp_path / "README").write_text("x")
    with pytest.raises(StoreError, match="holds no nights") as caught:
        trend(tmp_path)
    assert any("README" in line for line in caught.value.details)


def test_files_in_flight_and_hidden_files_are_passed_over_silently(tmp_path: Path) -> None:
    _good(tmp_path)
    day = tmp_path / "suite=demo" / "date=2026-12-01"
    (day / ".tmp-n9-abc").write_bytes(b"half a night")
    (tmp_path / "_SUCCESS").write_text("")
    listing = list_night_files(open_location(tmp_path))
    assert listing.skipped == () and len(listing.files) == 3


def test_a_file_of_more_rows_than_the_limit_is_skipped_from_its_footer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _good(tmp_path)  # each night's file holds 2 rows
    monkeypatch.setenv("TRAJGUARD_MAX_RUN_ROWS", "1")
    reasons = _reasons(tmp_path)
    assert len(reasons) == 3
    assert all(
        reason == "a Parquet file of 2 rows, more than the 1 trajguard reads from one file "
        "(its limit; set $TRAJGUARD_MAX_RUN_ROWS to raise it)"
        for reason in reasons.values()
    )
    monkeypatch.setenv("TRAJGUARD_MAX_RUN_ROWS", "2")
    assert _reasons(tmp_path) == {}
