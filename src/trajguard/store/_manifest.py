"""A run set's manifest (what the batch was) and journal (which runs started, and when)."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from trajguard._files import atomic_write_text, is_safe_name
from trajguard._json import loads_bounded, read_json, read_regular_bytes
from trajguard.errors import StoreError
from trajguard.store._schema import JOURNAL_FILE, MANIFEST_FILE
from trajguard.store._writing import writing

__all__ = [
    "MAX_JOURNAL_BYTES",
    "MAX_MANIFEST_BYTES",
    "journal_start",
    "read_journal",
    "read_manifest",
    "write_manifest",
]

MAX_MANIFEST_BYTES = 16 * 1024 * 1024
"""The largest manifest read (one of 10,000 runs and many scenarios is well under 1 MB)."""
MAX_JOURNAL_BYTES = 256 * 1024 * 1024
"""The largest start journal read (about 100 bytes a run)."""


def journal_start(runset: Path, run_id: str, started_at: str) -> None:
    """Append a run's start to the run set's journal (so an interrupted run is known)."""
    path = Path(runset) / JOURNAL_FILE
    with writing(path, "the journal"), path.open("a", encoding="utf-8") as journal:
        journal.write(json.dumps({"run_id": run_id, "started_at": started_at}) + "\n")
        journal.flush()


def read_journal(runset: Path) -> dict[str, str]:
    """run_id → start time of every run that started (a torn last line is ignored)."""
    path = Path(runset) / JOURNAL_FILE
    started: dict[str, str] = {}
    if not os.path.lexists(path):
        return started
    try:
        text = read_regular_bytes(path, max_bytes=MAX_JOURNAL_BYTES).decode("utf-8", "replace")
    except OSError as exc:
        raise StoreError(f"cannot read the journal: {exc}", file=path) from None
    for line in text.splitlines():
        try:
            entry = loads_bounded(line, max_depth=2)
        except ValueError:  # a torn last line, or not a journal entry at all
            continue
        if isinstance(entry, dict) and "run_id" in entry and "started_at" in entry:
            started[str(entry["run_id"])] = str(entry["started_at"])
    return started


def write_manifest(runset: Path, manifest: Mapping[str, Any]) -> None:
    """Write ``manifest.json`` atomically."""
    text = json.dumps(manifest, indent=2, sort_keys=True, default=str) + "\n"
    path = Path(runset) / MANIFEST_FILE
    with writing(path, "the manifest"):
        atomic_write_text(path, text)


def read_manifest(runset: Path) -> dict[str, Any]:
    """The run set's manifest."""
    path = Path(runset) / MANIFEST_FILE
    try:
        data = read_json(path, max_bytes=MAX_MANIFEST_BYTES)
    except FileNotFoundError:
        raise StoreError(
            "not a run set: manifest.json is missing",
            file=path.parent,
            hint="pass a directory written by `trajguard run`",
        ) from None
    except (OSError, ValueError) as exc:  # not a regular file, too large or deep, not JSON
        raise StoreError(
            f"cannot read manifest: {exc}",
            file=path,
            hint="a run set's manifest.json is a small JSON object written by `trajguard run`",
        ) from None
    if not isinstance(data, dict):
        raise StoreError("manifest.json does not hold an object", file=path)
    if "suite" in data and not is_safe_name(data["suite"]):
        # the suite name becomes a directory name (baselines/<suite>, reports/<suite>-<time>)
        raise StoreError(
            f"manifest.json names the suite {data['suite']!r:.80}, which is not a suite name "
            "(letters, digits, '_', '.', '-', starting with a letter or digit)",
            file=path,
            hint="this manifest was not written by `trajguard run`; restore the run set from "
            "where it came from",
        )
    return data
