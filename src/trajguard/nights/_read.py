"""Reading the store: every night's rows as one table (pyarrow dataset, hive partitions).

One bad file cannot block the store. The files are listed first, and only a night's file,
``suite=<suite>/date=<YYYY-MM-DD>/<night_id>.parquet``, is opened: anything else a person or a
tool left there (a README, a ``.csv`` export, a FIFO, a Parquet file outside the partitions) is
skipped and named. A night's file that cannot be read (truncated, not Parquet, without the
columns of a night) is skipped and named as well; the other nights are read. Names starting
with ``.`` or ``_`` are passed over silently: an append in flight writes ``.tmp-*``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds
import pyarrow.fs as pafs

from trajguard.errors import StoreError
from trajguard.nights._location import StoreLocation
from trajguard.nights._schema import PARTITION_SCHEMA, READ_SCHEMA, READABLE_NIGHT_VERSIONS
from trajguard.results import SkippedFile
from trajguard.store import ROWS_ENV, run_rows_limit

__all__ = [
    "NightFiles",
    "StoreRows",
    "list_night_files",
    "newest_dates",
    "read_nights",
    "read_store",
]

_KEYS = ("suite", "date", "recorded_at", "night_id", "schema_version")
_TREND_COLUMNS = tuple(name for name in READ_SCHEMA.names if name != "comparison")
_REQUIRED = frozenset({"night_id", "scenario", "runs", "passes"})
"""Columns every night's file holds (of every readable version): a Parquet file without them
is not a night."""
_LAYOUT = "only suite=<suite>/date=<YYYY-MM-DD>/<night_id>.parquet is a night's file"


@dataclass(frozen=True, kw_only=True)
class NightFiles:
    """The store's night files (of the suite and dates asked for) and the files passed over.

    Attributes:
        files: each night's file, as the store's file system names it.
        skipped: the files that are no night's file, with the reason.
    """

    files: tuple[str, ...]
    skipped: tuple[SkippedFile, ...]


@dataclass(frozen=True, kw_only=True)
class StoreRows:
    """What a read of the store gives: the rows, and every file skipped on the way."""

    rows: pd.DataFrame
    skipped: tuple[SkippedFile, ...]


def _partition(part: str, key: str) -> str | None:
    prefix = f"{key}="
    return part[len(prefix) :] if part.startswith(prefix) and len(part) > len(prefix) else None


def list_night_files(
    location: StoreLocation, *, suite: str | None = None, since: str | None = None
) -> NightFiles:
    """Every night's file of the store (of ``suite``, dated ``since`` or later), and the
    foreign files beside them.

    Raises:
        StoreError: the store's root is a file, or cannot be listed.
    """
    fs = location.filesystem
    try:
        root = fs.get_file_info(location.root)
        if root.type == pafs.FileType.NotFound:
            return NightFiles(files=(), skipped=())
        if root.type != pafs.FileType.Directory:
            raise StoreError(
                "the store is a file, not a directory of nights",
                file=location.text,
                hint="pass the directory or URL `nightly --store` / `compare --store` wrote",
            )
        found = fs.get_file_info(pafs.FileSelector(location.root, recursive=True))
    except (OSError, pa.ArrowException) as exc:
        raise StoreError(
            f"cannot list the store: {exc}",
            file=location.text,
            hint="check the directory or bucket exists and is readable (credentials, endpoint)",
        ) from None
    files: list[str] = []
    skipped: list[SkippedFile] = []
    for info in sorted(found, key=lambda i: i.path):
        if info.type == pafs.FileType.Directory:
            continue
        parts = info.path[len(location.root) :].strip("/").split("/")
        if any(part.startswith((".", "_")) for part in parts):
            continue
        if info.type != pafs.FileType.File:
            skipped.append(SkippedFile(path=info.path, reason="not a regular file"))
            continue
        night = len(parts) == 3 and parts[2].endswith(".parquet")
        file_suite = _partition(parts[0], "suite") if night else None
        file_date = _partition(parts[1], "date") if night else None
        if file_suite is None or file_date is None:
            skipped.append(SkippedFile(path=info.path, reason=f"not a night's file ({_LAYOUT})"))
        elif (suite is None or file_suite == suite) and (since is None or file_date >= since):
            files.append(info.path)
    return NightFiles(files=tuple(files), skipped=tuple(skipped))


def newest_dates(location: StoreLocation, *, suite: str | None, nights: int) -> str | None:
    """The oldest date among the newest ``nights`` nights' files (from the file names alone:
    one file per night), so a read for the newest nights opens only their partitions."""
    keys = sorted(
        path.split("/")[-2][len("date=") :]
        for path in list_night_files(location, suite=suite).files
    )
    return keys[-nights] if len(keys) >= nights else None


_SOURCE = re.compile(r"^Could not open Parquet input source '.*?': ")


def _short(exc: BaseException) -> str:
    """The first line of pyarrow's message, without the file's name (the warning names it)."""
    lines = str(exc).strip().splitlines()
    return _SOURCE.sub("", lines[0]) if lines else type(exc).__name__


def _fragments(
    location: StoreLocation, files: Sequence[str]
) -> tuple[list[ds.Fragment], list[SkippedFile]]:
    """Each file's fragment with its footer read (kept for the scan), or why it was skipped."""
    dataset = ds.dataset(
        list(files),
        filesystem=location.filesystem,
        format="parquet",
        schema=READ_SCHEMA,
        partitioning=ds.partitioning(PARTITION_SCHEMA, flavor="hive"),
        partition_base_dir=location.root,
        exclude_invalid_files=False,
    )
    kept: list[ds.Fragment] = []
    skipped: list[SkippedFile] = []
    max_rows = run_rows_limit()  # a night's file holds a row per scenario: far fewer
    for fragment in dataset.get_fragments():
        try:
            fragment.ensure_complete_metadata()
            names = set(fragment.physical_schema.names)
        except (OSError, pa.ArrowException) as exc:
            reason = f"not a readable Parquet file ({_short(exc)})"
            skipped.append(SkippedFile(path=fragment.path, reason=reason))
            continue
        rows = fragment.metadata.num_rows
        if rows > max_rows:
            reason = (
                f"a Parquet file of {rows:,} rows, more than the {max_rows:,} trajguard reads "
                f"from one file (its limit; set ${ROWS_ENV} to raise it)"
            )
            skipped.append(SkippedFile(path=fragment.path, reason=reason))
            continue
        missing = sorted(_REQUIRED - names)
        if missing:
            reason = f"a Parquet file without the columns of a night ({', '.join(missing)})"
            skipped.append(SkippedFile(path=fragment.path, reason=reason))
            continue
        kept.append(fragment)
    return kept, skipped


