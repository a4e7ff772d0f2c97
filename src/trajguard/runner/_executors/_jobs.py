"""Runs and rows as JSON: what travels between the batch, the Ray driver process and workers.

Only data crosses a process boundary — the planned run, its resolved scenario and the fields of
the batch a row carries, and the row back — never a pickled object of trajguard's; the code
runs from the package installed on every node. The embedded model's address per node travels
beside the job.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict
from datetime import datetime
from typing import Any

from trajguard.runner._plan import RunSpec
from trajguard.suite import ResolvedScenario

__all__ = ["BATCH_FIELDS", "Job", "decode_job", "decode_row", "encode_job", "encode_row"]

BATCH_FIELDS = ("batch_id", "suite", "git_sha", "trajguard_version", "batch_seed")
"""The manifest fields a run needs: those its row carries (:func:`trajguard.runner.build_row`)
and the batch seed its fault plan is derived from."""

Job = tuple[RunSpec, ResolvedScenario, dict[str, Any]]


def encode_job(spec: RunSpec, arm: ResolvedScenario, batch: Mapping[str, Any]) -> str:
    return json.dumps(
        {
            "spec": asdict(spec),
            "arm": arm.model_dump(mode="json", by_alias=True),
            "batch": {key: batch.get(key) for key in BATCH_FIELDS},
        }
    )


def decode_job(text: str) -> Job:
    data = json.loads(text)
    return (
        RunSpec(**data["spec"]),
        ResolvedScenario.model_validate(data["arm"]),
        dict(data["batch"]),
    )


def encode_row(row: Mapping[str, Any]) -> str:
    return json.dumps({**row, "started_at": row["started_at"].isoformat()})


def decode_row(text: str) -> dict[str, Any]:
    row: dict[str, Any] = json.loads(text)
    row["started_at"] = datetime.fromisoformat(row["started_at"])
    return row
