"""The runs behind a comparison, compact, for the page's run explorer: read straight from the
run sets' Parquet columns (no DataFrame, no trajectory parsed unless it is too long), written
as gzip + base64 JSON the page decodes with the browser's ``DecompressionStream``.

One blob holds every run's row (what the explorer's table filters and sorts); one blob per
scenario holds its runs' final outputs and trajectories, decoded only when a run is opened.
"""

from __future__ import annotations

import base64
import gzip
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from trajguard._json import loads_bounded
from trajguard._text import printable
from trajguard.core import COSTS
from trajguard.report.builders import failed_labels
from trajguard.report.html._pairs import ExemplarKeys, exemplar_pairs
from trajguard.store import read_table

__all__ = ["ROW_FIELDS", "RunPayload", "RunSource", "collect_runs", "encode"]

ROW_FIELDS = (
    "run_id",
    "batch_id",
    "run_index",
    "status",
    "passed",
    "criteria_failed",
    "tool_sequence",
    "step_count",
    "prompt_tokens",
    "completion_tokens",
    "duration_s",
    "error",
)
"""The fields of one run's row in the payload, in order."""

_COLUMNS = (
    "scenario",
    "run_index",
    "status",
    "error_type",
    "error_message",
    "passed",
    "failed_criteria",
    "criteria",
    "tool_sequence",
    "step_count",
    "prompt_tokens",
    "completion_tokens",
    "duration_s",
    "final_output",
    "trajectory",
)
_TEXT_LIMIT = 4000  # characters of one string kept in a trajectory that is too long
_TRAJECTORY_LIMIT = 40_000  # a trajectory longer than this is parsed and its texts cut
_OUTPUT_LIMIT = 2000
_name = lru_cache(maxsize=8192)(printable)
"""Names repeat (statuses, batches, tools, criteria): each is escaped once."""


@dataclass(frozen=True, kw_only=True)
class RunSource:
    """One side's runs: which (batch id, run id) it compared, and the run sets holding them."""

    keys: frozenset[tuple[str, str]]
    paths: tuple[Path, ...]


@dataclass(frozen=True, kw_only=True)
class RunPayload:
    """The explorer's data, encoded (gzip + base64 of JSON).

    Attributes:
        rows: ``{"fields": [...], "scenarios": {name: [baseline rows, candidate rows]},
            "exemplars": {name: its exemplar pair aligned}, "alignment": its costs}``.
        trajectories: scenario → ``[[[final output, trajectory JSON], ...] per side]``.
        runs: runs in the payload.
    """

    rows: str
    trajectories: Mapping[str, str]
    runs: int


def encode(value: Any) -> str:
    """JSON, gzip (no time stamp: the same data, the same bytes), base64."""
    raw = json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()
    return base64.b64encode(gzip.compress(raw, compresslevel=6, mtime=0)).decode("ascii")


def _cut(value: Any) -> Any:
    if isinstance(value, str):
        return value if len(value) <= _TEXT_LIMIT else value[:_TEXT_LIMIT] + " …[cut]"
    if isinstance(value, list):
        return [_cut(v) for v in value]
    if isinstance(value, dict):
        return {k: _cut(v) for k, v in value.items()}
    return value


def _trajectory(raw: str | None) -> str | None:
    if raw is None or len(raw) <= _TRAJECTORY_LIMIT:
        return raw
    try:
        return json.dumps(_cut(loads_bounded(raw)), ensure_ascii=False, separators=(",", ":"))
    except ValueError:
        return raw[:_TRAJECTORY_LIMIT] + " …[cut]"


def _short(value: str | None, limit: int) -> str | None:
    if value is None:
        return None
    value = printable(value, keep="\n")
    return value if len(value) <= limit else value[:limit] + " …[cut]"


def _side(
    source: RunSource, tables: dict[Path, Any], kept: dict[tuple[str, str], str | None]
) -> Iterable[tuple[str, list[Any], list[str | None]]]:
    """(scenario, row, [final output, trajectory]) of each of the side's runs; the whole
    stored trajectory of the runs ``kept`` names (by batch and run id, as the rows name them)
    put in it."""
    for path in source.paths:
        if path not in tables:
            tables[path] = read_table(path, columns=_COLUMNS)
        table = tables[path]
        ids = table.column("run_id").to_pylist()
        batches = table.column("batch_id").to_pylist()
        keep = [i for i, key in enumerate(zip(batches, ids, strict=True)) if key in source.keys]
        if not keep:
            continue
        picked = table.take(keep)
        columns = {name: picked.column(name).to_pylist() for name in picked.column_names}
        for i in range(len(keep)):
            row = {name: values[i] for name, values in columns.items()}
            labels, _ = failed_labels(row)
            error = None
            if row["error_type"] or row["error_message"]:
                error = _short(f"{row['error_type'] or 'error'}: {row['error_message'] or ''}", 600)
            duration = row["duration_s"]
            key = (_name(row["batch_id"]), printable(row["run_id"]))
            if key in kept:
                kept[key] = row["trajectory"]
            yield (
                _name(row["scenario"]),
                [
                    printable(row["run_id"]),
                    _name(row["batch_id"]),
                    row["run_index"],
                    _name(row["status"]),
                    row["passed"],
                    sorted(_name(label) for label in labels),
                    [_name(t) for t in row["tool_sequence"] or ()],
                    row["step_count"],
                    row["prompt_tokens"],
                    row["completion_tokens"],
                    None if duration is None else round(float(duration), 3),
                    error,
                ],
                [_short(row["final_output"], _OUTPUT_LIMIT), _trajectory(row["trajectory"])],
            )


def collect_runs(
    sides: Sequence[RunSource],
    scenarios: Sequence[str],
    *,
    exemplars: ExemplarKeys | None = None,
) -> RunPayload:
    """The explorer's data of the compared runs of both sides (baseline first), for the
    compared ``scenarios`` (in the comparison's order), with each scenario's ``exemplars``
    (its baseline and candidate exemplar's batch and run id) aligned for the side-by-side view."""
    tables: dict[Path, Any] = {}
    kept: dict[tuple[str, str], str | None] = {
        key: None for pair in (exemplars or {}).values() for key in pair
    }
    rows: dict[str, list[list[Any]]] = {s: [[] for _ in sides] for s in scenarios}
    details: dict[str, list[list[Any]]] = {s: [[] for _ in sides] for s in scenarios}
    count = 0
    for index, source in enumerate(sides):
        for scenario, row, detail in _side(source, tables, kept):
            if scenario in rows:
                rows[scenario][index].append(row)
                details[scenario][index].append(detail)
                count += 1
    for scenario in scenarios:  # in run order: batch, then index
        for index in range(len(sides)):
            pairs = sorted(
                zip(rows[scenario][index], details[scenario][index], strict=True),
                key=lambda pair: (str(pair[0][1]), int(pair[0][2])),
            )
            rows[scenario][index] = [row for row, _ in pairs]
            details[scenario][index] = [detail for _, detail in pairs]
    aligned = exemplar_pairs(exemplars or {}, rows, kept)
    return RunPayload(
        rows=encode(
            {"fields": ROW_FIELDS, "scenarios": rows, "exemplars": aligned, "alignment": COSTS}
        ),
        trajectories={s: encode(details[s]) for s in scenarios},
        runs=count,
    )
