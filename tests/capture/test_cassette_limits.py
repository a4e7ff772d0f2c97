"""A cassette is read bounded (issue 41): a FIFO is refused without blocking, a file over the
size limit from its size alone, one nested 200,000 levels deep by the depth limit; each is a
CassetteError (exit 2) naming the file and the limit."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from trajguard._json import MAX_DOCUMENT_BYTES
from trajguard.capture import Cassette
from trajguard.errors import CassetteError


def test_a_fifo_cassette_is_refused_without_blocking(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    os.mkfifo(path)
    with pytest.raises(CassetteError) as caught:
        Cassette.load(path)
    assert "is a FIFO (named pipe), not a regular file" in caught.value.message
    assert caught.value.file == str(path)
    assert caught.value.exit_code == 2


def test_a_cassette_over_the_size_limit_is_refused_from_its_size(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "c.json"
    with path.open("wb") as sparse:  # no disk used: the size alone is refused
        sparse.truncate(MAX_DOCUMENT_BYTES + 1)
    with pytest.raises(CassetteError) as caught:
        Cassette.load(path)
    assert f"more than the {MAX_DOCUMENT_BYTES:,} trajguard reads" in caught.value.message
    assert "$TRAJGUARD_MAX_FILE_BYTES" in caught.value.message
    monkeypatch.setenv("TRAJGUARD_MAX_FILE_BYTES", "1000")
    small = tmp_path / "small.json"
    small.write_text('{"format": "x"}' + " " * 1000, encoding="utf-8")
    with pytest.raises(CassetteError, match="more than the 1,000 trajguard reads"):
        Cassette.load(small)


def test_a_cassette_200000_levels_deep_is_refused_naming_the_limit(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    path.write_text('{"interactions": ' + "[" * 200_000, encoding="utf-8")
    with pytest.raises(CassetteError) as caught:
        Cassette.load(path)
    assert "nested more than 256 levels deep" in caught.value.message
    assert "$TRAJGUARD_MAX_JSON_DEPTH" in caught.value.message
    assert caught.value.hint is not None and "re-record" in caught.value.hint
