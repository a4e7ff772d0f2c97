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
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = [
    "DEPTH_ENV",
    "FILE_BYTES_ENV",
    "INFLATED_BYTES_ENV",
    "MAX_DOCUMENT_BYTES",
    "MAX_INFLATED_BYTES",
    "MAX_JSON_BYTES",
    "MAX_JSON_DEPTH",
    "MAX_SOURCE_BYTES",
    "FileKindError",
    "JSONLimitError",
    "check_regular_file",
    "depth_limit",
    "env_limit",
    "file_limit",
    "inflated_limit",
    "loads_bounded",
    "read_json",
    "read_regular_bytes",
    "read_stream_bounded",
]

DEPTH_ENV = "TRAJGUARD_MAX_JSON_DEPTH"
"""Set to a whole number to raise (or lower) :data:`MAX_JSON_DEPTH` for every reader."""
FILE_BYTES_ENV = "TRAJGUARD_MAX_FILE_BYTES"
"""Set to a number of bytes to replace every reader's size limit of a file read whole."""
INFLATED_BYTES_ENV = "TRAJGUARD_MAX_INFLATED_BYTES"
"""Set to a number of bytes to replace :data:`MAX_INFLATED_BYTES`."""

MAX_JSON_DEPTH = 256
"""Deepest nesting (objects and arrays) of a JSON document trajguard reads from disk: beyond
anything it writes (a manifest is 3 levels deep; a trajectory may be 200, and a golden or a
cassette holding one a few more), and far below what would exhaust Python's recursion limit in
the code that walks it."""

MAX_JSON_BYTES = 64 * 1024 * 1024
"""Largest JSON file read by default (a manifest, a journal line, a small document)."""

MAX_DOCUMENT_BYTES = 1024 * 1024 * 1024
"""Largest golden file, cassette or trajectory read (1 GiB: its tool outputs may be large)."""

MAX_SOURCE_BYTES = 256 * 1024 * 1024
"""Largest file another tool wrote that an import or a suite reads whole (an Inspect ``.json``
log, a promptfoo output, a Harbor ``result.json``, a ``scenarios_from`` data file, a
``comparison.json``): parsed, JSON takes several times its size in memory."""

MAX_INFLATED_BYTES = 256 * 1024 * 1024
"""Largest member of a compressed archive (an Inspect ``.eval``'s ``header.json`` or sample)
inflated, whatever its header declares: a 64 KB member can declare, or inflate to, 4 GiB."""


def env_limit(name: str, default: int) -> int:
    """``$name`` as a limit (a whole number above 0), or ``default`` when unset.

    Raises:
        UsageError: ``$name`` is set to anything else.
    """
    raw = os.environ.get(name)
    if raw is None or not raw.strip():
        return default
    try:
        value = int(raw.replace("_", ""))
    except ValueError:
        value = 0
    if value < 1:
        from trajguard.errors import UsageError

        raise UsageError(f"${name} must be a whole number above 0, got {raw!r}")
    return value


def depth_limit() -> int:
    """The deepest JSON nesting read: :data:`MAX_JSON_DEPTH`, or ``$TRAJGUARD_MAX_JSON_DEPTH``."""
    return env_limit(DEPTH_ENV, MAX_JSON_DEPTH)


def file_limit(default: int) -> int:
    """The size limit of a file read whole: the reader's ``default``, or
    ``$TRAJGUARD_MAX_FILE_BYTES`` when set."""
    return env_limit(FILE_BYTES_ENV, default)


def inflated_limit() -> int:
    """The most bytes one archive member inflates to: :data:`MAX_INFLATED_BYTES`, or
    ``$TRAJGUARD_MAX_INFLATED_BYTES``."""
    return env_limit(INFLATED_BYTES_ENV, MAX_INFLATED_BYTES)


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


def _too_deep(max_depth: int) -> JSONLimitError:
    return JSONLimitError(
        f"nested more than {max_depth} levels deep (trajguard's limit; set ${DEPTH_ENV} to "
        "raise it)"
    )


def _too_large(what: object, size: str, max_bytes: int, env: str) -> FileKindError:
    return FileKindError(
        f"{what} holds {size} bytes, more than the {max_bytes:,} trajguard reads (its limit; "
        f"set ${env} to raise it)"
    )


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
        raise _too_large(path, f"{info.st_size:,}", max_bytes, FILE_BYTES_ENV)
    return info.st_size


def read_regular_bytes(path: Path, *, max_bytes: int = MAX_JSON_BYTES) -> bytes:
    """The bytes of a regular file of at most ``max_bytes`` (``$TRAJGUARD_MAX_FILE_BYTES``
    replaces it when set); opened without blocking, so a FIFO swapped in after the check still
    cannot hold the reader.

    Raises:
        FileNotFoundError / FileKindError / OSError: see :func:`check_regular_file`.
    """
    max_bytes = file_limit(max_bytes)
    check_regular_file(path, max_bytes=max_bytes)
    descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    with os.fdopen(descriptor, "rb") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            raise FileKindError(f"{path} is not a regular file")
        data = handle.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise _too_large(path, "more", max_bytes, FILE_BYTES_ENV)
    return data


def read_stream_bounded(read: Callable[[int], bytes], *, what: str, max_bytes: int) -> bytes:
    """Everything ``read`` (a binary stream's ``read``) gives, refused once it passes
    ``max_bytes`` (an inflating stream: a zip member, a zstd frame), read in 1 MiB chunks so
    that no more than the limit is ever held.

    Raises:
        FileKindError: more than ``max_bytes`` (naming ``what`` and
            ``$TRAJGUARD_MAX_INFLATED_BYTES``).
    """
    chunks: list[bytes] = []
    held = 0
    while True:
        chunk = read(min(1 << 20, max_bytes + 1 - held))
        if not chunk:
            return b"".join(chunks)
        held += len(chunk)
        if held > max_bytes:
            raise _too_large(what, "more", max_bytes, INFLATED_BYTES_ENV) from None
        chunks.append(chunk)


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


def loads_bounded(text: str | bytes, *, max_depth: int | None = None, **options: Any) -> Any:
    """``json.loads`` (with ``options``) that refuses a document nested deeper than
    ``max_depth`` (default :func:`depth_limit`).

    Raises:
        json.JSONDecodeError: not JSON.
        JSONLimitError: nested too deep.
        ValueError: a number Python will not convert (over 4,300 digits).
    """
    max_depth = depth_limit() if max_depth is None else max_depth
    try:
        value = json.loads(text, **options)
    except RecursionError:
        raise _too_deep(max_depth) from None
    if _depth_exceeded(value, max_depth):
        raise _too_deep(max_depth)
    return value


def read_json(path: Path, *, max_bytes: int = MAX_JSON_BYTES, max_depth: int | None = None) -> Any:
    """Parse the JSON document in the regular file ``path``, bounded in size and depth.

    Raises:
        FileNotFoundError / FileKindError / OSError: the file is missing, not a regular file,
            too large, or unreadable.
        UnicodeDecodeError / json.JSONDecodeError / JSONLimitError / ValueError: not UTF-8, not
            JSON, nested too deep.
    """
    text = read_regular_bytes(path, max_bytes=max_bytes).decode("utf-8")
    return loads_bounded(text, max_depth=max_depth)
