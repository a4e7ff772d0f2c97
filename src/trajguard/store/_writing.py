"""Operating-system errors while writing, as :class:`StoreError` naming the file."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

from trajguard.errors import StoreError

__all__ = ["writing"]


@contextlib.contextmanager
def writing(path: Path, what: str) -> Iterator[None]:
    """Turn an operating-system error while writing ``path`` into a :class:`StoreError`."""
    try:
        yield
    except OSError as exc:
        raise StoreError(
            f"cannot write {what}: {exc.strerror or exc}",
            file=exc.filename or path,
            hint="pass a directory you can write to (a new or empty one for a run set)",
        ) from None
