"""Floors and ceilings in words: each bar's sentence (what the runs show, and the runs that
would show it at the observed rate), the one-line summary and the report's section."""

from __future__ import annotations

from trajguard._text import counted
from trajguard.comparison import FloorCheck, FloorResult, FloorState
from trajguard.report._format import md
from trajguard.stats import MAX_RUNS_TO_SHOW

__all__ = ["FLOOR_MARK", "floor_words", "floors_section", "floors_summary"]

FLOOR_MARK = {
    FloorState.MET: "🟢 met",
    FloorState.NOT_SHOWN: "🟠 not shown",
    FloorState.BREACHED: "🔴 breached",
    FloorState.UNKNOWN: "⚫ unknown",
}
"""How each state of a bar is shown."""

_BAR_LABEL = {
    "min_pass_rate": "pass rate ≥",
    "max_crash_rate": "crash rate ≤",
}


def _pct(value: float) -> str:
    return f"{100 * value:.3g}%"


def _usd(value: float) -> str:
    return f"${value:.3g}"


def bar_label(check: FloorCheck) -> str:
    """The bar as a reader states it: "pass rate ≥ 80%"."""
    if check.bar == "max_cost_usd_per_run":
        return f"cost per run ≤ {_usd(check.limit)} in ≥ {_pct(check.share or 0.0)} of runs"
    return f"{_BAR_LABEL[check.bar]} {_pct(check.limit)}"


def _to_show(check: FloorCheck, *, ceiling: bool, floor: float) -> str:
    if check.runs_needed is not None:
        return (
            f"; at this {'share' if check.bar == 'max_cost_usd_per_run' else 'rate'} about "
            f"{counted(check.runs_needed, 'run')} would show it on 8 nights in 10"
        )
    side = f"below the ceiling {_pct(floor)}" if ceiling else f"above {_pct(floor)}"
    estimate = check.estimate if check.estimate is not None else 0.0
    if (ceiling and estimate >= floor) or (not ceiling and estimate <= floor):
        return f"; at this rate no number of runs would show it (the estimate is not {side})"
    return f"; at this rate more than {MAX_RUNS_TO_SHOW:,} runs would be needed"


def _cost_words(check: FloorCheck, conf: str) -> str:
    share = _pct(check.share or 0.0)
    seen = (
        f"{check.count}/{check.runs} runs cost at most {_usd(check.limit)} "
        f"({_pct(check.estimate or 0.0)})"
    )
    if check.state is FloorState.MET:
        low = _pct(check.bound or 0.0)
        return f"{seen}: the {conf} lower bound of that share {low} reaches {share}"
    if check.state is FloorState.BREACHED:
        upper = _pct(check.other_bound or 0.0)
        return f"{seen}: even the {conf} upper bound of that share {upper} is below {share}"
    return (
        f"{seen}: the {conf} lower bound of that share {_pct(check.bound or 0.0)} is below "
        f"{share}, so the ceiling is not shown"
        + _to_show(check, ceiling=False, floor=check.share or 0.0)
    )


def floor_words(check: FloorCheck) -> str:
    """What the runs show of one bar, in one sentence."""
    conf = f"{100 * check.confidence:.3g}%"
    ceiling = check.bar != "min_pass_rate"
    if check.state is FloorState.UNKNOWN:
        if check.bar == "max_cost_usd_per_run" and check.missing:
            return (
                f"cost unknown: {check.missing} of {counted(check.runs, 'run')} recorded no cost, "
                "so the ceiling cannot be shown"
            )
        return f"unknown: {counted(check.runs, 'run')} to judge it on, so it cannot be shown"
    if check.bar == "max_cost_usd_per_run":
        return _cost_words(check, conf)
    estimate, bound, other = check.estimate or 0.0, check.bound or 0.0, check.other_bound or 0.0
    did = "passed" if check.bar == "min_pass_rate" else "crashed"
    seen = f"{check.count}/{check.runs} {did} ({_pct(estimate)})"
    kind, limit = ("ceiling" if ceiling else "floor"), _pct(check.limit)
    near, far = ("upper", "lower") if ceiling else ("lower", "upper")
    if check.state is FloorState.MET:
        verb = "is within" if ceiling else "reaches"
        return f"{seen}: the {conf} {near} bound {_pct(bound)} {verb} the {kind} {limit}"
    wrong = "above" if ceiling else "below"
    if check.state is FloorState.BREACHED:
        return f"{seen}: even the {conf} {far} bound {_pct(other)} is {wrong} the {kind} {limit}"
    return (
        f"{seen}: the {conf} {near} bound {_pct(bound)} is {wrong} the {kind} {limit}, so the "
        f"{kind} is not shown" + _to_show(check, ceiling=ceiling, floor=check.limit)
    )


def floors_summary(result: FloorResult, *, listed: int = 5) -> str:
    """The floors in words for a terminal: every bar met, or how many were not, then each of
    the first ``listed`` of those in its sentence."""
    total = counted(len(result.checks), "bar")
    if result.met:
        return f"floors: all {total} met"
    lines = [f"floors: {len(result.failed)} of {total} not met (exit 1)"]
    lines += [f"  {c.scenario} ({c.variant}): {floor_words(c)}" for c in result.failed[:listed]]
    if len(result.failed) > listed:
        lines.append(f"  and {len(result.failed) - listed} more (see the report)")
    lines += [f"  {s}: it has a floor but no run" for s in result.unchecked]
    return "\n".join(lines)


def floors_section(result: FloorResult | None, *, ab: bool = False) -> list[str]:
    """The report's section on floors (nothing when no scenario has one)."""
    if result is None:
        return []
    consequence = "" if result.met else " — the command exits 1"
    met = (
        "all met"
        if result.met
        else f"{len(result.failed)} of {counted(len(result.checks), 'bar')} not met"
    )
    lines = [
        "",
        "## Floors",
        "",
        f"**Floors: {met}**{consequence}. A bar is met only when its one-sided bound clears it "
        "(exact Clopper-Pearson bounds of each rate, and of the share of runs within a cost "
        "ceiling), so a bar the true value only reaches is met on at most 1 − confidence of "
        'nights; "not shown" says the runs are too few or too close to tell, "breached" that '
        "the value is worse than the bar with confidence.",
        "",
    ]
    if ab:
        lines += [
            "| scenario | variant | bar | result | what the runs show |",
            "|---|---|---|---|---|",
        ]
    else:
        lines += ["| scenario | bar | result | what the runs show |", "|---|---|---|---|"]
    for check in result.checks:
        cells = [md(check.scenario, limit=40)]
        if ab:
            cells.append(md(check.variant, limit=30))
        cells += [bar_label(check), FLOOR_MARK[check.state], md(floor_words(check), limit=400)]
        lines.append("| " + " | ".join(cells) + " |")
    for scenario in result.unchecked:
        lines.append(f"- Scenario {md(scenario)} has a floor but no run: not met.")
    return lines
