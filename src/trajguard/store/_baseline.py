"""Baselines: a finished run set copied to ``baselines/<suite>/`` with its provenance.

``baselines/<suite>/`` is always the latest promoted batch, an ordinary run set (so a baseline
written before histories existed, or read by an older trajguard, works as it is). The batches
promoted before it are kept under ``baselines/<suite>/history/<promoted-at>-<batch>/`` (each a
run set too), up to ``keep`` batches in all; :func:`load_history` reads them newest first.

Promotes into one baselines directory serialise: each holds the suite's lock
(``baselines/.<suite>~lock``, :mod:`._lock`) from reading the baseline it replaces to the swap,
so no acknowledged promote is lost and none fails because another ran at the same time. The new
baseline is staged beside the old one and swapped in with one atomic exchange where the system
has it (Linux), so a kill at any moment leaves the old baseline or the new one; where it has not,
the two renames are recovered by the next promote (:func:`_recover`).
"""

from __future__ import annotations

import contextlib
import glob
import shutil
import tempfile
from collections.abc import Iterator, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from trajguard._files import default_mode, exchange
from trajguard.errors import StoreError
from trajguard.store._loaded import RunSet, load_runset
from trajguard.store._lock import exclusive
from trajguard.store._manifest import read_manifest, write_manifest
from trajguard.store._runset import arm_counts, read_table, write_runs_table
from trajguard.store._schema import MANIFEST_FILE, RUNS_FILE
from trajguard.store._writing import writing

__all__ = [
    "DEFAULT_KEEP",
    "HISTORY_DIR",
    "copy_runset",
    "history_entries",
    "load_history",
    "promote",
]

HISTORY_DIR = "history"
DEFAULT_KEEP = 5


# Beside baselines/<suite>: a character no suite name has ("~"), so no suite's names are a
# prefix of another's.
_STAGING = "~staging."
_OLD = "~old"
_LOCK = "~lock"


def _entry_name(manifest: Mapping[str, Any], taken: set[str]) -> str:
    """``<promoted at, to the microsecond>-<batch>``, unique among ``taken`` (a suffix ``-2``,
    ``-3`` … otherwise): two promotes of one batch within a second keep two entries."""
    stamp = str(manifest.get("promoted_at") or manifest.get("finished_at") or "unknown")
    safe = "".join(ch for ch in stamp if ch.isalnum())[:21]
    batch = "".join(ch for ch in str(manifest.get("batch_id") or "batch") if ch.isalnum())
    name = f"{safe}-{batch[:12]}"
    unique, count = name, 1
    while unique in taken:
        count += 1
        unique = f"{name}-{count}"
    taken.add(unique)
    return unique


def history_entries(baseline: Path) -> list[Path]:
    """The older batches kept under ``baseline/history/``, newest first."""
    folder = Path(baseline) / HISTORY_DIR
    if not folder.is_dir():
        return []
    entries = [p for p in folder.iterdir() if p.is_dir() and (p / MANIFEST_FILE).is_file()]
    return sorted(entries, key=lambda p: p.name, reverse=True)


def load_history(baseline: Path) -> tuple[RunSet, ...]:
    """The baseline's promoted batches, newest first: the baseline itself, then its history.

    A baseline without a history (every baseline written before histories existed) is one
    batch.

    Raises:
        StoreError: the baseline or a kept batch cannot be read.
    """
    return (load_runset(baseline), *(load_runset(p) for p in history_entries(baseline)))


def _stage_history(previous: Path, staging: Path, keep: int) -> None:
    """Copy the batch being replaced and the newest of its history into ``staging/history``."""
    if keep < 2 or not (previous / MANIFEST_FILE).is_file():
        return
    kept = [previous, *history_entries(previous)][: keep - 1]
    taken: set[str] = set()
    for source in kept:
        entry = staging / HISTORY_DIR / _entry_name(read_manifest(source), taken)
        entry.mkdir(parents=True)
        write_runs_table(entry / RUNS_FILE, read_table(source))
        write_manifest(entry, read_manifest(source))


