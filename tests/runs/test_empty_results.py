"""Empty results are said: a run set with no runs, filters that match none (issue 41: `show` of
a run set with 0 runs, `export` writing "0 ATIF files" and exiting 0)."""

from __future__ import annotations

from pathlib import Path

import pytest
from trajguard_testkit.runsets import write_runset

from trajguard.errors import StoreError, UsageError
from trajguard.runs import RunFilter, export_runs


def test_export_of_a_run_set_without_runs_is_refused_and_writes_nothing(tmp_path: Path) -> None:
    empty = write_runset(tmp_path / "rs", [])
    with pytest.raises(StoreError) as caught:
        export_runs(empty, tmp_path / "out")
    assert caught.value.message == "the run set holds no runs: nothing to export"
    assert not (tmp_path / "out").exists()


def test_export_whose_filters_match_no_run_is_refused(small_runset: Path, tmp_path: Path) -> None:
    with pytest.raises(UsageError) as caught:
        export_runs(small_runset, tmp_path / "out", RunFilter(scenario="greeting", variant="base"))
    assert caught.value.message == (
        "no run of the run set matches the filters given: nothing to export"
    )
    assert f"trajguard runs {small_runset}" in (caught.value.hint or "")
    assert not (tmp_path / "out").exists()


def test_the_cli_says_a_run_set_is_empty(tmp_path: Path, cli) -> None:
    empty = write_runset(tmp_path / "rs", [])
    listed = cli("runs", str(empty), cwd=tmp_path)
    assert (listed.returncode, listed.stderr.strip()) == (0, "the run set holds no runs")
    shown = cli("show", str(empty), cwd=tmp_path)
    assert shown.returncode == 0
    assert "holds no runs" in shown.stderr
    assert "nothing to summarise" in shown.stderr
    exported = cli("export", str(empty), "--out", str(tmp_path / "o"), cwd=tmp_path)
    assert exported.returncode == 2
    assert "the run set holds no runs: nothing to export" in exported.stderr
    assert "ATIF files written" not in exported.stdout
