"""Hostile Inspect logs are refused within the limits, by either reader: a zstd member that
declares 4 GiB, one that inflates past the limit while declaring little, a sample 200,000
levels deep (in an .eval member and in a .json log), a FIFO. Each refusal names the file, the
limit and the variable that raises it; none inflates more than the limit."""

from __future__ import annotations

import os
import zipfile
from pathlib import Path

import pytest
from trajguard_testkit.hostile_zip import Member, deep_json, write_zip

from trajguard.errors import SourceLogError
from trajguard.importers import ImportOptions
from trajguard.importers._inspect import read
from trajguard.importers._inspect_files import _member_bytes

DATA = Path(__file__).parent / "data" / "inspect"
LOG_A = DATA / "qa-a.eval"
READERS = ["inspect", "builtin"]


def _member(name: str) -> bytes:
    with zipfile.ZipFile(LOG_A) as archive:
        return _member_bytes(archive, archive.getinfo(name), LOG_A)


def _log(tmp_path: Path, sample: Member) -> Path:
    return write_zip(
        tmp_path / "hostile.eval", [Member("header.json", _member("header.json")), sample]
    )


def _refusal(path: Path, reader: str) -> SourceLogError:
    with pytest.raises(SourceLogError) as caught:
        read([path], ImportOptions(), reader=reader)
    assert caught.value.file == str(path)
    return caught.value


def test_the_handmade_archive_reads_when_honest(tmp_path: Path) -> None:
    log = _log(
        tmp_path, Member("samples/capital_epoch_1.json", _member("samples/capital_epoch_1.json"))
    )
    for reader in READERS:
        assert [r.scenario for r in read([log], ImportOptions(), reader=reader).runs] == ["capital"]


@pytest.mark.parametrize("reader", READERS)
def test_a_member_declaring_4_gib_is_refused_before_inflating(tmp_path: Path, reader: str) -> None:
    sample = Member("samples/x_epoch_1.json", b"{}", declared_size=0xFFFF_FFFE)
    error = _refusal(_log(tmp_path, sample), reader)
    assert error.message == (
        "member samples/x_epoch_1.json: declares 4,294,967,294 bytes inflated, more than the "
        "268,435,456 trajguard inflates (its limit; set $TRAJGUARD_MAX_INFLATED_BYTES to raise it)"
    )


@pytest.mark.parametrize("reader", READERS)
def test_a_member_inflating_past_the_limit_is_cut_off(
    tmp_path: Path, reader: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TRAJGUARD_MAX_INFLATED_BYTES", "1000000")
    bomb = b'{"id": "x", "pad": "' + b"0" * 3_000_000 + b'"}'
    error = _refusal(
        _log(tmp_path, Member("samples/x_epoch_1.json", bomb, declared_size=900)), reader
    )
    assert error.message == (
        "member samples/x_epoch_1.json: it holds more bytes, more than the 1,000,000 trajguard "
        "reads (its limit; set $TRAJGUARD_MAX_INFLATED_BYTES to raise it)"
    )


@pytest.mark.parametrize("reader", READERS)
def test_a_sample_200000_levels_deep_is_refused(tmp_path: Path, reader: str) -> None:
    error = _refusal(_log(tmp_path, Member("samples/x_epoch_1.json", deep_json(200_000))), reader)
    assert error.message == (
        "member samples/x_epoch_1.json is nested more than 256 levels deep (trajguard's limit; "
        "set $TRAJGUARD_MAX_JSON_DEPTH to raise it)"
    )


@pytest.mark.parametrize("reader", READERS)
def test_a_json_log_200000_levels_deep_is_refused(tmp_path: Path, reader: str) -> None:
    log = tmp_path / "deep.json"
    log.write_bytes(b'{"version": 2, "eval": {"task": ' + b"[" * 200_000 + b"]" * 200_000 + b"}}")
    error = _refusal(log, reader)
    assert error.message.startswith("the log is nested more than 256 levels deep")
    assert "$TRAJGUARD_MAX_JSON_DEPTH" in error.message


def test_the_depth_limit_can_be_raised(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sample = _member("samples/capital_epoch_1.json")
    monkeypatch.setenv("TRAJGUARD_MAX_JSON_DEPTH", "3")
    log = _log(tmp_path, Member("samples/capital_epoch_1.json", sample))
    assert "more than 3 levels deep" in _refusal(log, "builtin").message
    monkeypatch.setenv("TRAJGUARD_MAX_JSON_DEPTH", "400")
    assert len(read([log], ImportOptions(), reader="builtin").runs) == 1


@pytest.mark.parametrize("reader", READERS)
def test_a_fifo_named_like_a_log_is_refused(tmp_path: Path, reader: str) -> None:
    fifo = tmp_path / "pipe.eval"
    os.mkfifo(fifo)
    error = _refusal(fifo, reader)
    assert error.message == "the log is not a regular file (a FIFO, a device or a socket)"


def test_a_log_over_the_file_limit_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TRAJGUARD_MAX_FILE_BYTES", "1000")
    error = _refusal(DATA / "qa-a.json", "builtin")
    assert "more than the 1,000 trajguard reads" in error.message
    assert "$TRAJGUARD_MAX_FILE_BYTES" in error.message
