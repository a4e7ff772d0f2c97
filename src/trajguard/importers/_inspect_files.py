"""Inspect AI logs read by their documented format, without Inspect installed.

An ``.eval`` log is a zip archive of JSON members: ``header.json`` (the eval's spec, plan,
results and stats; ``_journal/start.json`` holds spec and plan while the eval still runs) and
one ``samples/<id>_epoch_<n>.json`` per sample and epoch. Inspect compresses members with
zstandard (zip method 93), which the standard library cannot read before Python 3.14: those
are inflated here with pyarrow's zstd codec. A ``.json`` log is one JSON object with the same
fields and a ``samples`` list. Samples are read one at a time, so a large log is never held
whole in memory.
"""

from __future__ import annotations

import json
import struct
import zipfile
import zlib
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import IO, Any

from trajguard.errors import SourceLogError
from trajguard.importers._inspect_log import SAMPLE_SKIP, InspectLog, check_header

__all__ = ["open_log"]

_ZSTD = 93
_HEADER = "header.json"
_START = "_journal/start.json"
_SAMPLES = "samples/"


def open_log(path: Path) -> InspectLog:
    """The header of the log at ``path`` and a reader of its samples.

    Raises:
        SourceLogError: not an Inspect log, or a member that is not JSON.
    """
    if path.suffix == ".json":
        return _json_log(path)
    return _eval_log(path)


def _eval_log(path: Path) -> InspectLog:
    try:
        with zipfile.ZipFile(path) as archive:
            names = set(archive.namelist())
            member = _HEADER if _HEADER in names else _START if _START in names else None
            if member is None:
                raise SourceLogError(
                    "an .eval log without header.json or _journal/start.json",
                    file=path,
                    hint="import a log written by `inspect eval` (it may be from another tool)",
                )
            header = _member_json(archive, archive.getinfo(member), path)
            samples = sorted(n for n in names if n.startswith(_SAMPLES) and n.endswith(".json"))
    except (zipfile.BadZipFile, OSError) as exc:
        raise SourceLogError(
            f"not a readable .eval log (a zip archive): {exc}",
            file=path,
            hint="the file may be truncated; re-run the eval or import its .json log",
        ) from None
    if member == _START:
        header = {**header, "status": "started"}
    return InspectLog(
        file=path, header=check_header(header, path), samples=lambda: _eval_samples(path, samples)
    )


def _eval_samples(path: Path, names: list[str]) -> Iterator[tuple[str, Mapping[str, Any]]]:
    try:
        with zipfile.ZipFile(path) as archive:
            for name in names:
                yield name, _member_json(archive, archive.getinfo(name), path)
    except (zipfile.BadZipFile, OSError) as exc:
        raise SourceLogError(f"cannot read the .eval log: {exc}", file=path) from None


def _member_json(archive: zipfile.ZipFile, info: zipfile.ZipInfo, path: Path) -> dict[str, Any]:
    data = _member_bytes(archive, info, path)
    try:
        value = json.loads(data)
    except (ValueError, UnicodeDecodeError) as exc:
        raise SourceLogError(
            f"member {info.filename} is not JSON: {exc}",
            file=path,
            hint="the log may be truncated or damaged",
        ) from None
    if not isinstance(value, dict):
        raise SourceLogError(f"member {info.filename} is not a JSON object", file=path)
    for key in SAMPLE_SKIP:
        value.pop(key, None)
    return value


def _member_bytes(archive: zipfile.ZipFile, info: zipfile.ZipInfo, path: Path) -> bytes:
    try:
        if info.compress_type != _ZSTD:
            return archive.read(info)
        return _zstd_member(archive, info, path)
    except (zipfile.BadZipFile, EOFError, zlib.error, NotImplementedError, struct.error) as exc:
        raise SourceLogError(
            f"member {info.filename} cannot be read: {exc}",
            file=path,
            hint="the log may be truncated or damaged",
        ) from None


_LOCAL_HEADER = struct.Struct("<4s2B4HL2L2H")  # a zip local file header (APPNOTE 4.3.7)
_LOCAL_SIGNATURE = b"PK\x03\x04"


def _zstd_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo, path: Path) -> bytes:
    fp: IO[bytes] = archive.fp  # type: ignore[assignment]
    fp.seek(info.header_offset)
    fields = _LOCAL_HEADER.unpack(fp.read(_LOCAL_HEADER.size))
    if fields[0] != _LOCAL_SIGNATURE:
        raise zipfile.BadZipFile(f"bad local header for {info.filename}")
    fp.seek(fields[10] + fields[11], 1)  # the name and the extra field
    raw = fp.read(info.compress_size)
    data = _zstd_decompress(raw, info.file_size)
    if zlib.crc32(data) != info.CRC:
        raise zipfile.BadZipFile(f"bad CRC-32 for {info.filename}")
    return data


def _zstd_decompress(raw: bytes, size: int) -> bytes:
    import pyarrow as pa

    try:
        return bytes(pa.decompress(raw, decompressed_size=size, codec="zstd"))
    except (OSError, pa.ArrowException) as exc:
        raise zipfile.BadZipFile(f"zstd: {exc}") from None


def _json_log(path: Path) -> InspectLog:
    try:
        with path.open("rb") as handle:
            data = json.load(handle)
    except OSError as exc:
        raise SourceLogError(f"cannot read the log: {exc}", file=path) from None
    except (ValueError, UnicodeDecodeError) as exc:
        line = getattr(exc, "lineno", None)
        raise SourceLogError(
            f"not JSON: {exc}", file=path, line=line, hint="the log may be truncated"
        ) from None
    if not isinstance(data, dict):
        raise SourceLogError("not an Inspect log (a JSON object)", file=path)
    samples = data.pop("samples", None) or []
    if not isinstance(samples, list):
        raise SourceLogError("samples is not a list", file=path, path="$.samples")

    def each() -> Iterator[tuple[str, Mapping[str, Any]]]:
        for index, sample in enumerate(samples):
            if not isinstance(sample, dict):
                raise SourceLogError(
                    "a sample is not an object", file=path, path=f"$.samples[{index}]"
                )
            for key in SAMPLE_SKIP:
                sample.pop(key, None)
            yield f"$.samples[{index}]", sample

    return InspectLog(file=path, header=check_header(data, path), samples=each)
