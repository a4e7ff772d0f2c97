"""The report's resilience section: how the agent did on the runs that met each kind of fault
(counted by :mod:`.builders._resilience_facts`), each rate with its Wilson interval."""

from __future__ import annotations

from collections.abc import Sequence

from trajguard.report._format import interval_label, md
from trajguard.results import RateCount, ResilienceGroup

__all__ = ["resilience_section"]

_LABELS = ("passed", "retried", "recovered or escalated", "no fabricated result")


def _rate(rate: RateCount | None) -> str:
    if rate is None:
        return "—"
    return (
        f"{100 * rate.hits / rate.n:.0f}% [{100 * rate.low:.0f}, {100 * rate.high:.0f}] "
        f"(n={rate.n})"
    )


def resilience_section(groups: Sequence[ResilienceGroup], alpha: float) -> list[str]:
    """The section's markdown lines (none when no run of any side had faults planned)."""
    if not groups:
        return []
    rows = [
        f"| {md(g.side)} | {md(g.fault_kind)} | {g.runs} | "
        + " | ".join(
            _rate(r)
            for r in (g.passed, g.retried, g.recovered_or_escalated, g.no_fabricated_result)
        )
        + " |"
        for g in groups
    ]
    headers = " | ".join(_LABELS)
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
