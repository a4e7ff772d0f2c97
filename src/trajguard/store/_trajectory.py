"""A run's stored trajectory (the ``trajectory`` column: ATIF JSON text) read back, bounded.

The column is text in a file anybody may have edited: it may be cut, no JSON at all, or nested
200,000 levels deep, which :func:`json.loads` answers with ``RecursionError``. Every reader of
the column parses it here, so each refuses such a value the same way.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from trajguard._json import loads_bounded
from trajguard._text import printable
from trajguard.errors import StoreError

__all__ = ["stored_trajectory"]


def stored_trajectory(text: str, *, run_id: object, runset: Path | None = None) -> dict[str, Any]:
    """The trajectory stored for ``run_id`` as a JSON object.

    Raises:
        StoreError: the text is no JSON, is nested deeper than the JSON depth limit, or holds
            no object (naming the run and its run set).
    """
    try:
        value = loads_bounded(text)
    except ValueError as exc:  # json.JSONDecodeError too
        reason = f"is not readable JSON ({printable(exc)})"
    else:
        if isinstance(value, dict):
            return value
        reason = f"holds a JSON {type(value).__name__}, not an object"
    raise StoreError(
        f"the stored trajectory of run {printable(run_id)!r} {reason}",
        file=runset,
        hint="runs.parquet was not written by `trajguard run`, or was edited since: restore it "
        "from the batch's own run set, or run the batch again",
    )
