"""promptfoo and Harbor files read within the limits (issue 41): 200,000 levels deep, over the
size limit, or not a regular file, each is refused naming the file and the limit, never with a
traceback, and a Harbor trial whose result.json is a FIFO is refused, not dropped."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from trajguard.errors import SourceLogError
from trajguard.importers import ImportOptions, read_logs

DATA = Path(__file__).parent / "data"
DEEP = b"[" * 200_000 + b"]" * 200_000


def _refusal(path: Path, kind: str) -> SourceLogError:
    with pytest.raises(SourceLogError) as caught:
        read_logs(kind, [path], ImportOptions())
    return caught.value


def test_a_promptfoo_file_200000_levels_deep_is_refused(tmp_path: Path) -> None:
    bad = tmp_path / "results.json"
    bad.write_bytes(b'{"evalId": "x", "results": ' + DEEP + b"}")
    error = _refusal(bad, "promptfoo")
    assert error.file == str(bad)
    assert error.message == (
        "not readable JSON: nested more than 256 levels deep (trajguard's limit; set "
        "$TRAJGUARD_MAX_JSON_DEPTH to raise it)"
    )


def test_a_promptfoo_file_over_the_size_limit_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TRAJGUARD_MAX_FILE_BYTES", "2000")
    error = _refusal(DATA / "promptfoo" / "variant_a.json", "promptfoo")
    assert "more than the 2,000 trajguard reads (its limit; set $TRAJGUARD_MAX_FILE_BYTES" in (
        error.message
    )


def _job(tmp_path: Path) -> tuple[Path, Path]:
    job = tmp_path / "terse"
    shutil.copytree(DATA / "harbor" / "terse", job)
    trial = sorted(p for p in job.iterdir() if p.is_dir() and "__" in p.name)[0]
    return job, trial


def test_a_harbor_trial_200000_levels_deep_is_refused(tmp_path: Path) -> None:
    job, trial = _job(tmp_path)
    (trial / "result.json").write_bytes(b'{"task_name": ' + DEEP + b"}")
    error = _refusal(job, "harbor")
    assert error.file == str(trial / "result.json")
    assert error.message == (
        "the file is nested more than 256 levels deep (trajguard's limit; set "
        "$TRAJGUARD_MAX_JSON_DEPTH to raise it)"
    )


def test_a_harbor_trial_whose_result_is_a_fifo_is_refused_not_dropped(tmp_path: Path) -> None:
    job, trial = _job(tmp_path)
    (trial / "result.json").unlink()
    os.mkfifo(trial / "result.json")
    error = _refusal(job, "harbor")
    assert error.file == str(trial / "result.json")
    assert error.message == "the file is a FIFO (named pipe), not a regular file"
    assert "regular files Harbor wrote" in (error.hint or "")
