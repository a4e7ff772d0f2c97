"""``trajguard export``: one ATIF file per run, named by scenario, variant and index."""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from trajguard._files import atomic_write_text
from trajguard.errors import StoreError, UsageError
from trajguard.runs._listing import RunFilter, list_runs
from trajguard.store import read_table, stored_trajectory

__all__ = ["ExportResult", "export_file_name", "export_runs"]

_UNSAFE = re.compile(r"[^A-Za-z0-9_.\-]+")


@dataclass(frozen=True, kw_only=True)
class ExportResult:
    """What an export wrote, and the runs it could not (no trajectory stored)."""

    out: Path
    written: tuple[Path, ...]
    without_trajectory: tuple[str, ...]
    """Run ids of the selected runs that have no stored trajectory (harness errors, imports)."""


def _part(value: str) -> str:
    """One name part safe in a file name: unsafe runs become ``_``; a part that had to change
    gets a short hash of the original, so two different names never share a file."""
    cleaned = _UNSAFE.sub("_", value).lstrip(".") or "_"
    if cleaned == value:
        return value
    digest = hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return f"{cleaned}-{digest}"


def export_file_name(scenario: str, variant: str, run_index: int) -> str:
    """``<scenario>__<variant>__<index>.json`` with each part made safe (:func:`_part`)."""
    return f"{_part(scenario)}__{_part(variant)}__{int(run_index)}.json"


def _check_out(out: Path) -> None:
    if os.path.lexists(out) and not out.is_dir():
        raise StoreError(
            "the export directory exists and is not a directory",
            file=out,
            hint="pass --out a new or existing directory",
        )


def _nothing_to_export(runset: Path, chosen: RunFilter | None) -> Exception:
    if chosen is None or not list_runs(runset):
        return StoreError(
            "the run set holds no runs: nothing to export",
            file=runset,
            hint="a batch interrupted before its first run finished has none; run it again",
        )
    return UsageError(
        "no run of the run set matches the filters given: nothing to export",
        file=runset,
        hint=f"`trajguard runs {runset}` lists its runs; loosen the filters",
    )


def export_runs(runset: Path, out: Path, chosen: RunFilter | None = None) -> ExportResult:
    """Write every selected run's trajectory as an ATIF file in ``out`` (made if missing).

    The file is the normalised trajectory the run row stores, with the run id as its
    ``session_id``; each is written atomically (temp file + rename) inside ``out`` only.

    Raises:
        StoreError: ``out`` is a file, cannot be written, or the run set cannot be read or
            holds no runs.
        UsageError: a filter out of range, or filters that match no run.
    """
    _check_out(out)
    lines = list_runs(runset, chosen)
    if not lines:
        raise _nothing_to_export(runset, chosen)
    wanted = [line.run_id for line in lines]
    columns = ["scenario", "variant", "run_index", "trajectory"]
    rows = read_table(runset, columns=columns, run_ids=wanted).to_pylist() if wanted else []
    by_id = {row["run_id"]: row for row in rows}
    documents: list[tuple[Path, dict[str, Any]]] = []  # every one read before any is written
    missing: list[str] = []
    for line in lines:
        row = by_id.get(line.run_id)
        if row is None or not row.get("trajectory"):
            missing.append(line.run_id)
            continue
        document = stored_trajectory(row["trajectory"], run_id=line.run_id, runset=runset)
        document.setdefault("session_id", line.run_id)
        path = out / export_file_name(line.scenario, line.variant, line.run_index)
        documents.append((path, document))
    written: list[Path] = []
    for path, document in documents:
        try:
            atomic_write_text(path, json.dumps(document, indent=2, ensure_ascii=False) + "\n")
        except OSError as exc:
            raise StoreError(
                f"cannot write the export: {exc.strerror or exc}",
                file=exc.filename or path,
                hint="pass --out a directory you can write to",
            ) from None
        written.append(path)
    return ExportResult(out=out, written=tuple(written), without_trajectory=tuple(missing))
