"""The report section of an escalated night: the design, the runs spent, why each stopped."""

from __future__ import annotations

from collections.abc import Mapping

from trajguard._metric_table import metric_description
from trajguard._text import counted
from trajguard.comparison import EscalationPlan, EscalationStop
from trajguard.report._format import md

__all__ = ["escalation_section"]


def escalation_section(
    design: EscalationPlan, stops: Mapping[str, EscalationStop], *, unit: str = "runs"
) -> str:
    """The design (levels, looks, lean rule), then one row per scenario: runs spent, looks and
    why it stopped."""
    spent = sum(s.runs for s in stops.values())
    escalated = [s for s in stops.values() if s.looks]
    later = ", ".join(f"{t:.2g}" for t in design.thresholds)
    lines = [
        "## Escalation design",
        "",
        f"**{len(escalated)} of {counted(len(stops), 'scenario')} got more runs; {spent} candidate "
        f"{unit} in all (budget {design.max_runs} per scenario).** The design decides the "
        "verdicts of the gating metrics above (and the exit code); the tables show the tests "
        "on every run made.",
        "",
        f"First look at {design.first} {unit} per scenario: the whole report at "
        f"α = {design.alpha_first:.3g}. A scenario that did not regress there and whose "
        f"combined test gave p ≤ {design.lean:g} (it leans towards a change) gets more runs, "
        f"in looks at {', '.join(map(str, design.looks[1:]))} {unit}; quiet scenarios stop. "
        f"At each later look its combined test on all its runs must reach {later} "
        f"(linear spending of α = {design.alpha - design.alpha_first:.3g} over these looks, "
        f"divided over the {counted(design.scenarios, 'scenario')} that could have been "
        "escalated), with "
        "a gating metric beyond its band; it stops when it no longer leans, or at the budget."
        f" Family-wise error at most {design.alpha:g} in all (union bound)."
        + _own_looks(design, unit),
        "",
        f"| scenario | {unit} | looks (runs: p / level) | stopped because | decided on |",
        "|---|---:|---|---|---|",
    ]
    for name, stop in sorted(stops.items()):
        looks = "; ".join(f"{x.runs}: {x.p_value:.2g} / {x.threshold:.2g}" for x in stop.looks)
        decided = ", ".join(metric_description(m).label for m in stop.regressed) or "—"
        lines.append(
            f"| {md(name, limit=40)} | {stop.runs} | {looks or '—'} | {md(stop.reason, limit=120)} "
            f"| {decided} |"
        )
    return "\n".join(lines)


def _own_looks(design: EscalationPlan, unit: str) -> str:
    own = "; ".join(
        f"{md(name, limit=40)} at {', '.join(map(str, looks))}"
        for name, looks in sorted(design.own_looks.items())
    )
    return f" Scenarios with their own `runs:` have their own looks ({unit}): {own}." if own else ""
