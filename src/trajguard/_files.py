"""Atomic file writes: a temp file in the target's directory, then a rename.

A reader never sees a half-written file, and an interrupted write leaves no partial file behind
(the temp file is removed). The result gets the permissions a plain ``open()`` would give
(0666 less the umask), not the 0600 of ``mkstemp``: run sets and reports are shared artifacts.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Callable
from pathlib import Path

__all__ = ["atomic_write", "atomic_write_text", "default_mode", "test_artifact_path"]

_UNSAFE = re.compile(r"[^A-Za-z0-9_.\-]+")


def default_mode(*, directory: bool = False) -> int:
    """The mode ``open()`` (or ``mkdir()``) would create, given the process umask."""
    umask = os.umask(0)
    os.umask(umask)
    return (0o777 if directory else 0o666) & ~umask


def atomic_write(path: Path, write: Callable[[str], None]) -> None:
    """Create ``path`` atomically; ``write`` receives the temp file's name and fills it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(handle)
    try:
        write(temp)
        os.chmod(temp, default_mode())
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def atomic_write_text(path: Path, text: str) -> None:
    """Write UTF-8 text (``\\n`` line ends) to ``path`` atomically."""

    def write(temp: str) -> None:
        with open(temp, "w", encoding="utf-8", newline="\n") as out:
            out.write(text)

    atomic_write(path, write)


def test_artifact_path(test_file: Path, test_name: str, *, name: str | None, folder: str) -> Path:
    """A test's golden or cassette: ``<test dir>/<folder>/<module>/<test>[.<name>].json``.

    Parametrised ids (``test_x[a-1]``) become part of the file name, made filesystem-safe.
    """
    stem = _UNSAFE.sub("_", test_name).strip("_")
    if name:
        stem += "." + _UNSAFE.sub("_", name).strip("_")
    return test_file.parent / folder / test_file.stem / f"{stem}.json"
