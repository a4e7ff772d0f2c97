"""A run set whose stored trajectory is no JSON, or 200,000 levels deep: `show --run`, `export`,
`diff`, the explanations and the HTML report answer it, none with a traceback, and `export`
writes nothing rather than part of the runs."""

from __future__ import annotations

from pathlib import Path

import pytest
from trajguard_testkit.runsets import make_row, write_runset

from trajguard.errors import StoreError
from trajguard.runs import diff_runs, export_runs, read_run, render_run
from trajguard.store import stored_trajectory

BROKEN = {
    "not-json": ("{not json", "is not readable JSON (Expecting property name"),
    "deep": ("[" * 200_000, "nested more than 256 levels deep"),
    "a-list": ("[1, 2]", "holds a JSON list, not an object"),
}


def _runset(tmp_path: Path, text: str) -> Path:
    rows = [make_row("capital", index, ["lookup_country"]) for index in range(3)]
    rows[2]["trajectory"] = text  # the last: earlier runs would be written first
    return write_runset(tmp_path / "rs", rows)


@pytest.mark.parametrize("kind", sorted(BROKEN))
def test_stored_trajectory_names_the_run_and_the_reason(kind: str, tmp_path: Path) -> None:
    text, reason = BROKEN[kind]
    with pytest.raises(StoreError) as caught:
        stored_trajectory(text, run_id="capital/base/2", runset=tmp_path)
    assert "the stored trajectory of run 'capital/base/2'" in str(caught.value)
    assert reason in str(caught.value)
    assert caught.value.file == str(tmp_path)
    assert caught.value.exit_code == 2


@pytest.mark.parametrize("kind", sorted(BROKEN))
def test_export_refuses_before_writing_any_file(kind: str, tmp_path: Path) -> None:
    runset = _runset(tmp_path, BROKEN[kind][0])
    out = tmp_path / "out"
    with pytest.raises(StoreError, match="the stored trajectory of run 'capital/base/2'"):
        export_runs(runset, out)
    assert not out.exists() or not any(out.iterdir())


@pytest.mark.parametrize("kind", sorted(BROKEN))
def test_show_run_shows_what_it_can(kind: str, tmp_path: Path) -> None:
    runset = _runset(tmp_path, BROKEN[kind][0])
    text = render_run(read_run(runset, "capital/base/2"))
    assert "run capital/base/2 · scenario capital" in text
    assert "steps: cannot be shown: the stored trajectory of run 'capital/base/2'" in text
    assert "final output:" in text


def test_diff_refuses_a_deep_stored_trajectory(tmp_path: Path) -> None:
    runset = _runset(tmp_path, BROKEN["deep"][0])
    with pytest.raises(StoreError, match="nested more than 256 levels deep"):
        diff_runs(f"{runset}:capital/base/0", f"{runset}:capital/base/2")
