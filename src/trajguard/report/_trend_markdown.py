"""The trend section: a suite's nights from the store, per scenario (the monitoring procedure's
alarms, flaky, drift)."""

from __future__ import annotations

from trajguard._text import counted
from trajguard.report._format import md, usd
from trajguard.results import BaselineDrift, Monitoring, ScenarioTrend, TrendAlarm, TrendFacts

__all__ = ["render_trend", "trend_section"]

_SHOWN = 10
"""Nights shown per scenario in the table (the newest; every night is in ``--json``)."""


def _pct(value: float) -> str:
    return f"{100 * value:.0f}%"


_WHAT = {"pass_rate": "pass rate", "crash_rate": "crash rate"}

GONE = 0.025
"""A path's share of the runs below which the tool mix reads "gone" (none of 20 runs)."""


def _path_alarm(a: TrendAlarm, since: str, raised: str) -> str:
    path = md(a.path or "")
    if a.metric == "tool_usage":
        share = f"{path} {_pct(a.before)} → {_pct(a.after)} of the runs"
        gone = f"{path} gone ({_pct(a.before)} → {_pct(a.after)} of the runs)"
        gained = f", {md(a.gained)} up" if a.gained else ""
        if a.shape == "drift" and a.slope is not None:
            return (
                f"the tool mix drifting since about {since}: {share} "
                f"({100 * a.slope:+.1f} pts a night{gained}; {raised})"
            )
        moved = gone if a.after < GONE else share
        return f"the tool mix moved since {since}: {moved}{gained} ({raised})"
    way = "rising" if a.shape == "drift" else "rose"
    return (
        f"runs failing along {path} {way} since {'about ' if a.shape == 'drift' else ''}{since}: "
        f"{_pct(a.before)} → {_pct(a.after)} of the runs ({raised})"
    )


def _alarm(a: TrendAlarm) -> str:
    what = _WHAT.get(a.metric, a.metric)
    since = f"{md(a.start)} ({md(a.start_night_id, limit=24)})"
    raised = f"alarm raised {md(a.raised)}, CUSUM {a.statistic:.1f} > {a.threshold:.1f}"
    if a.path is not None:
        text = _path_alarm(a, since, raised)
    elif a.shape == "drift" and a.slope is not None:
        way = "drifting down" if a.direction == "drop" else "drifting up"
        text = (
            f"{what} {way} since about {since}: {100 * a.slope:+.1f} pts a night, "
            f"{_pct(a.before)} → {_pct(a.after)} by {md(a.raised)} ({raised})"
        )
    else:
        verb = "dropped" if a.direction == "drop" else "rose"
        text = f"{what} {verb} since {since}: {_pct(a.before)} → {_pct(a.after)} ({raised})"
    return f"**{text}**" if a.harmful else text


def _status(s: ScenarioTrend) -> str:
    if s.alarms:
        return _alarm(s.alarms[-1])
    if s.flaky:
        assert s.dispersion is not None
        return (
            f"**flaky**: nights vary {s.dispersion.ratio:.1f}× their runs' noise "
            f"(Tarone p = {s.dispersion.p_value:.3f}); not a regression"
        )
    return "steady (no alarm)"


def _drift(d: BaselineDrift | None, what: str) -> str:
    if d is None:
        return ""
    days = f"{d.age_days:.0f}" if d.age_days is not None else ""
    age = f", {days} {'day' if days == '1' else 'days'} old" if days else ""
    moved = "**moved beyond the band**" if d.beyond_band else "within the band"
    return (
        f"{what} `{md(d.batch, limit=24)}`{age}: {counted(d.nights, 'night')} since, pass rate "
        f"{100 * d.difference:+.0f} pts (95% CI {100 * d.low:+.0f} to {100 * d.high:+.0f}; "
        f"newest nights {100 * d.recent_difference:+.0f} pts), {moved}"
    )


