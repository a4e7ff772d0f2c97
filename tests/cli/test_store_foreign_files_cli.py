"""A store of nights with a stray file and a corrupt night: `trend` and `compare --store` work,
warn, and name the files; a night that cannot be appended still gets its report."""

from __future__ import annotations

import json
from pathlib import Path

from trajguard_testkit.nights import night

from trajguard.nights import open_location, read_nights, record_night

REPO = Path(__file__).resolve().parents[2]
NIGHTS = REPO / "benchmarks" / "data" / "real-nights-2026-12-01"


def _hostile_store(path: Path) -> Path:
    for i in range(4):
        record_night(path, night(f"n{i}", date=f"2026-11-0{i + 1}", seed=i))
    (path / "README").write_text("the nightly store; ask #evals before deleting\n")
    (path / "suite=demo" / "date=2026-11-02" / "corrupt.parquet").write_bytes(b"PAR1 oops")
    return path


def test_trend_reads_around_a_stray_file_and_a_corrupt_night(tmp_path: Path, cli) -> None:
    store = _hostile_store(tmp_path / "store")
    result = cli("trend", str(store), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "# Trend (4 nights of suite demo" in result.stdout
    warnings = [line for line in result.stderr.splitlines() if "warning" in line]
    assert len(warnings) == 2
    assert f"skipped {(store / 'README').as_posix()} in the store of nights" in warnings[0]
    assert "corrupt.parquet in the store of nights: not a readable Parquet file" in warnings[1]
    assert "Traceback" not in result.stderr


def test_trend_json_counts_the_skipped_files(tmp_path: Path, cli) -> None:
    store = _hostile_store(tmp_path / "store")
    result = cli("trend", str(store), "--json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["nights"] == 4
    assert [Path(s["path"]).name for s in data["skipped"]] == ["README", "corrupt.parquet"]
    assert data["skipped"][0]["reason"].startswith("not a night's file")


def test_compare_store_writes_its_report_and_appends_beside_the_bad_files(
    tmp_path: Path, cli
) -> None:
    store = _hostile_store(tmp_path / "store")
    report = tmp_path / "r" / "report.md"
    result = cli(
        "compare",
        str(NIGHTS / "baseline"),
        str(NIGHTS / "unedited-seed1"),
        "--store",
        str(store),
        "--night-date",
        "2026-11-05",
        "--report",
        str(report),
        "--no-plots",
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    assert "## Trend (5 nights of suite demo" in report.read_text()
    assert result.stderr.count("trajguard: warning: skipped ") == 2
    assert "corrupt.parquet" in result.stderr and "README" in result.stderr
    document = json.loads((report.parent / "comparison.json").read_text())
    assert len(document["trend"]["skipped"]) == 2
    assert len(read_nights(open_location(store)).drop_duplicates("night_id")) == 5


def test_a_night_that_cannot_be_appended_still_gets_its_report(tmp_path: Path, cli) -> None:
    store = tmp_path / "store"
    store.mkdir()
    # the suite's partition is a file: the read skips it, the append cannot make the folder
    (store / "suite=demo").write_text("in the way\n")
    report = tmp_path / "r" / "report.md"
    result = cli(
        "compare",
        str(NIGHTS / "baseline"),
        str(NIGHTS / "unedited-seed1"),
        "--store",
        str(store),
        "--report",
        str(report),
        "--no-plots",
        cwd=tmp_path,
    )
    assert result.returncode == 2
    assert report.is_file() and (report.parent / "comparison.json").is_file()
    assert f"the report is written ({report}), but the night was not appended" in result.stderr
    assert "run the same command again" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_store_whose_trend_cannot_be_read_still_gets_the_report(tmp_path: Path, cli) -> None:
    store = tmp_path / "store"
    record_night(store, night("new", date="2026-11-01"))
    (file,) = store.rglob("*.parquet")
    import pyarrow.parquet as pq

    table = pq.read_table(file)
    pq.write_table(table.set_column(0, "schema_version", [[99] * len(table)]), file)
    report = tmp_path / "r" / "report.md"
    result = cli(
        "compare",
        str(NIGHTS / "baseline"),
        str(NIGHTS / "unedited-seed1"),
        "--store",
        str(store),
        "--report",
        str(report),
        "--no-plots",
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    assert "## Trend" not in report.read_text()
    assert "warning: the report has no trend section:" in result.stderr
    assert "upgrade trajguard" in result.stderr
