"""How much of a run set's Parquet files trajguard reads: rows, bytes on disk, bytes decoded.

A ``runs.parquet`` comes from wherever its run set came from. Its footer says how many rows it
holds and how large its columns are once decompressed, so a file that would exhaust memory is
refused from its footer, before a page is read. A footer is the writer's to choose: a file whose
pages decode to more than it declares is still cut off by Arrow's own checks of each page's
size, but a dictionary-encoded column can repeat one long value; the row limit bounds that
repetition.
"""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq

from trajguard._json import INFLATED_BYTES_ENV, env_limit, file_limit
from trajguard.errors import StoreError

__all__ = [
    "MAX_RUNS_DATA_BYTES",
    "MAX_RUNS_FILE_BYTES",
    "MAX_RUN_ROWS",
    "ROWS_ENV",
    "RunBudget",
    "run_rows_limit",
]

ROWS_ENV = "TRAJGUARD_MAX_RUN_ROWS"
"""Set to a whole number to replace :data:`MAX_RUN_ROWS`."""

MAX_RUN_ROWS = 1_000_000
"""Most runs read from one run set (all its files together): 100 scenarios of 10,000 runs, the
most ``--runs`` allows, each."""

MAX_RUNS_FILE_BYTES = 4 * 1024**3
"""Largest Parquet file of a run set read (on disk)."""

MAX_RUNS_DATA_BYTES = 4 * 1024**3
"""Most bytes the columns of a run set's files may declare once decompressed, together."""


def run_rows_limit() -> int:
    """The most rows read from one run set (or one file of the store of nights):
    :data:`MAX_RUN_ROWS`, or ``$TRAJGUARD_MAX_RUN_ROWS``."""
    return env_limit(ROWS_ENV, MAX_RUN_ROWS)


class RunBudget:
    """The rows and decoded bytes left to read from one run set, charged file by file from
    each file's footer (:meth:`charge`)."""

    def __init__(self) -> None:
        self.rows_left = self.max_rows = run_rows_limit()
        self.bytes_left = self.max_bytes = env_limit(INFLATED_BYTES_ENV, MAX_RUNS_DATA_BYTES)
        self.max_file_bytes = file_limit(MAX_RUNS_FILE_BYTES)
        """Checked before the footer is read (:func:`trajguard._json.check_regular_file`)."""

    def charge(self, path: Path, metadata: pq.FileMetaData) -> None:
        """Count the file's rows and declared decoded bytes against what is left.

        Raises:
            StoreError: the run set's files together hold more rows or declare more bytes.
        """
        declared = sum(
            metadata.row_group(group).total_byte_size for group in range(metadata.num_row_groups)
        )
        self.rows_left -= metadata.num_rows
        self.bytes_left -= declared
        if self.rows_left < 0:
            held = f"brings the run set to {self.max_rows - self.rows_left:,} rows"
            raise _over(path, held, self.max_rows, ROWS_ENV, unit="rows")
        if self.bytes_left < 0:
            held = f"brings the run set to {self.max_bytes - self.bytes_left:,} bytes decoded"
            raise _over(path, held, self.max_bytes, INFLATED_BYTES_ENV)


def _over(path: Path, held: str, limit: int, env: str, *, unit: str = "bytes") -> StoreError:
    return StoreError(
        f"the run file {held}, more than the {limit:,} {unit} trajguard reads (its limit; "
        f"set ${env} to raise it)",
        file=path,
        hint="a run set this large was not written by one `trajguard run`; check where it "
        "came from",
    )
