"""Appending a night: one file per night, written beside its place and renamed into it.

On an object store (``s3://``) the night is uploaded to its key directly: an upload becomes
visible whole when it completes, or not at all.

Two jobs appending at once write two different files (their night ids differ), so no file is
ever written by two processes; a night appended again (same suite, date and night id) replaces
its file by a rename. A process killed mid-write leaves at most a ``.tmp-*`` file, which no
reader opens (pyarrow skips names starting with ``.``; the glob of
``docs/reference/nights-store.md`` asks for
``*.parquet``).
"""

from __future__ import annotations

import contextlib
import datetime
import re
import uuid

import pyarrow as pa
import pyarrow.parquet as pq

from trajguard.errors import StoreError
from trajguard.nights._location import StoreLocation
from trajguard.nights._schema import NIGHT_SCHEMA

__all__ = ["NIGHT_FILE_SUFFIX", "append_night", "night_path"]

NIGHT_FILE_SUFFIX = ".parquet"
_SAFE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,127}")
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def _checked(what: str, value: str, pattern: re.Pattern[str], shown: str | None = None) -> str:
    if not pattern.fullmatch(value):
        raise StoreError(
            f"the night's {what} {shown if shown is not None else repr(value)} cannot name a "
            "store partition",
            hint="suite names and night ids are letters, digits, '_', '.', '-'; "
            "dates are YYYY-MM-DD",
        )
    return value


def night_path(location: StoreLocation, *, suite: str, date: str, night_id: str) -> str:
    """The file a night lives in: ``<root>/suite=<suite>/date=<date>/<night_id>.parquet``.

    Raises:
        StoreError: the suite, date or id cannot name a partition or file.
    """
    try:
        datetime.date.fromisoformat(date)
    except ValueError:
        _checked("date", "", _DATE, shown=repr(date))
    folder = (
        f"{location.root}/suite={_checked('suite', suite, _SAFE)}"
        f"/date={_checked('date', date, _DATE)}"
    )
    return f"{folder}/{_checked('id', night_id, _SAFE)}{NIGHT_FILE_SUFFIX}"


def append_night(
    location: StoreLocation, table: pa.Table, *, suite: str, date: str, night_id: str
) -> str:
    """Write one night's rows (:data:`NIGHT_SCHEMA`) atomically; returns the file's path.

    Raises:
        StoreError: the store cannot be written, or the rows do not fit the schema.
    """
    target = night_path(location, suite=suite, date=date, night_id=night_id)
    folder = target.rsplit("/", 1)[0]
    temporary = f"{folder}/.tmp-{night_id}-{uuid.uuid4().hex}"
    fs = location.filesystem
    try:
        table = table.select(NIGHT_SCHEMA.names).cast(NIGHT_SCHEMA)
    except (KeyError, pa.ArrowException) as exc:
        raise StoreError(f"the night's rows do not fit the store's schema: {exc}") from None
    try:
        if location.local:
            fs.create_dir(folder, recursive=True)
            pq.write_table(table, temporary, filesystem=fs, compression="zstd")
            fs.move(temporary, target)
        else:
            # An object store's PUT (or multipart upload) makes the object appear whole when it
            # completes, never in part; a move there would be a copy and a delete.
            temporary = target
            pq.write_table(table, target, filesystem=fs, compression="zstd")
    except (OSError, pa.ArrowException) as exc:
        if location.local:
            with contextlib.suppress(OSError, pa.ArrowException):
                fs.delete_file(temporary)
        raise StoreError(
            f"cannot append the night to the store: {exc}",
            file=location.text,
            hint="check the path or bucket exists and is writable (credentials, endpoint)",
        ) from None
    return target
