"""Resilience rates per fault kind: how the agent did on the runs that met each kind of fault.

Read from the run tables (the ``fault_kinds`` and resilience columns of chaos runs): for each
side and each fault kind, the runs that met it, and among them the share that passed, retried,
recovered or escalated, and (where the scenario checks it) presented no fabricated result, each
with its Wilson interval. A run that met two kinds counts under both.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import pandas as pd

from trajguard import stats as st
from trajguard.report._format import interval_label, md

__all__ = ["resilience_section"]

_RATES = (
    ("passed", "passed"),
    ("retried_after_fault", "retried"),
    ("recovered_or_escalated", "recovered or escalated"),
    ("no_fabricated_result", "no fabricated result"),
)


def _kinds(cell: Any) -> dict[str, int]:
    if cell is None or (isinstance(cell, float) and math.isnan(cell)):
        return {}
    pairs = cell.items() if isinstance(cell, Mapping) else cell
    return {str(k): int(v) for k, v in pairs if int(v) > 0}


def _rate(values: pd.Series, alpha: float) -> str:
    judged = [bool(v) for v in values if v is not None and not pd.isna(v)]
    if not judged:
        return "—"
    hits, n = sum(judged), len(judged)
    low, high = st.wilson_interval(hits, n, 1 - alpha)
    return f"{100 * hits / n:.0f}% [{100 * low:.0f}, {100 * high:.0f}] (n={n})"


def resilience_section(sides: Mapping[str, pd.DataFrame], alpha: float) -> list[str]:
    """The section's markdown lines (none when no run of any side had faults planned)."""
    rows: list[str] = []
    for side, table in sides.items():
        if "fault_kinds" not in table.columns or "status" not in table.columns:
            continue
        runs = table[table["status"] != "harness_error"]
        kinds = [_kinds(cell) for cell in runs["fault_kinds"]]
        planned = runs["faults_injected"].notna()
        if not planned.any():
            continue
        met = sorted({kind for found in kinds for kind in found})
        untouched = [bool(p) and not k for p, k in zip(planned, kinds, strict=True)]
        groups = [(kind, [kind in found for found in kinds]) for kind in met]
        groups.append(("(none met)", untouched))
        for kind, mask in groups:
            chosen = runs[pd.Series(mask, index=runs.index, dtype=bool)]
            if chosen.empty:
                continue
            cells = [_rate(chosen[c], alpha) if c in chosen.columns else "—" for c, _ in _RATES]
            rows.append(f"| {md(side)} | {md(kind)} | {len(chosen)} | " + " | ".join(cells) + " |")
    if not rows:
        return []
    headers = " | ".join(label for _, label in _RATES)
    return [
        "",
        "## Resilience by fault kind",
        "",
        "Runs with faults planned (`faults:`), grouped by the kind of fault they met (a run "
        "that met two kinds counts under both); each rate over the runs of the group judged on "
        f"it, with its {interval_label(alpha)} (Wilson). Retried, recovered and fabricated are "
        "judged only on runs that met a fault that denied them a right answer (not `slow`).",
        "",
        f"| side | fault kind | runs | {headers} |",
        "|---|---|---:|---|---|---|---|",
        *rows,
    ]
