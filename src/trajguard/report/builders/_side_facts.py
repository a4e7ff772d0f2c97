"""What a report says of each side: its label, path and the provenance its manifest records
(models, git sha, times, machine, cost, why its batch stopped, what another tool's logs lacked)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from trajguard.report.builders._cost_facts import batch_cost
from trajguard.results import Scalar, Side

if TYPE_CHECKING:
    import pandas as pd

    from trajguard.store import RunSet

__all__ = ["side_facts"]


def _label(role: str, runs: pd.DataFrame) -> str:
    """``baseline (base)`` when the side's runs are all of one variant."""
    variants: Any = runs["variant"].unique() if "variant" in runs.columns else []
    return f"{role} ({variants[0]})" if len(variants) == 1 else role


def _text(value: Any) -> str | None:
    """A manifest value as the provenance table shows it (``None``: shown as a dash)."""
    if isinstance(value, list):
        value = ", ".join(map(str, value))
    return None if value in (None, "") else str(value)


def _texts(value: Any) -> tuple[str, ...]:
    if isinstance(value, list):
        return tuple(map(str, value))
    return () if value in (None, "") else (str(value),)


def _scalar(value: Any) -> Scalar:
    if value is None or isinstance(value, str | bool | int):
        return value
    if isinstance(value, float) and math.isfinite(value):
        return value
    return str(value)


def _machine(manifest: Mapping[str, Any]) -> dict[str, Scalar] | None:
    value = manifest.get("machine")
    if not isinstance(value, Mapping):
        return None
    return {str(k): _scalar(v) for k, v in value.items()}


def side_facts(role: str, runset: RunSet) -> Side:
    """What the report says of one side: its label, path and manifest."""
    manifest = runset.manifest
    suite = manifest.get("suite")
    return Side(
        label=_label(role, runset.runs),
        path=str(runset.path),
        suite=str(suite) if suite else None,
        models=_texts(manifest.get("models")),
        git_sha=_text(manifest.get("git_sha")),
        started_at=_text(manifest.get("started_at")),
        finished_at=_text(manifest.get("finished_at")),
        trajguard_version=_text(manifest.get("trajguard_version")),
        batch_seed=_text(manifest.get("batch_seed")),
        config_hashes={
            str(k): str(v) for k, v in dict(manifest.get("config_hashes") or {}).items()
        },
        machine=_machine(manifest),
        history_batches=_texts(manifest.get("history_batches")),
        status=_text(manifest.get("status")),
        batch_id=_text(manifest.get("batch_id")),
        cost=batch_cost(runset.runs),
        **_imported(manifest),
        **_stopped(manifest),
    )


def _stopped(manifest: Mapping[str, Any]) -> dict[str, Any]:
    """Why the batch stopped before its plan, and what a budget left unrun."""
    stopped = manifest.get("stopped")
    if not isinstance(stopped, Mapping) or manifest.get("status") == "finished":
        return {}
    not_run = stopped.get("not_run") if stopped.get("by") == "budget" else None
    return {
        "stopped": _text(stopped.get("why")),
        "budget_not_run": {
            str(k): int(v)
            for k, v in (not_run.items() if isinstance(not_run, Mapping) else ())
            if isinstance(v, int) and not isinstance(v, bool) and v > 0
        },
    }


def _imported(manifest: Mapping[str, Any]) -> dict[str, Any]:
    """The import facts of a run set read from another tool's logs (none for trajguard's own)."""
    imported = manifest.get("imported")
    if not isinstance(imported, Mapping):
        return {}
    return {
        "imported_from": _text(imported.get("source")),
        "lacks": _texts(imported.get("lacks")),
        "pass_rule": _text(imported.get("pass_rule")),
        "source_files": _texts(imported.get("files")),
        "source_figures": _texts(imported.get("figures")),
    }