def _scan(
    location: StoreLocation,
    fragments: Sequence[ds.Fragment],
    names: Sequence[str],
    where: pc.Expression | None,
) -> tuple[pa.Table, list[SkippedFile]]:
    """The rows of ``fragments``; when the scan of them all fails (a file whose footer reads
    but whose pages do not), each file is read alone and the broken ones skipped."""

    def scan(part: Sequence[ds.Fragment]) -> pa.Table:
        dataset = ds.FileSystemDataset(
            list(part), READ_SCHEMA, ds.ParquetFileFormat(), location.filesystem
        )
        return dataset.to_table(columns=list(names), filter=where)

    empty = READ_SCHEMA.empty_table().select(list(names))
    if not fragments:
        return empty, []
    try:
        return scan(fragments), []
    except (OSError, pa.ArrowException):
        pass
    tables: list[pa.Table] = [empty]
    skipped: list[SkippedFile] = []
    for fragment in fragments:
        try:
            tables.append(scan([fragment]))
        except (OSError, pa.ArrowException) as exc:
            reason = f"not a readable Parquet file ({_short(exc)})"
            skipped.append(SkippedFile(path=fragment.path, reason=reason))
    return pa.concat_tables(tables), skipped


def read_store(
    location: StoreLocation,
    *,
    suite: str | None = None,
    scenario: str | None = None,
    last: int | None = None,
    since: str | None = None,
    columns: Sequence[str] | None = _TREND_COLUMNS,
) -> StoreRows:
    """The store's rows, oldest night first (by date, then time recorded), and the files
    skipped (foreign or unreadable: see the module's note).

    Args:
        location: the opened store.
        suite: only this suite's nights (a partition: other suites' files are not opened).
        scenario: only this scenario's rows.
        last: only the newest ``last`` nights (of each suite).
        since: only nights dated on or after this date (``YYYY-MM-DD``; other dates'
            partitions are not opened).
        columns: the columns to read (default: all but the ``comparison`` JSON).

    Raises:
        StoreError: the store cannot be listed, or holds a night of a version this trajguard
            does not read.
    """
    listing = list_night_files(location, suite=suite, since=since)
    names = list(dict.fromkeys([*_KEYS, *(columns or READ_SCHEMA.names)]))
    where = None if scenario is None else pc.field("scenario") == scenario
    try:
        fragments, broken = _fragments(location, listing.files)
        table, unread = _scan(location, fragments, names, where)
    except (OSError, pa.ArrowException) as exc:
        raise StoreError(f"cannot read the store: {exc}", file=location.text) from None
    frame: pd.DataFrame = table.to_pandas()
    if "schema_version" in frame:
        unknown = sorted(
            set(frame["schema_version"].dropna().astype(int)) - READABLE_NIGHT_VERSIONS
        )
        if unknown:
            raise StoreError(
                f"the store holds nights of schema version {unknown[0]}, newer than this "
                "trajguard reads",
                file=location.text,
                hint="upgrade trajguard to read them",
            )
    frame = frame.sort_values(["suite", "date", "recorded_at", "night_id"], kind="stable")
    if last is not None:
        keys = frame[["suite", "date", "recorded_at", "night_id"]].drop_duplicates()
        kept = keys.groupby("suite", sort=False).tail(max(last, 1))
        frame = frame.merge(kept, on=list(kept.columns))
    skipped = (*listing.skipped, *broken, *unread)
    return StoreRows(rows=frame.reset_index(drop=True), skipped=skipped)


def read_nights(
    location: StoreLocation,
    *,
    suite: str | None = None,
    scenario: str | None = None,
    last: int | None = None,
    since: str | None = None,
    columns: Sequence[str] | None = _TREND_COLUMNS,
) -> pd.DataFrame:
    """The rows of :func:`read_store` alone (the files it skipped are not reported: use
    :func:`read_store` to name them)."""
    return read_store(
        location, suite=suite, scenario=scenario, last=last, since=since, columns=columns
    ).rows
