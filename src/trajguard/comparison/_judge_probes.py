"""The judges' probes of a batch, read from its manifest (pure: the manifest's mapping in, the
probes out; see :mod:`trajguard.runner` for how a batch asks its judges before the first run)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from trajguard.comparison._judge_results import JudgeProbe

__all__ = ["judge_probes"]


def judge_probes(
    manifest: Mapping[str, Any], side: Literal["baseline", "candidate"]
) -> tuple[JudgeProbe, ...]:
    """The probes recorded in ``manifest`` (none for a batch that recorded none, or a record
    that is not the shape a batch writes)."""
    records = manifest.get("judge_probes")
    if not isinstance(records, list):
        return ()
    found = []
    for record in records:
        if not isinstance(record, Mapping) or not isinstance(record.get("probes"), list):
            continue
        for probe in record["probes"]:
            if not isinstance(probe, Mapping):
                continue
            passed = probe.get("passed")
            error = probe.get("error")
            found.append(
                JudgeProbe(
                    side=side,
                    criterion=str(record.get("criterion")),
                    model=str(record.get("model")),
                    embedded=record.get("embedded") is True,
                    scenarios=tuple(str(s) for s in record.get("scenarios") or ()),
                    answer=str(probe.get("answer")),
                    verdicts=tuple(
                        v if v in ("PASS", "FAIL") else None for v in probe.get("verdicts") or ()
                    ),
                    passed=passed if isinstance(passed, bool) else None,
                    error=None if error is None else str(error),
                )
            )
    return tuple(found)
