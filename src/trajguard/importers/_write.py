"""An imported batch → an ordinary run set on disk, written whole or not at all.

The run set is staged in a hidden directory beside ``--out`` and renamed into place once its
rows and manifest are written: an interrupted import leaves no partial run set (only the hidden
staging directory, removed by the next import into the same parent).
"""

from __future__ import annotations

import hashlib
import json
import shutil
import tempfile
from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from trajguard import __version__
from trajguard._files import default_mode
from trajguard.errors import StoreError
from trajguard.importers._headline import headlines
from trajguard.importers._model import ImportedBatch
from trajguard.importers._rows import imported_row, run_id
from trajguard.redaction import Redactor, environment_secrets
from trajguard.store import RUNS_FILE, check_new_runset, write_manifest, write_runs

__all__ = ["IMPORTED_KEY", "write_batch"]

IMPORTED_KEY = "imported"
"""The manifest key of an imported run set: its source, files, provenance and what it lacks."""
_STAGING = ".trajguard-import-"


def write_batch(
    batch: ImportedBatch, out: Path, *, progress: Callable[[int, int], None] | None = None
) -> dict[str, Any]:
    """Write ``batch`` as a run set at ``out`` (a new or empty directory); returns its manifest.

    Raises:
        StoreError: ``out`` is not a new or empty directory, two runs share an id, or it cannot
            be written.
    """
    out = Path(out)
    check_new_runset(out)
    _check_unique(batch)
    manifest = _manifest(batch)
    identity = {
        "batch_id": manifest["batch_id"],
        "suite": batch.suite,
        "trajguard_version": __version__,
    }
    redactor = Redactor(secrets=environment_secrets())
    rows = []
    for done, run in enumerate(batch.runs, start=1):
        rows.append(imported_row(run, batch=identity, redactor=redactor))
        if progress is not None:
            progress(done, len(batch.runs))
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f"{_STAGING}{out.name}-", dir=out.parent))
    try:
        staging.chmod(default_mode(directory=True))
        write_runs(staging / RUNS_FILE, rows)
        write_manifest(staging, manifest)
        if out.is_dir():
            out.rmdir()  # empty (checked above); the rename below takes its place
        staging.rename(out)
    except OSError as exc:
        shutil.rmtree(staging, ignore_errors=True)
        raise StoreError(f"cannot write the run set: {exc}", file=out) from None
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return manifest


def _check_unique(batch: ImportedBatch) -> None:
    counts = Counter(run_id(run) for run in batch.runs)
    repeated = [name for name, count in counts.items() if count > 1]
    if repeated:
        raise StoreError(
            f"{len(repeated)} run ids occur more than once in the {batch.source} logs "
            f"(first: {repeated[0]!r}): two logs hold the same sample and epoch",
            hint="import logs of one run of the eval at a time, or import the two into two "
            "run sets",
        )


def _manifest(batch: ImportedBatch) -> dict[str, Any]:
    arms = Counter((run.scenario, run.variant) for run in batch.runs)
    now = datetime.now(UTC).isoformat()
    imported = {
        "source": batch.source,
        "files": list(batch.files),
        "provenance": dict(batch.provenance),
        "lacks": list(batch.lacks),
        "pass_rule": batch.pass_rule,
        "figures": [line for headline in headlines(batch) for line in headline.lines()],
        "imported_at": now,
    }
    hashes = {
        f"{run.scenario}/{run.variant}": run.config_hash
        for run in batch.runs
        if run.config_hash is not None
    }
    return {
        "kind": "trajguard-runset",
        "batch_id": _batch_id(batch),
        "suite": batch.suite,
        "status": "finished",
        "started_at": (batch.started_at.isoformat() if batch.started_at else None),
        "finished_at": (batch.finished_at.isoformat() if batch.finished_at else None),
        "trajguard_version": __version__,
        "git_sha": None,
        "models": sorted({run.model for run in batch.runs}),
        "scenarios": sorted({run.scenario for run in batch.runs}),
        "variants": sorted({run.variant for run in batch.runs}),
        "runs": max(arms.values(), default=0),
        "planned_runs": len(batch.runs),
        "completed_runs": len(batch.runs),
        "config_hashes": hashes,
        "descriptions": dict(batch.descriptions),
        "tolerances": {scenario: {} for scenario in sorted({s for s, _ in arms})},
        IMPORTED_KEY: imported,
    }


def _batch_id(batch: ImportedBatch) -> str:
    """The same logs give the same batch id (their runs' ids and sources, hashed)."""
    digest = hashlib.sha256(batch.source.encode())
    digest.update(json.dumps(sorted(batch.files)).encode())
    for run in batch.runs:
        digest.update(f"{run_id(run)}\0{run.source_ref}\0".encode())
    return digest.hexdigest()[:12]
