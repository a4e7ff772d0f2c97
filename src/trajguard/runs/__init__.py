"""The runs of a run set as first-class objects: list and select them, name one, show it as a
person reads it, export them as ATIF files, diff two of them.

The listing reads only the columns it shows (:data:`LISTING_COLUMNS`); one run's trajectory is
read only when that run is shown, exported or diffed.
"""

from trajguard.runs._diff import RunDiff, diff_runs, load_side
from trajguard.runs._error_summaries import error_summaries
from trajguard.runs._export import ExportResult, export_file_name, export_runs
from trajguard.runs._listing import (
    CRASH_CRITERION,
    LISTING_COLUMNS,
    RunFilter,
    RunLine,
    failed_criteria_of,
    list_runs,
    parse_sequence,
)
from trajguard.runs._reference import RunNotFound, read_run, resolve_run
from trajguard.runs._render import FOLD_CHARS, FOLD_LINES, fold, render_run

__all__ = [
    "CRASH_CRITERION",
    "FOLD_CHARS",
    "FOLD_LINES",
    "LISTING_COLUMNS",
    "ExportResult",
    "RunDiff",
    "RunFilter",
    "RunLine",
    "RunNotFound",
    "diff_runs",
    "error_summaries",
    "export_file_name",
    "export_runs",
    "failed_criteria_of",
    "fold",
    "list_runs",
    "load_side",
    "parse_sequence",
    "read_run",
    "render_run",
    "resolve_run",
]
