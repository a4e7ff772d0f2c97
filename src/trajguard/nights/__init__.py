"""The store of nights: every nightly (and ``compare --store``) kept as one Parquet file per
night, read back as a time series.

A store is a directory or an object-store URL (``s3://bucket/prefix``)::

    STORE/suite=<suite>/date=<YYYY-MM-DD>/<night_id>.parquet

one row per night, scenario and variant (:data:`NIGHT_SCHEMA`, ``docs/nights.md``). Appends are
atomic (written beside the target, then renamed); a night appended again replaces itself; two
jobs appending at once write different files. :func:`trend` reads a suite's nights and names,
per scenario, a sustained change ("since when"), flaky nights and the baseline's drift.
"""

from trajguard.nights._api import record_night, trend
from trajguard.nights._append import NIGHT_FILE_SUFFIX, append_night, night_path
from trajguard.nights._location import StoreLocation, is_url, open_location
from trajguard.nights._read import NightFiles, StoreRows, list_night_files, read_nights, read_store
from trajguard.nights._record import NightInput, night_table, tool_mix
from trajguard.nights._schema import (
    NIGHT_SCHEMA,
    NIGHT_SCHEMA_VERSION,
    PARTITION_SCHEMA,
    READ_SCHEMA,
    READABLE_NIGHT_VERSIONS,
)
from trajguard.nights._stats import ChangeScan, Dispersion, change_scan, overdispersion, wilson
from trajguard.nights._trend import A_A_FALSE_ALARM_RATE, trend_of

__all__ = [
    "A_A_FALSE_ALARM_RATE",
    "NIGHT_FILE_SUFFIX",
    "NIGHT_SCHEMA",
    "NIGHT_SCHEMA_VERSION",
    "PARTITION_SCHEMA",
    "READABLE_NIGHT_VERSIONS",
    "READ_SCHEMA",
    "ChangeScan",
    "Dispersion",
    "NightFiles",
    "NightInput",
    "StoreLocation",
    "StoreRows",
    "append_night",
    "change_scan",
    "is_url",
    "list_night_files",
    "night_path",
    "night_table",
    "open_location",
    "overdispersion",
    "read_nights",
    "read_store",
    "record_night",
    "tool_mix",
    "trend",
    "trend_of",
    "wilson",
]
