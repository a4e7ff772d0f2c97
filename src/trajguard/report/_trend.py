"""The trend section: a suite's nights from the store, per scenario ("since when", flaky, drift)."""

from __future__ import annotations

from trajguard.report._format import md
from trajguard.results import BaselineDrift, ScenarioTrend, TrendFacts

__all__ = ["render_trend", "trend_section"]

_SHOWN = 10
"""Nights shown per scenario in the table (the newest; every night is in ``--json``)."""


def _pct(value: float) -> str:
    return f"{100 * value:.0f}%"


def _status(s: ScenarioTrend) -> str:
    if s.change is not None:
        return (
            f"**changed since {md(s.change.date)} ({md(s.change.night_id, limit=24)})**: "
            f"{_pct(s.change.before)} → {_pct(s.change.after)} (scan p = {s.change.p_value:.3f})"
        )
    if s.flaky:
        assert s.dispersion is not None
        return (
            f"**flaky**: nights vary {s.dispersion.ratio:.1f}× their runs' noise "
            f"(Tarone p = {s.dispersion.p_value:.3f}); not a regression"
        )
    scanned = f" (scan p = {s.change_p:.2f})" if s.change_p is not None else " (too few nights)"
    return "steady" + scanned


def _drift(d: BaselineDrift | None, what: str) -> str:
    if d is None:
        return ""
    days = f"{d.age_days:.0f}" if d.age_days is not None else ""
    age = f", {days} {'day' if days == '1' else 'days'} old" if days else ""
    moved = "**moved beyond the band**" if d.beyond_band else "within the band"
    return (
        f"{what} `{md(d.batch, limit=24)}`{age}: {_nights(d.nights)} since, pass rate "
        f"{100 * d.difference:+.0f} pts (95% CI {100 * d.low:+.0f} to {100 * d.high:+.0f}; "
        f"newest nights {100 * d.recent_difference:+.0f} pts), {moved}"
    )


def _scenario(s: ScenarioTrend) -> list[str]:
    lines = ["", f"### {md(s.scenario)} ({md(s.variant)}): {_status(s)}"]
    for d, what in ((s.drift, "baseline"), (s.anchor_drift, "pinned anchor")):
        if d is not None:
            lines += ["", _drift(d, what)]
    judged = any(p.judge_disagreement is not None for p in s.points[-_SHOWN:])
    judge_head, judge_rule = (" judge disagreement |", "---:|") if judged else ("", "")
    lines += [
        "",
        "| date | night | pass rate (95% CI) | crash rate | tool mix vs baseline | tokens |"
        + judge_head,
        "|---|---|---|---|---|---:|" + judge_rule,
    ]
    for p in s.points[-_SHOWN:]:
        tools = f"TVD {p.tool_distance:.2f}" if p.tool_distance is not None else "–"
        tokens = f"{p.mean_tokens:.0f}" if p.mean_tokens is not None else "–"
        judge = ""
        if judged:
            shown = p.judge_disagreement
            judge = f" {_pct(shown) if shown is not None else '–'} |"
        lines.append(
            f"| {md(p.date)} | {md(p.night_id, limit=24)} | {p.passes}/{p.runs} = "
            f"{_pct(p.pass_rate)} ({_pct(p.pass_low)}–{_pct(p.pass_high)}) | "
            f"{_pct(p.crash_rate)} ({_pct(p.crash_low)}–{_pct(p.crash_high)}) | {tools} | "
            f"{tokens} |" + judge
        )
    return lines


def trend_section(trend: TrendFacts | None) -> list[str]:
    """The report's "Trend" section (nothing without a store)."""
    if trend is None:
        return []
    alarm = (
        f"; on simulated A/A series of 30 nights it raised an alarm on "
        f"{100 * trend.false_alarm_rate:.1f}% of scenarios"
        if trend.false_alarm_rate is not None
        else ""
    )
    lines = [
        "",
        f"## Trend ({_nights(trend.nights)} of suite {md(trend.suite)} in {md(trend.store)})",
        "",
        f'"Since when" is a single change-point scan of each scenario\'s pass counts, its '
        f"p-value from up to {trend.simulations} simulated series without a change (binomial "
        "noise, or beta-binomial when the nights spread beyond it), named at alpha "
        f"{trend.alpha:g}{alarm}. A scenario whose nights vary more than their runs' binomial "
        "noise explains (Tarone's overdispersion test at the same level) is named flaky, not "
        "regressed. Drift: the nights since the baseline, pooled, and the newest 3, against it; "
        f"beyond the band = significant and more than {100 * trend.band:g} pts. "
        "Method: `trajguard docs nights`.",
    ]
    if trend.promotion is not None:
        verb = "promoted" if trend.promotion.promoted else "not promoted"
        lines += ["", f"**Baseline: {verb}.** {md(trend.promotion.reason, limit=400)}"]
    for scenario in trend.scenarios:
        lines += _scenario(scenario)
    return lines


def render_trend(trend: TrendFacts) -> str:
    """``trajguard trend``'s text: the trend section as a markdown document."""
    return "\n".join(trend_section(trend)).lstrip("\n").replace("## Trend", "# Trend", 1) + "\n"


def _nights(count: int) -> str:
    return f"{count} night" if count == 1 else f"{count} nights"
