"""The store of nights: every nightly (and ``compare --store``) kept as one Parquet file per
night, read back as a time series.

A store is a directory or an object-store URL (``s3://bucket/prefix``)::

    STORE/suite=<suite>/date=<YYYY-MM-DD>/<night_id>.parquet

one row per night, scenario and variant (:data:`NIGHT_SCHEMA`,
``docs/reference/nights-store.md``). Appends are
atomic (written beside the target, then renamed); a night appended again replaces itself; two
jobs appending at once write different files. :func:`trend` reads a suite's nights and runs,
per scenario, metric and path, a CUSUM under one false-alarm rate for the suite (an unchanged suite
false-alarms about once a year of nights), names flaky scenarios and the baseline's drift.
"""

from trajguard.nights._alarms import Shape, monitor, shape_end, shape_of
from trajguard.nights._api import record_night, trend
from trajguard.nights._append import NIGHT_FILE_SUFFIX, append_night, night_path
from trajguard.nights._detection import TARGET_NAMED, drop_named, runs_for
from trajguard.nights._drift_rule import RECENT_NIGHTS, DriftLine, drift_line, line_spread
from trajguard.nights._location import StoreLocation, is_url, open_location
from trajguard.nights._monitor import TARGET_ARL, arcsine, cusum, stream_arl, threshold
from trajguard.nights._nights_list import trend_nights
from trajguard.nights._notify import alarm_payload, check_webhook, post_alarms
from trajguard.nights._read import NightFiles, StoreRows, list_night_files, read_nights, read_store
from trajguard.nights._record import NightInput, night_table, tool_mix
from trajguard.nights._schema import (
    NIGHT_SCHEMA,
    NIGHT_SCHEMA_VERSION,
    PARTITION_SCHEMA,
    READ_SCHEMA,
    READABLE_NIGHT_VERSIONS,
)
from trajguard.nights._stats import (
    ChangeScan,
    Dispersion,
    change_scan,
    newcombe,
    overdispersion,
    spread_ratio,
    wilson,
)
from trajguard.nights._streams import PATH_WEIGHT, RISE_WEIGHT, Counts, Key, Streams, streams_of
from trajguard.nights._trend_builder import trend_of

__all__ = [
    "NIGHT_FILE_SUFFIX",
    "NIGHT_SCHEMA",
    "NIGHT_SCHEMA_VERSION",
    "PARTITION_SCHEMA",
    "PATH_WEIGHT",
    "READABLE_NIGHT_VERSIONS",
    "READ_SCHEMA",
    "RECENT_NIGHTS",
    "RISE_WEIGHT",
    "TARGET_ARL",
    "TARGET_NAMED",
    "ChangeScan",
    "Counts",
    "Dispersion",
    "DriftLine",
    "Key",
    "NightFiles",
    "NightInput",
    "Shape",
    "StoreLocation",
    "StoreRows",
    "Streams",
    "alarm_payload",
    "append_night",
    "arcsine",
    "change_scan",
    "check_webhook",
    "cusum",
    "drift_line",
    "drop_named",
    "is_url",
    "line_spread",
    "list_night_files",
    "monitor",
    "newcombe",
    "night_path",
    "night_table",
    "open_location",
    "overdispersion",
    "post_alarms",
    "read_nights",
    "read_store",
    "record_night",
    "runs_for",
    "shape_end",
    "shape_of",
    "spread_ratio",
    "stream_arl",
    "streams_of",
    "threshold",
    "tool_mix",
    "trend",
    "trend_nights",
    "trend_of",
    "wilson",
]
