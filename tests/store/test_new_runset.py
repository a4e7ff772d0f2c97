"""Where a new run set cannot be made is found before anything runs, by `run` and by
`run --dry-run` alike: the permission bits do not tell for root, a read-only mount or /proc, so
an empty directory is made and removed where the run set would go."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

from trajguard import store
from trajguard.cli import main
from trajguard.errors import StoreError

SUITE = "name: d\nscenarios:\n  - id: a\n    input: hi\n    agent: {kind: builtin}\n"
PROC = Path("/proc")


@pytest.mark.skipif(not PROC.is_dir(), reason="no /proc on this system (Linux has one)")
def test_a_directory_no_one_can_write_is_refused_even_for_root() -> None:
    with pytest.raises(StoreError) as caught:
        store.check_new_runset(PROC / "rs")
    assert "cannot create the run set: /proc is not writable" in str(caught.value)
    assert caught.value.hint == "pass an --out directory you can write to"


def test_a_failed_probe_is_refused_and_a_good_one_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store.check_new_runset(tmp_path / "a" / "rs")
    assert list(tmp_path.iterdir()) == []  # the probe is gone, nothing made

    def read_only(**_: object) -> str:
        raise OSError(30, "Read-only file system")

    monkeypatch.setattr(tempfile, "mkdtemp", read_only)
    with pytest.raises(StoreError, match=r"is not writable \(Read-only file system\)"):
        store.check_new_runset(tmp_path / "rs")


@pytest.mark.skipif(not PROC.is_dir(), reason="no /proc on this system (Linux has one)")
def test_dry_run_refuses_an_unwritable_out_as_the_run_would(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s.yaml").write_text(SUITE, encoding="utf-8")
    assert main(["run", "s.yaml", "--dry-run", "--out", "/proc/rs"]) == 2
    captured = capsys.readouterr()
    assert "/proc/rs: cannot create the run set: /proc is not writable" in captured.err
    assert "dry run:" not in captured.out
    assert "Traceback" not in captured.err
    assert sorted(os.listdir(tmp_path)) == ["s.yaml"]
