"""Reading the store: every night's rows as one table (pyarrow dataset, hive partitions)."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds

from trajguard.errors import StoreError
from trajguard.nights._location import StoreLocation
from trajguard.nights._schema import PARTITION_SCHEMA, READ_SCHEMA, READABLE_NIGHT_VERSIONS

__all__ = ["newest_dates", "read_nights"]

_KEYS = ("suite", "date", "recorded_at", "night_id", "schema_version")
_TREND_COLUMNS = tuple(name for name in READ_SCHEMA.names if name != "comparison")


def _dataset(location: StoreLocation) -> ds.Dataset | None:
    fs = location.filesystem
    try:
        info = fs.get_file_info(location.root)
        if info.type == pa.fs.FileType.NotFound:
            return None
        return ds.dataset(
            location.root,
            filesystem=fs,
            format="parquet",
            schema=READ_SCHEMA,
            partitioning=ds.partitioning(PARTITION_SCHEMA, flavor="hive"),
            exclude_invalid_files=False,
        )
    except (OSError, pa.ArrowException) as exc:
        raise StoreError(
            f"cannot read the store: {exc}",
            file=location.text,
            hint="pass the directory or URL `nightly --store` / `compare --store` wrote",
        ) from None


def newest_dates(location: StoreLocation, *, suite: str | None, nights: int) -> str | None:
    """The oldest date among the newest ``nights`` nights' files (from the file names alone:
    one file per night), so a read for the newest nights opens only their partitions."""
    dataset = _dataset(location)
    if dataset is None:
        return None
    keys = []
    for path in dataset.files:
        parts = dict(p.split("=", 1) for p in path.split("/") if "=" in p)
        if suite is None or parts.get("suite") == suite:
            keys.append(parts.get("date", ""))
    keys.sort()
    return keys[-nights] if len(keys) >= nights else None


def read_nights(
    location: StoreLocation,
    *,
    suite: str | None = None,
    scenario: str | None = None,
    last: int | None = None,
    since: str | None = None,
    columns: Sequence[str] | None = _TREND_COLUMNS,
) -> pd.DataFrame:
    """The store's rows, oldest night first (by date, then time recorded).

    Args:
        location: the opened store.
        suite: only this suite's nights (a partition: other suites' files are not opened).
        scenario: only this scenario's rows.
        last: only the newest ``last`` nights (of each suite).
        since: only nights dated on or after this date (``YYYY-MM-DD``; other dates'
            partitions are not opened).
        columns: the columns to read (default: all but the ``comparison`` JSON).

    Raises:
        StoreError: the store cannot be read, or holds a night of a version this trajguard
            does not read.
    """
    dataset = _dataset(location)
    names = list(dict.fromkeys([*_KEYS, *(columns or READ_SCHEMA.names)]))
    if dataset is None:
        empty: pd.DataFrame = READ_SCHEMA.empty_table().select(names).to_pandas()
        return empty
    where = None
    if suite is not None:
        where = pc.field("suite") == suite
    if since is not None:
        after = pc.field("date") >= since
        where = after if where is None else where & after
    if scenario is not None:
        same = pc.field("scenario") == scenario
        where = same if where is None else where & same
    try:
        table = dataset.to_table(columns=names, filter=where)
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
    return frame.reset_index(drop=True)
