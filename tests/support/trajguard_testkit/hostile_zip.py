"""Zip archives written byte by byte, so a member can lie: a zstd member (method 93, which the
standard library cannot write before Python 3.14) whose header declares any inflated size."""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass
from pathlib import Path

ZSTD = 93


@dataclass(frozen=True)
class Member:
    """One member: its name, its inflated bytes, and what its headers claim."""

    name: str
    data: bytes
    declared_size: int | None = None
    """The inflated size the headers state (default: the true one)."""
    padding: int = 0
    """Bytes of ``0`` inserted before the last byte of ``data``, compressed as a stream (a
    member inflating to gigabytes is made without holding them)."""


def zstd(data: bytes, padding: int = 0) -> tuple[bytes, int]:
    """``data`` with ``padding`` zeros before its last byte, zstd-compressed; and its CRC-32."""
    import pyarrow as pa

    sink = pa.BufferOutputStream()
    crc = zlib.crc32(data[:-1])
    with pa.CompressedOutputStream(sink, "zstd") as out:
        out.write(data[:-1])
        chunk = b"0" * (1 << 24)
        left = padding
        while left > 0:
            piece = chunk[: min(left, len(chunk))]
            out.write(piece)
            crc = zlib.crc32(piece, crc)
            left -= len(piece)
        out.write(data[-1:])
    return sink.getvalue().to_pybytes(), zlib.crc32(data[-1:], crc)


def write_zip(path: Path, members: list[Member]) -> Path:
    """A zip archive of zstd members, each header stating ``declared_size``."""
    body = bytearray()
    central = bytearray()
    for member in members:
        name = member.name.encode()
        packed, crc = zstd(member.data, member.padding)
        true_size = len(member.data) + member.padding
        size = true_size if member.declared_size is None else member.declared_size
        offset = len(body)
        body += struct.pack(
            "<4s2B4HL2L2H", b"PK\x03\x04", 63, 0, 0, ZSTD, 0, 0, crc, len(packed), size,
            len(name), 0,
        )  # fmt: skip
        body += name + packed
        central += struct.pack(
            "<4s4B4HL2L5H2L", b"PK\x01\x02", 63, 0, 63, 0, 0, ZSTD, 0, 0, crc, len(packed),
            size, len(name), 0, 0, 0, 0, 0, offset,
        )  # fmt: skip
        central += name
    end = struct.pack(
        "<4s4H2LH", b"PK\x05\x06", 0, 0, len(members), len(members), len(central), len(body), 0
    )
    path.write_bytes(bytes(body + central + end))
    return path


def deep_json(depth: int) -> bytes:
    """A JSON object ``depth`` levels deep under a key Inspect's samples have."""
    return b'{"id": "x", "epoch": 1, "input": ' + b"[" * depth + b"]" * depth + b"}"


def inspect_member(name: str) -> bytes:
    """A member of the committed Inspect log ``tests/importers/data/inspect/qa-a.eval``."""
    import zipfile

    from trajguard.importers._inspect_files import _member_bytes

    log = Path(__file__).resolve().parents[2] / "importers" / "data" / "inspect" / "qa-a.eval"
    with zipfile.ZipFile(log) as archive:
        return _member_bytes(archive, archive.getinfo(name), log)


def hostile_eval(path: Path, *, sample: str, declared_size: int | None = None) -> Path:
    """An ``.eval`` log: the committed log's header and one sample, ``sample`` being
    ``deep`` (200,000 levels), ``bomb`` (2 GiB of padding; headers say 900 bytes unless
    ``declared_size`` says otherwise), ``declares-4gib`` or ``honest``."""
    name = "samples/x_epoch_1.json"
    if sample == "deep":
        member = Member(name, deep_json(200_000))
    elif sample == "bomb":
        pad = b'{"id": "x", "pad": "0"}'
        member = Member(name, pad, declared_size=declared_size or 900, padding=2 << 30)
    elif sample == "declares-4gib":
        member = Member(name, b"{}", declared_size=0xFFFF_FFFE)
    else:
        name = "samples/capital_epoch_1.json"
        member = Member(name, inspect_member(name))
    return write_zip(path, [Member("header.json", inspect_member("header.json")), member])
