"""What every executor offers the batch runner, and the row of a run its executor lost."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol

from trajguard import store
from trajguard.outcome import HARNESS_ERROR, is_behavioural
from trajguard.runner._plan import Plan, RunSpec
from trajguard.runner._rows import build_row
from trajguard.suite import ResolvedScenario, import_object

__all__ = ["LOST", "RunExecutor", "harness_row", "lost_run_ids"]


class RunExecutor(Protocol):
    """Turns one planned run into its row; the batch runner does everything else (plan, seeds,
    journal, one part file per finished run, the manifest, the progress display)."""

    @property
    def record(self) -> Mapping[str, Any]:
        """What the manifest records of this executor (kind, settings, cluster)."""

    @property
    def slots(self) -> int | None:
        """Runs it can hold at once (a Ray cluster's), or ``None``: the batch's concurrency."""

    async def run(self, spec: RunSpec, arm: ResolvedScenario) -> dict[str, Any]:
        """Run ``spec`` once and return its row (never raises for what the agent does)."""

    def keep_server_log(
        self, runset: Path, plan: Plan, rows: Sequence[Mapping[str, Any]]
    ) -> Path | None:
        """Copy the embedded model server's log into ``runset`` when a model call of ``rows``
        failed (the server deletes it when it stops); the copy's path, else ``None``."""


LOST = "RunLost"
"""The ``error_type`` of a run whose worker died under it (node lost, out of memory, task
killed): a ``harness_error`` that ``--resume`` redoes."""


def harness_row(
    spec: RunSpec,
    arm: ResolvedScenario,
    batch: Mapping[str, Any],
    *,
    started_at: datetime,
    duration_s: float,
    error_type: str,
    message: str,
) -> dict[str, Any]:
    """The row of a run its executor could not finish: a harness error, never judged."""
    row = build_row(
        spec=spec,
        batch=batch,
        model=arm.model,
        status=HARNESS_ERROR,
        started_at=started_at,
        duration_s=duration_s,
        trajectory=None,
        criteria=arm.pass_criteria,
        resolve=import_object,
        error_message=message[: store.MESSAGE_CHARS],
    )
    row["error_type"] = error_type
    return row


def lost_run_ids(runset: Path) -> set[str]:
    """The runs of a run set that ``--resume`` redoes besides the missing ones: every
    ``harness_error`` (the infrastructure failed, not the agent: a lost worker, a provider that
    stayed unreachable or rate limited). The redone run's row replaces the old one."""
    if not Path(runset).is_dir():
        return set()
    table = store.read_table(runset)
    ids = table.column("run_id").to_pylist()
    statuses = table.column("status").to_pylist()
    return {
        run_id for run_id, status in zip(ids, statuses, strict=True) if not is_behavioural(status)
    }