def copy_runset(
    source: Path, target: Path, *, manifest_updates: Mapping[str, Any], keep: int = 1
) -> None:
    """Copy a run set's runs and manifest to ``target``, replacing it atomically; with ``keep``
    above 1, the run set it replaces and the newest of that one's history are kept under
    ``target/history`` (``keep`` batches in all).

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
        staging = Path(tempfile.mkdtemp(prefix=f".{target.name}{_STAGING}", dir=target.parent))
    try:
        staging.chmod(default_mode(directory=True))
        write_runs_table(staging / RUNS_FILE, table)
        write_manifest(staging, manifest)
        with writing(target, "the baseline history"):
            _stage_history(target, staging, keep)
        with writing(target, "the run set"):
            _swap(staging, target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def _swap(staging: Path, target: Path) -> None:
    """Move ``staging`` to ``target``, replacing the directory there (if any) without debris:
    one atomic exchange where the system has it, else two renames (:func:`_recover` finishes
    them after a kill between the two)."""
    if not target.exists():
        staging.rename(target)
        return
    if exchange(staging, target):
        shutil.rmtree(staging, ignore_errors=True)  # now the previous baseline
        return
    old = target.with_name(f".{target.name}{_OLD}")
    shutil.rmtree(old, ignore_errors=True)
    target.rename(old)
    try:
        staging.rename(target)
    except OSError:
        old.rename(target)  # put the previous run set back
        raise
    shutil.rmtree(old, ignore_errors=True)


def _leftovers(target: Path) -> Iterator[Path]:
    """Directories a killed promote of ``target`` left beside it: staging and the old copy
    (``.<suite>.old`` is the name trajguard used before)."""
    staged = target.parent.glob(f"{glob.escape(f'.{target.name}{_STAGING}')}*")
    aside = (target.with_name(f".{target.name}{_OLD}"), target.with_name(f".{target.name}.old"))
    for path in (*aside, *staged):
        if path.is_dir() and not path.is_symlink():
            yield path


def _recover(target: Path) -> None:
    """Finish what a promote killed mid-way left (the caller holds the lock): the previous
    baseline put back if it was moved aside and the new one never arrived, then the debris
    removed. A staging directory was never acknowledged: it is dropped."""
    for path in list(_leftovers(target)):
        moved_aside = path.name in (f".{target.name}.old", f".{target.name}{_OLD}")
        if moved_aside and not target.exists() and (path / MANIFEST_FILE).is_file():
            path.rename(target)
        else:
            shutil.rmtree(path, ignore_errors=True)


def baseline_lock(
    baselines: Path, suite: str, *, wait_s: float | None = None
) -> contextlib.ExitStack:
    """Take the lock of ``baselines/<suite>`` (:mod:`._lock`); held until the returned stack
    is closed (use it as a context manager)."""
    held = contextlib.ExitStack()
    with writing(baselines / suite, "the run set"):  # its directory, or its lock beside it
        baselines.mkdir(parents=True, exist_ok=True)
        lock = baselines / f".{suite}{_LOCK}"
        held.enter_context(exclusive(lock, what=f"the baseline of suite {suite!r}", wait_s=wait_s))
    return held


def promote(
    runset: Path,
    *,
    baselines: Path,
    force: bool = False,
    keep: int = DEFAULT_KEEP,
    note: Mapping[str, Any] | None = None,
) -> Path:
    """Make a finished run set the baseline of its suite: ``baselines/<suite>/``.

    Refuses a run set that is not finished, and (unless ``force``) one that covers fewer
    scenarios, variants or runs than the baseline it would replace. The batch it replaces is
    kept in the baseline's history, up to ``keep`` batches in all (1: replace, keep nothing).

    Returns:
        The baseline directory.

    Raises:
        StoreError: the run set is unfinished or covers less, or the target cannot be written.
    """
    if keep < 1:
        raise StoreError(f"keep must be at least 1 (the new baseline itself), got {keep}")
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
    suite = str(manifest["suite"])  # a safe name: read_manifest checks it
    target = baselines / suite
    with baseline_lock(baselines, suite):
        _recover(target)
        if not force:
            _refuse_to_shrink(runset, target)
        copy_runset(
            runset,
            target,
            manifest_updates={
                "promoted_from": str(runset),
                "promoted_at": datetime.now(UTC).isoformat(),
                **(note or {}),
            },
            keep=keep,
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
