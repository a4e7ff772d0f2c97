"""``trajguard compare`` of eval logs: a side that is an Inspect, promptfoo or Harbor log is
imported first, into the report's folder (``imported/baseline``, ``imported/candidate``), so the
report's run commands open it like any run set."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from trajguard.importers import ImportedBatch, detect_source, read_logs, write_batch
from trajguard.pipeline._outputs import timestamped
from trajguard.store import read_manifest

__all__ = ["Sides", "resolve_sides"]


@dataclass(frozen=True, kw_only=True)
class Sides:
    """The two run sets to compare and the report's path, once any log is imported."""

    baseline: Path
    candidate: Path
    report: Path
    imported: tuple[str, ...] = ()
    """The sides that were imported (``baseline``, ``candidate``)."""


def resolve_sides(baseline: Path, candidate: Path, *, report: Path | None, reports: Path) -> Sides:
    """Import whichever side is an eval log; the report's path (``report``, else
    ``reports/<suite>-<time>/report.md``, the suite being the candidate's).

    Raises:
        SourceLogError: a log cannot be read.
        StoreError: a run set's manifest cannot be read, or an imported side cannot be written.
    """
    batches: dict[str, ImportedBatch] = {}
    for role, path in (("baseline", baseline), ("candidate", candidate)):
        kind = detect_source(path)
        if kind is not None:
            batches[role] = read_logs(kind, [path])
    if "candidate" in batches:
        suite = batches["candidate"].suite
    else:
        suite = str(read_manifest(candidate).get("suite") or "suite")
    target = report or timestamped(reports, suite) / "report.md"
    paths = {"baseline": baseline, "candidate": candidate}
    for role, batch in batches.items():
        paths[role] = target.parent / "imported" / role
        write_batch(batch, paths[role])
    return Sides(
        baseline=paths["baseline"],
        candidate=paths["candidate"],
        report=target,
        imported=tuple(batches),
    )
