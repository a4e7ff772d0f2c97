"""Baselines: a finished run set copied to ``baselines/<suite>/`` with its provenance."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from trajguard._files import default_mode
from trajguard.errors import StoreError
from trajguard.store._manifest import read_manifest, write_manifest
from trajguard.store._runset import arm_counts, read_table, write_runs_table
from trajguard.store._schema import MANIFEST_FILE, RUNS_FILE
from trajguard.store._writing import writing

__all__ = ["copy_runset", "promote"]


def copy_runset(source: Path, target: Path, *, manifest_updates: Mapping[str, Any]) -> None:
    """Copy a run set's runs and manifest to ``target``, replacing it atomically.

    Raises:
        StoreError: ``target`` is a file, or cannot be written.
    """
    manifest = {**read_manifest(source), **manifest_updates}
    table = read_table(source)
    if target.exists() and not target.is_dir():
        raise StoreError(
            "cannot replace a file with a run set",
            file=target,
            hint="remove the file, or pass another --baselines directory",
        )
    with writing(target, "the run set"):
        target.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    try:
        staging.chmod(default_mode(directory=True))
        write_runs_table(staging / RUNS_FILE, table)
        write_manifest(staging, manifest)
        with writing(target, "the run set"):
            _swap(staging, target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def _swap(staging: Path, target: Path) -> None:
    """Move ``staging`` to ``target``, replacing the directory there (if any) without debris."""
    old = None
    if target.exists():
        old = target.with_name(f".{target.name}.old")
        shutil.rmtree(old, ignore_errors=True)
        target.rename(old)
    try:
        staging.rename(target)
    except OSError:
        if old is not None:
            old.rename(target)  # put the previous run set back
        raise
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def promote(runset: Path, *, baselines: Path, force: bool = False) -> Path:
    """Make a finished run set the baseline of its suite: ``baselines/<suite>/``.

    Refuses a run set that is not finished, and (unless ``force``) one that covers fewer
    scenarios, variants or runs than the baseline it would replace.

    Returns:
        The baseline directory.

    Raises:
        StoreError: the run set is unfinished or covers less, or the target cannot be written.
    """
    manifest = read_manifest(runset)
    if manifest.get("status") != "finished":
        raise StoreError(
            "run set is not finished",
            file=runset,
            hint=f"finish it first: trajguard run SUITE --resume {runset}",
        )
    if "suite" not in manifest:
        raise StoreError(
            "the run set's manifest names no suite, so it has no baseline directory",
            file=runset,
            hint="promote a run set written by `trajguard run`",
        )
    if not arm_counts(runset):
        raise StoreError(
            "the run set holds no runs; a baseline needs some",
            file=runset,
            hint="promote a run set written by `trajguard run` that finished some runs",
        )
    target = baselines / str(manifest["suite"])  # a safe name: read_manifest checks it
    if not force:
        _refuse_to_shrink(runset, target)
    copy_runset(
        runset,
        target,
        manifest_updates={
            "promoted_from": str(runset),
            "promoted_at": datetime.now(UTC).isoformat(),
        },
    )
    return target


def _refuse_to_shrink(runset: Path, target: Path) -> None:
    """Refuse to replace a baseline by a run set that covers less of the suite than it does."""
    if not target.exists():
        return
    if not target.is_dir():
        raise StoreError(
            "the baseline path is a file, not a run set directory",
            file=target,
            hint="remove the file, or pass another --baselines directory",
        )
    if not (target / MANIFEST_FILE).exists():
        if any(target.iterdir()):
            raise StoreError(
                "the baseline directory is not a run set (no manifest.json); promoting would "
                "replace what is in it",
                file=target,
                hint="pass --force to replace it, or another --baselines directory",
            )
        return
    old, new = arm_counts(target), arm_counts(runset)
    losses = [
        f"{what} {', '.join(sorted(missing))} (in the baseline, not in {runset})"
        for what, missing in (
            ("scenario(s)", {s for s, _ in old} - {s for s, _ in new}),
            ("variant(s)", {v for _, v in old} - {v for _, v in new}),
        )
        if missing
    ]
    fewer = [
        f"{s}/{v}: {new.get((s, v), 0)} < {n}"
        for (s, v), n in old.items()
        if new.get((s, v), 0) < n
    ]
    if fewer:
        losses.append(f"fewer runs for {'; '.join(sorted(fewer))}")
    if losses:
        raise StoreError(
            "the run set covers less than the baseline it would replace: " + "; ".join(losses),
            file=target,
            hint="pass --force to replace it anyway",
        )
