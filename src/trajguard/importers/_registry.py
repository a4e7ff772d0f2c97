"""The importers by source kind, each a private module loaded when it is used.

The kinds are :data:`trajguard._catalog.IMPORT_SOURCES` (the one table of them: the command
line's choices read it without importing this package); kind ``K`` is read by the module
``trajguard.importers._K``, which has ``detect(path) -> bool`` (cheap: a file name, a few keys)
and ``read(paths, options) -> ImportedBatch``. A module is imported only when its kind is used, so
``trajguard --help`` and the other commands do not load Inspect's reader.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol, cast

from trajguard._catalog import IMPORT_SOURCES
from trajguard.errors import UsageError
from trajguard.importers._model import ImportedBatch, ImportOptions

__all__ = ["SOURCES", "detect_source", "reader"]

SOURCES = IMPORT_SOURCES
"""Every source kind → what it reads (one table: :data:`trajguard._catalog.IMPORT_SOURCES`)."""


class Reader(Protocol):
    """What each importer module provides."""

    def detect(self, path: Path) -> bool: ...

    def read(self, paths: Sequence[Path], options: ImportOptions) -> ImportedBatch: ...


def reader(kind: str) -> Reader:
    """The importer of one source kind.

    Raises:
        UsageError: no such kind.
    """
    if kind not in SOURCES:
        raise UsageError(
            f"no importer for {kind!r}",
            hint=f"the sources are {', '.join(sorted(SOURCES))}",
        )
    return cast(Reader, importlib.import_module(f"{__package__}._{kind}"))


def detect_source(path: Path) -> str | None:
    """The kind of eval log at ``path`` (``None``: none of them, e.g. a run set)."""
    if (Path(path) / "manifest.json").is_file():
        return None
    for kind in SOURCES:
        if reader(kind).detect(Path(path)):
            return kind
    return None
