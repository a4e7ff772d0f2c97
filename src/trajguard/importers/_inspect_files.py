"""Inspect AI logs read by their documented format, without Inspect installed.

An ``.eval`` log is a zip archive of JSON members: ``header.json`` (the eval's spec, plan,
results and stats; ``_journal/start.json`` holds spec and plan while the eval still runs) and
one ``samples/<id>_epoch_<n>.json`` per sample and epoch. Inspect compresses members with
zstandard (zip method 93), which the standard library cannot read before Python 3.14: those
are inflated here with pyarrow's zstd codec. A ``.json`` log is one JSON object with the same
fields and a ``samples`` list. Samples are read one at a time, so a large log is never held
whole in memory.

Every read is bounded (``docs/reference/import-inspect.md``, "Limits"): the log is a regular
file of at most :data:`~trajguard._json.MAX_DOCUMENT_BYTES` (``.eval``) or
:data:`~trajguard._json.MAX_SOURCE_BYTES` (``.json``); a member inflates to at most
:data:`~trajguard._json.MAX_INFLATED_BYTES`, whatever its header declares (checked before and
while inflating); JSON nests at most :data:`~trajguard._json.MAX_JSON_DEPTH` levels.
"""

from __future__ import annotations

import struct
import zipfile
import zlib
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import IO, Any

from trajguard._json import (
    MAX_DOCUMENT_BYTES,
    MAX_SOURCE_BYTES,
    FileKindError,
    JSONLimitError,
    check_regular_file,
    file_limit,
    inflated_limit,
    loads_bounded,
    read_regular_bytes,
    read_stream_bounded,
)
from trajguard.errors import SourceLogError
from trajguard.importers._inspect_log import InspectLog, check_header, check_version, slim_sample

__all__ = ["open_log", "preflight"]

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


def preflight(path: Path) -> None:
    """Read every JSON part of the log within the limits and let it go (its fields are not
    checked): what Inspect's own reader, which has no limits, is then given cannot exhaust
    memory, time or the stack.

    Raises:
        SourceLogError: a part is over a limit, not a regular file, or not JSON.
    """
    if path.suffix == ".json":
        document = _json_document(path)
        if isinstance(document, Mapping):
            check_version(document, path)
        return
    _check_archive(path)
    try:
        with zipfile.ZipFile(path) as archive:
            for info in archive.infolist():
                if info.filename.endswith(".json"):  # an object, or a list (summaries)
                    member = _member_json(archive, info, path, objects_only=False)
                    if info.filename == _HEADER:
                        check_version(member, path)
    except (zipfile.BadZipFile, OSError) as exc:
        raise SourceLogError(
            f"not a readable Inspect .eval log (a zip archive): {exc}",
            file=path,
            hint="the file may be truncated or not an Inspect log; re-run the eval or import "
            "its .json log",
        ) from None


def _check_archive(path: Path) -> None:
    try:
        check_regular_file(path, max_bytes=file_limit(MAX_DOCUMENT_BYTES))
    except FileKindError as exc:
        raise _too_much(path, exc) from None


def _too_much(path: Path, exc: OSError, member: str | None = None) -> SourceLogError:
    where = f"member {member}: " if member else ""
    message = str(exc).replace(str(path), "the log")
    return SourceLogError(
        f"{where}{message}",
        file=path,
        hint="a log this large is no Inspect log trajguard expects; if it is one, raise the "
        "limit as the message says"
        if "limit" in message
        else "pass the log file Inspect wrote",
    )


def _eval_log(path: Path) -> InspectLog:
    _check_archive(path)
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
            f"not a readable Inspect .eval log (a zip archive): {exc}",
            file=path,
            hint="the file may be truncated or not an Inspect log; re-run the eval or import "
            "its .json log",
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
                yield name, slim_sample(_member_json(archive, archive.getinfo(name), path))
    except (zipfile.BadZipFile, OSError) as exc:
        raise SourceLogError(f"cannot read the .eval log: {exc}", file=path) from None


