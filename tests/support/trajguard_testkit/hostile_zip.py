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


def zstd(data: bytes) -> bytes:
    import pyarrow as pa

    return bytes(pa.compress(data, codec="zstd", asbytes=True))


def write_zip(path: Path, members: list[Member]) -> Path:
    """A zip archive of zstd members, each header stating ``declared_size``."""
    body = bytearray()
    central = bytearray()
    for member in members:
        name = member.name.encode()
        packed = zstd(member.data)
        crc = zlib.crc32(member.data)
        size = len(member.data) if member.declared_size is None else member.declared_size
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