def _scenario(s: ScenarioTrend) -> list[str]:
    lines = ["", f"### {md(s.scenario)} ({md(s.variant)}): {_status(s)}"]
    if s.alarms and s.flaky:
        assert s.dispersion is not None
        lines += ["", f"Flaky: nights vary {s.dispersion.ratio:.1f}× their runs' noise."]
    if len(s.alarms) > 1:
        lines += ["", "Earlier alarms: " + "; ".join(_alarm(a) for a in s.alarms[:-1]) + "."]
    for d, what in ((s.drift, "baseline"), (s.anchor_drift, "pinned anchor")):
        if d is not None:
            lines += ["", _drift(d, what)]
    judged = any(p.judge_disagreement is not None for p in s.points[-_SHOWN:])
    judge_head, judge_rule = (" judge disagreement |", "---:|") if judged else ("", "")
    priced = any(p.mean_cost_usd is not None for p in s.points[-_SHOWN:])
    cost_head, cost_rule = (" cost per run (USD) |", "---:|") if priced else ("", "")
    lines += [
        "",
        "| date | night | pass rate (95% CI) | crash rate | tool mix vs baseline | tokens |"
        + judge_head
        + cost_head,
        "|---|---|---|---|---|---:|" + judge_rule + cost_rule,
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
            f"{tokens} |" + judge + (f" {usd(p.mean_cost_usd)} |" if priced else "")
        )
    return lines


def trend_section(trend: TrendFacts | None) -> list[str]:
    """The report's "Trend" section (nothing without a store)."""
    if trend is None:
        return []
    lines = [
        "",
        f"## Trend ({counted(trend.nights, 'night')} of suite {md(trend.suite)} in "
        f"{md(trend.store)})",
        "",
        *_method(trend.monitoring),
        "A scenario whose nights vary more than their runs' binomial noise explains (Tarone's "
        f"overdispersion test at {trend.alpha:g}) is named flaky. Drift: the nights since the "
        "baseline, pooled (flaky nights count as fewer runs), and the newest 3, against it; "
        f"beyond the band = significant and more than {100 * trend.band:g} pts (shown, not an "
        "alarm). Method: `trajguard docs nights`.",
    ]
    if trend.promotion is not None:
        verb = "promoted" if trend.promotion.promoted else "not promoted"
        lines += ["", f"**Baseline: {verb}.** {md(trend.promotion.reason, limit=400)}"]
    for scenario in trend.scenarios:
        lines += _scenario(scenario)
    return lines


def _method(m: Monitoring | None) -> list[str]:
    if m is None:
        return []
    return [
        f"Alarms: a {m.method} (pass rate down and up, crash rate up{_paths(m)}), run night by "
        f"night from the first night read; threshold {m.threshold:.2f}{_rise_h(m)}{_path_h(m)} "
        f"(up to {m.flaky_extra:.2f} more for flaky nights), "
        f"k = {m.allowance:g}, judged after {counted(m.warmup, 'night')}. "
        "Calibrated so that an unchanged suite raises a false alarm once "
        f"per {m.target_arl:.0f} nights on average (a pass-rate drop's statistic: once per "
        f"{m.statistic_arl:,.0f}); an alarm is raised once, on the night its CUSUM crosses, and "
        f"the stream restarts from the change.{_sees(m)}",
        "",
    ]


def _rise_h(m: Monitoring) -> str:
    if m.rise_threshold is None:
        return ""
    return f" for a pass-rate drop, {m.rise_threshold:.2f} for a rise of the pass or crash rate"


def _sees(m: Monitoring) -> str:
    if m.drop_named is None or not m.runs:
        return ""
    needs = "more than 400 runs" if m.runs_for_target is None else counted(m.runs_for_target, "run")
    return (
        f" At {counted(m.runs, 'run')} a night, a 20-point drop of one scenario (45% → 25%) "
        f"is named within 5 nights on about {100 * m.drop_named:.0f}% of series; 80% takes "
        f"{needs} a night."
    )


def _paths(m: Monitoring) -> str:
    if not m.path_statistics:
        return f": {m.statistics} statistics"
    return (
        ", and where a scenario's runs take two paths or more, each path's share of the runs "
        f"down (the tool mix) and the share failing along it up: {m.statistics} statistics, "
        f"{m.path_statistics} of them on paths"
    )


def _path_h(m: Monitoring) -> str:
    return f", {m.path_threshold:.2f} for a path" if m.path_threshold is not None else ""


def render_trend(trend: TrendFacts) -> str:
    """``trajguard trend``'s text: the trend section as a markdown document."""
    return "\n".join(trend_section(trend)).lstrip("\n").replace("## Trend", "# Trend", 1) + "\n"