def _member_json(
    archive: zipfile.ZipFile, info: zipfile.ZipInfo, path: Path, *, objects_only: bool = True
) -> dict[str, Any]:
    data = _member_bytes(archive, info, path)
    try:
        value = loads_bounded(data)
    except JSONLimitError as exc:
        raise SourceLogError(
            f"member {info.filename} is {exc}",
            file=path,
            hint="no sample Inspect writes nests that deep; if this one does, raise the limit",
        ) from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise SourceLogError(
            f"member {info.filename} is not JSON: {exc}",
            file=path,
            hint="the log may be truncated or damaged",
        ) from None
    if not isinstance(value, dict):
        if not objects_only:
            return {}
        raise SourceLogError(f"member {info.filename} is not a JSON object", file=path)
    return value


def _member_bytes(archive: zipfile.ZipFile, info: zipfile.ZipInfo, path: Path) -> bytes:
    limit = inflated_limit()
    try:
        if info.file_size > limit:
            raise FileKindError(
                f"declares {info.file_size:,} bytes inflated, more than the {limit:,} trajguard "
                "inflates (its limit; set $TRAJGUARD_MAX_INFLATED_BYTES to raise it)"
            )
        if info.compress_type != _ZSTD:
            with archive.open(info) as member:
                return read_stream_bounded(member.read, what="it", max_bytes=limit)
        return _zstd_member(archive, info, limit)
    except FileKindError as exc:
        raise _too_much(path, exc, info.filename) from None
    except (zipfile.BadZipFile, EOFError, zlib.error, NotImplementedError, struct.error) as exc:
        raise SourceLogError(
            f"member {info.filename} cannot be read: {exc}",
            file=path,
            hint="the log may be truncated or damaged",
        ) from None


_LOCAL_HEADER = struct.Struct("<4s2B4HL2L2H")  # a zip local file header (APPNOTE 4.3.7)
_LOCAL_SIGNATURE = b"PK\x03\x04"


def _zstd_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo, limit: int) -> bytes:
    fp: IO[bytes] = archive.fp  # type: ignore[assignment]
    fp.seek(info.header_offset)
    fields = _LOCAL_HEADER.unpack(fp.read(_LOCAL_HEADER.size))
    if fields[0] != _LOCAL_SIGNATURE:
        raise zipfile.BadZipFile(f"bad local header for {info.filename}")
    fp.seek(fields[10] + fields[11], 1)  # the name and the extra field
    raw = fp.read(info.compress_size)
    data = _zstd_decompress(raw, limit)
    if len(data) != info.file_size:
        raise zipfile.BadZipFile(
            f"{info.filename} inflates to {len(data):,} bytes, its header says {info.file_size:,}"
        )
    if zlib.crc32(data) != info.CRC:
        raise zipfile.BadZipFile(f"bad CRC-32 for {info.filename}")
    return data


def _zstd_decompress(raw: bytes, limit: int) -> bytes:
    """The zstd frame ``raw`` inflated as a stream, refused past ``limit`` bytes (a frame's
    declared size is never trusted: it is the attacker's to choose)."""
    import pyarrow as pa

    try:
        with pa.CompressedInputStream(pa.BufferReader(raw), "zstd") as stream:
            return read_stream_bounded(stream.read, what="it", max_bytes=limit)
    except FileKindError:
        raise
    except (OSError, pa.ArrowException) as exc:
        raise zipfile.BadZipFile(f"zstd: {exc}") from None


def _json_document(path: Path) -> Any:
    try:
        return loads_bounded(read_regular_bytes(path, max_bytes=MAX_SOURCE_BYTES))
    except FileKindError as exc:
        raise _too_much(path, exc) from None
    except OSError as exc:
        raise SourceLogError(f"cannot read the log: {exc}", file=path) from None
    except JSONLimitError as exc:
        raise SourceLogError(
            f"the log is {exc}",
            file=path,
            hint="no log Inspect writes nests that deep; if this one does, raise the limit",
        ) from None
    except (ValueError, UnicodeDecodeError) as exc:
        line = getattr(exc, "lineno", None)
        raise SourceLogError(
            f"not JSON: {exc}", file=path, line=line, hint="the log may be truncated"
        ) from None


def _json_log(path: Path) -> InspectLog:
    data = _json_document(path)
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
            yield f"$.samples[{index}]", slim_sample(sample)

    return InspectLog(file=path, header=check_header(data, path), samples=each)
