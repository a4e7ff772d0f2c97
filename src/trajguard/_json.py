"""JSON read from disk, bounded: only a regular file, at most so many bytes, so many levels deep.

A run set, a cassette or a golden file is read from a directory anybody may have written to. A
``manifest.json`` that is a FIFO would block the reader forever, one that is a device would never
end, and 10,000 nested brackets make :func:`json.loads` raise ``RecursionError`` (or, under the
limit, make whatever walks the document next raise it). :func:`read_json` refuses each of them
with an :class:`OSError` or a :class:`ValueError` that says which, so a caller's existing
``except (OSError, ValueError)`` turns it into its own error naming the file.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

__all__ = [
    "MAX_DOCUMENT_BYTES",
    "MAX_JSON_BYTES",
    "MAX_JSON_DEPTH",
    "FileKindError",
    "JSONLimitError",
    "check_regular_file",
    "loads_bounded",
    "read_json",
    "read_regular_bytes",
]

MAX_JSON_DEPTH = 256
"""Deepest nesting (objects and arrays) of a JSON document trajguard reads from disk: beyond
anything it writes (a manifest is 3 levels deep; a trajectory may be 200, and a golden or a
cassette holding one a few more), and far below what would exhaust Python's recursion limit in
the code that walks it."""

MAX_JSON_BYTES = 64 * 1024 * 1024
"""Largest JSON file read by default (a manifest, a journal line, a small document)."""

MAX_DOCUMENT_BYTES = 1024 * 1024 * 1024
"""Largest golden file, cassette or trajectory read (1 GiB: its tool outputs may be large)."""

_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


class FileKindError(OSError):
    """The path is not a regular file (a FIFO, a device, a socket, a directory), or larger
    than the reader allows: reading it would block, never end, or exhaust memory."""


class JSONLimitError(ValueError):
    """A JSON document nested deeper than the reader allows."""


def check_regular_file(path: Path, *, max_bytes: int | None = None) -> int:
    """Refuse anything but a regular file (a symlink to one is fine); its size in bytes.

    Raises:
        FileNotFoundError: nothing is there.
        FileKindError: a FIFO, a device, a socket or a directory, or over ``max_bytes``.
    """
    info = os.stat(path)
    if not stat.S_ISREG(info.st_mode):
        kind = next((name for test, name in _KINDS if test(info.st_mode)), "not a regular file")
        raise FileKindError(f"{path} is {kind}, not a regular file")
    if max_bytes is not None and info.st_size > max_bytes:
        raise FileKindError(
            f"{path} holds {info.st_size:,} bytes, more than the {max_bytes:,} trajguard reads"
        )
    return info.st_size


def read_regular_bytes(path: Path, *, max_bytes: int = MAX_JSON_BYTES) -> bytes:
    """The bytes of a regular file of at most ``max_bytes``; opened without blocking, so a FIFO
    swapped in after the check still cannot hold the reader.

    Raises:
        FileNotFoundError / FileKindError / OSError: see :func:`check_regular_file`.
    """
    check_regular_file(path, max_bytes=max_bytes)
    descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    with os.fdopen(descriptor, "rb") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            raise FileKindError(f"{path} is not a regular file")
        data = handle.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise FileKindError(f"{path} holds more than the {max_bytes:,} bytes trajguard reads")
    return data


def _depth_exceeded(value: Any, max_depth: int) -> bool:
    """Whether ``value`` nests deeper than ``max_depth`` (iteratively: no recursion)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            children: Any = node.values()
        elif isinstance(node, list):
            children = node
        else:
            continue
        if depth > max_depth:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False


def loads_bounded(text: str | bytes, *, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """``json.loads`` that refuses a document nested deeper than ``max_depth``.

    Raises:
        json.JSONDecodeError: not JSON.
        JSONLimitError: nested too deep.
        ValueError: a number Python will not convert (over 4,300 digits).
    """
    try:
        value = json.loads(text)
    except RecursionError:
        raise JSONLimitError(f"nested more than {max_depth} levels deep") from None
    if _depth_exceeded(value, max_depth):
        raise JSONLimitError(f"nested more than {max_depth} levels deep")
    return value


def read_json(
    path: Path, *, max_bytes: int = MAX_JSON_BYTES, max_depth: int = MAX_JSON_DEPTH
) -> Any:
    """Parse the JSON document in the regular file ``path``, bounded in size and depth.

    Raises:
        FileNotFoundError / FileKindError / OSError: the file is missing, not a regular file,
            too large, or unreadable.
        UnicodeDecodeError / json.JSONDecodeError / JSONLimitError / ValueError: not UTF-8, not
            JSON, nested too deep.
    """
    text = read_regular_bytes(path, max_bytes=max_bytes).decode("utf-8")
    return loads_bounded(text, max_depth=max_depth)
