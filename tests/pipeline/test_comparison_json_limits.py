"""`trajguard report comparison.json` on a hostile document (issue 41): 200,000 levels deep, a
FIFO, over the size limit: exit 2 naming the file and the limit, no traceback."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from trajguard.cli import main


def _run(path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(["report", str(path), "--out", str(path.parent / "out"), "--no-plots"])
    return code, capsys.readouterr().err


def test_a_document_200000_levels_deep_exits_2(tmp_path: Path, capsys) -> None:
    source = tmp_path / "comparison.json"
    source.write_text('{"schema_version": 1, "x": ' + "[" * 200_000 + "]" * 200_000 + "}")
    code, err = _run(source, capsys)
    assert code == 2
    assert f"{source}: $: the document is nested more than 256 levels deep" in err
    assert "$TRAJGUARD_MAX_JSON_DEPTH" in err and "Traceback" not in err
    assert not (tmp_path / "out").exists()


def test_a_fifo_exits_2_without_waiting(tmp_path: Path, capsys) -> None:
    source = tmp_path / "comparison.json"
    os.mkfifo(source)
    code, err = _run(source, capsys)
    assert code == 2 and "is a FIFO (named pipe), not a regular file" in err


def test_a_document_over_the_size_limit_exits_2(
    tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = tmp_path / "comparison.json"
    source.write_text('{"schema_version": 1}' + " " * 5000)
    monkeypatch.setenv("TRAJGUARD_MAX_FILE_BYTES", "4096")
    code, err = _run(source, capsys)
    assert code == 2 and "more than the 4,096 trajguard reads" in err
