"""trajguard.golden: unreadable golden files, with and without --golden-update."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import pytest

from trajguard._json import MAX_DOCUMENT_BYTES
from trajguard.core.normalize import normalize
from trajguard.errors import GoldenError
from trajguard.golden import check_golden, golden_text


def _run() -> dict[str, Any]:
    return normalize(
        {
            "schema_version": "ATIF-v1.7",
            "agent": {"name": "a", "version": "1"},
            "steps": [{"step_id": 1, "source": "agent", "message": "done"}],
        }
    )


CONFLICT = b'<<<<<<< HEAD\n{"steps": []}\n=======\n{"steps": [{}]}\n>>>>>>> other\n'
BAD_GOLDENS = [
    pytest.param(CONFLICT, "golden file is not valid JSON", id="merge-conflict"),
    pytest.param(b"[1, 2]", "golden file does not hold a JSON object", id="not-an-object"),
    pytest.param(b'{"steps": 5}', "golden file does not hold a trajectory", id="steps-int"),
    pytest.param(b'{"steps": [5]}', "golden file does not hold a trajectory", id="step-int"),
    pytest.param(
        b'{"steps": [{"observation": {"results": 3}}]}',
        "golden file does not hold a valid trajectory (TypeError",
        id="results-int",
    ),
    pytest.param(
        b'{"steps": [{"source": "agent", "metrics": {"prompt_tokens": "x"}}]}',
        "golden file does not hold a valid trajectory (ValueError",
        id="tokens-text",
    ),
    pytest.param(b"\xff\xfe", "golden file is not UTF-8 text", id="not-utf8"),
]


@pytest.mark.parametrize(("content", "message"), BAD_GOLDENS)
def test_bad_golden_is_a_golden_error_naming_the_file(
    tmp_path: Path, content: bytes, message: str
) -> None:
    path = tmp_path / "test_x.json"
    path.write_bytes(content)
    with pytest.raises(GoldenError, match="--golden-update") as caught:
        check_golden(path, _run())
    assert caught.value.file == str(path)
    assert message in caught.value.message
    assert path.read_bytes() == content, "a normal run never writes"


@pytest.mark.parametrize(("content", "message"), BAD_GOLDENS)
def test_update_replaces_a_bad_golden(tmp_path: Path, content: bytes, message: str) -> None:
    path = tmp_path / "test_x.json"
    path.write_bytes(content)
    result = check_golden(path, _run(), update=True)
    assert result.status == "updated"
    assert result.passed
    assert result.replaced_error is not None
    assert message in result.replaced_error
    assert path.read_text() == golden_text(_run())
    assert check_golden(path, _run()).status == "match"


def test_golden_that_cannot_be_read_or_written_is_a_golden_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # An unreadable path (here a directory) is not replaced, even with update.
    directory = tmp_path / "test_x.json"
    directory.mkdir()
    with pytest.raises(GoldenError, match="cannot read golden file"):
        check_golden(directory, _run(), update=True)
    assert directory.is_dir()

    def disk_full(src: str, dst: Path) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("trajguard._files.os.replace", disk_full)
    path = tmp_path / "golden" / "test_y.json"
    with pytest.raises(GoldenError, match=r"cannot write golden file: .*No space left") as caught:
        check_golden(path, _run(), update=True)
    assert caught.value.file == str(path)
    assert not path.exists()


# --- bounded: regular files only, so large, so deep (issue 41) --------------------------------


def test_a_fifo_golden_is_refused_without_blocking_and_not_replaced(tmp_path: Path) -> None:
    path = tmp_path / "test_x.json"
    os.mkfifo(path)
    for update in (False, True):
        with pytest.raises(GoldenError, match=r"is a FIFO \(named pipe\), not a regular file"):
            check_golden(path, _run(), update=update)
    assert stat.S_ISFIFO(os.stat(path).st_mode)


def test_a_golden_over_the_size_limit_is_refused_from_its_size(tmp_path: Path) -> None:
    path = tmp_path / "test_x.json"
    with path.open("wb") as sparse:  # no disk used: the size alone is refused
        sparse.truncate(MAX_DOCUMENT_BYTES + 1)
    with pytest.raises(GoldenError) as caught:
        check_golden(path, _run())
    assert f"more than the {MAX_DOCUMENT_BYTES:,} trajguard reads" in caught.value.message
    assert "$TRAJGUARD_MAX_FILE_BYTES" in caught.value.message


def test_a_golden_200000_levels_deep_is_refused_naming_the_limit(tmp_path: Path) -> None:
    path = tmp_path / "test_x.json"
    path.write_text('{"steps": ' + "[" * 200_000, encoding="utf-8")
    with pytest.raises(GoldenError, match="--golden-update") as caught:
        check_golden(path, _run())
    assert "nested more than 256 levels deep" in caught.value.message
    assert check_golden(path, _run(), update=True).status == "updated"  # it can be replaced
