"""Import eval logs of another tool as a run set: the library call behind ``trajguard import``."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from trajguard._files import is_safe_name
from trajguard.errors import SourceLogError, UsageError
from trajguard.importers._model import ImportedBatch, ImportOptions
from trajguard.importers._registry import reader
from trajguard.importers._write import write_batch

__all__ = ["ImportResult", "import_logs", "read_logs"]


@dataclass(frozen=True, kw_only=True)
class ImportResult:
    """What an import wrote.

    Attributes:
        out: the run set written.
        batch: what was read.
        scenarios: how many scenarios it holds.
    """

    out: Path
    batch: ImportedBatch
    scenarios: int


def read_logs(
    kind: str, paths: Sequence[Path], options: ImportOptions | None = None
) -> ImportedBatch:
    """Read eval logs of one source kind (nothing written).

    Raises:
        UsageError: an unknown kind, no path, or a suite name that is not one.
        SourceLogError: a log cannot be read, or holds no runs.
    """
    options = options or ImportOptions()
    if not paths:
        raise UsageError(f"name at least one {kind} log to import")
    if options.suite is not None and not is_safe_name(options.suite):
        raise UsageError(
            f"--suite {options.suite!r} is not a suite name",
            hint="letters, digits, '_', '.', '-', starting with a letter or digit",
        )
    for path in paths:
        if not Path(path).exists():
            raise SourceLogError(f"no such {kind} log", file=path)
    batch = reader(kind).read([Path(p) for p in paths], options)
    if not batch.runs:
        raise SourceLogError(
            f"the {kind} logs hold no runs", file=paths[0], hint="import a log of a finished eval"
        )
    if not is_safe_name(batch.suite):
        batch = replace(batch, suite=_safe(batch.suite))
    return batch


def import_logs(
    kind: str,
    paths: Sequence[Path],
    out: Path,
    options: ImportOptions | None = None,
    *,
    progress: Callable[[int, int], None] | None = None,
) -> ImportResult:
    """Read eval logs of one source kind and write them as a run set at ``out``.

    Raises:
        UsageError, SourceLogError: as :func:`read_logs`.
        StoreError: ``out`` is not a new or empty directory, or cannot be written.
    """
    batch = read_logs(kind, paths, options)
    write_batch(batch, out, progress=progress)
    return ImportResult(out=out, batch=batch, scenarios=len({r.scenario for r in batch.runs}))


def _safe(name: str) -> str:
    """A suite name made of a source's task name (``inspect_evals/gsm8k`` → ``gsm8k``-like)."""
    cleaned = "".join(ch if ch.isalnum() or ch in "_.-" else "-" for ch in name).strip("-.")
    return cleaned if cleaned and cleaned[0].isalnum() else f"imported-{cleaned or 'suite'}"
