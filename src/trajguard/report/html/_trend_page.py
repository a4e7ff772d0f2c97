"""The trend page: a suite's nights on one self-contained page (``trend --html``).

Per scenario, its pass rate and crash rate with their 95 % intervals, its tool mix's distance
from the baseline's, its tokens and (when its runs were priced) its cost per run, night by night,
as inline SVG; the monitoring procedure's
alarms (worded as ``trajguard trend`` words them), the flaky scenarios, the baseline's
promotions and every night, linked to its report where one is reachable. Styles, script and
data are inline; the content security policy lets the page load nothing and run no other script.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

from trajguard.report._trend_markdown import _alarm, _drift, _method, _status
from trajguard.report.html._assets import asset, csp_hash
from trajguard.report.html._escape import anchor, attr, text
from trajguard.report.html._markup import inline
from trajguard.report.html._trend_svg import Mark, Series, chart_svg
from trajguard.results import ScenarioTrend, TrendFacts, TrendNight, TrendPoint

__all__ = ["render_trend_page"]

Links = Mapping[tuple[str, str], str]
"""(date, night id) → the href of that night's report, relative to the page."""


def _night_cell(night: TrendNight, links: Links) -> str:
    label = f"{text(night.date)} <code>{text(night.night_id)}</code>"
    href = links.get((night.date, night.night_id))
    return f"<a href={attr(href)}>{label}</a>" if href else label


def _aligned(s: ScenarioTrend, keys: Sequence[tuple[str, str]]) -> list[TrendPoint | None]:
    at = {k: i for i, k in enumerate(keys)}
    row: list[TrendPoint | None] = [None] * len(keys)
    for p in s.points:
        i = at.get((p.date, p.night_id))
        if i is not None:
            row[i] = p
    return row


def _promotions(nights: Sequence[TrendNight]) -> list[tuple[int, TrendNight]]:
    """The nights that first ran against a baseline the night before them did not."""
    out, last = [], None
    for i, n in enumerate(nights):
        if n.baseline_batch is not None and n.baseline_batch != last:
            out.append((i, n))
        last = n.baseline_batch if n.baseline_batch is not None else last
    return out


def _marks(s: ScenarioTrend, metric: str | None, promoted: Sequence[int]) -> list[Mark]:
    marks = [Mark(night=i, kind="promotion", title="baseline promoted") for i in promoted]
    for a in s.alarms:
        if metric is not None and a.metric != metric:
            continue
        words = f"{a.metric.replace('_', ' ')} {a.direction} ({a.shape}) since {a.start}"
        if a.start_index != a.raised_index:
            marks.append(Mark(night=a.start_index, kind="onset", title=f"began: {words}"))
        kind = "harmful" if a.harmful else "benign"
        marks.append(Mark(night=a.raised_index, kind=kind, title=f"alarm {a.raised}: {words}"))
    return marks


def _charts(s: ScenarioTrend, keys: Sequence[tuple[str, str]], promoted: Sequence[int]) -> str:
    row = _aligned(s, keys)
    dates = [d for d, _ in keys]
    tokens = [p.mean_tokens if p is not None else None for p in row]
    top = max((t for t in tokens if t is not None), default=0.0)
    charts = (
        (
            "pass rate (95% Wilson interval)",
            Series(
                label=f"{s.scenario}: pass rate",
                values=[p.pass_rate if p else None for p in row],
                low=[p.pass_low if p else None for p in row],
                high=[p.pass_high if p else None for p in row],
            ),
            "pass_rate",
        ),
        (
            "crash rate (95% Wilson interval)",
            Series(
                label=f"{s.scenario}: crash rate",
                values=[p.crash_rate if p else None for p in row],
                low=[p.crash_low if p else None for p in row],
                high=[p.crash_high if p else None for p in row],
            ),
            "crash_rate",
        ),
        (
            "tool mix: distance from the baseline's (TVD; a distance, no interval)",
            Series(
                label=f"{s.scenario}: tool-mix distance",
                values=[p.tool_distance if p else None for p in row],
                unit="distance",
            ),
            "tool_mix",
        ),
        (
            "mean tokens per run (no interval: the store keeps the mean)",
            Series(label=f"{s.scenario}: tokens", values=tokens, top=top * 1.1, unit=""),
            "tokens",
        ),
    )
    return "".join(
        f'<figure class="metric"><figcaption>{caption}</figcaption>'
        f"{chart_svg(series, _marks(s, metric, promoted), dates=dates)}</figure>"
        for caption, series, metric in (*charts, *_cost_chart(s, row))
    )


def _cost_chart(
    s: ScenarioTrend, row: Sequence[TrendPoint | None]
) -> tuple[tuple[str, Series, str], ...]:
    """The cost per run over the nights, when some night of the scenario has a known cost."""
    costs = [p.mean_cost_usd if p is not None else None for p in row]
    top = max((c for c in costs if c is not None), default=None)
    if top is None:
        return ()
    caption = "mean cost per run, US dollars (no interval: the store keeps the mean)"
    series = Series(label=f"{s.scenario}: cost per run", values=costs, top=top * 1.1, unit="usd")
    return ((caption, series, "cost"),)


def _scenario(
    k: int, s: ScenarioTrend, keys: Sequence[tuple[str, str]], promoted: list[int]
) -> str:
    drifts = "".join(
        f"<p>{inline(_drift(d, what))}</p>"
        for d, what in ((s.drift, "baseline"), (s.anchor_drift, "pinned anchor"))
        if d is not None
    )
    earlier = (
        "<p>Earlier alarms: " + "; ".join(inline(_alarm(a)) for a in s.alarms[:-1]) + ".</p>"
        if len(s.alarms) > 1
        else ""
    )
    return (
        f'<section class="scenario" id={attr(anchor("s", k, s.scenario))} data-k="{k}">'
        f"<h3>{text(s.scenario)} ({text(s.variant)}): {inline(_status(s))}</h3>{earlier}"
        f'{drifts}<p class="readout" aria-live="polite">Point at a chart to read a night.</p>'
        f'<div class="charts">{_charts(s, keys, promoted)}</div></section>'
    )


def _alarms(facts: TrendFacts, nights: Sequence[TrendNight], links: Links) -> str:
    found = sorted(
        ((a, s) for s in facts.scenarios for a in s.alarms),
        key=lambda pair: (pair[0].raised_index, pair[1].scenario),
    )
    if not found:
        return "<p>No alarm in these nights.</p>"
    rows = "".join(
        f'<tr class="{"harmful" if a.harmful else "benign"}"><td>'
        + (_night_cell(nights[a.raised_index], links) if a.raised_index < len(nights) else "")
        + f'</td><td><a href="#{anchor("s", facts.scenarios.index(s), s.scenario)}">'
        f"{text(s.scenario)}</a></td><td>{text(a.metric)}</td><td>{text(a.direction)}</td>"
        f"<td>{text(a.shape)}</td><td>{text(a.start)}</td><td>{inline(_alarm(a))}</td></tr>"
        for a, s in found
    )
    return (
        '<div class="tablewrap"><table id="alarms"><thead><tr><th>raised</th><th>scenario</th>'
        "<th>metric</th><th>direction</th><th>shape</th><th>since</th><th>what happened</th>"
        f"</tr></thead><tbody>{rows}</tbody></table></div>"
    )


def _flaky(facts: TrendFacts) -> str:
    named = [s for s in facts.scenarios if s.flaky and s.dispersion is not None]
    if not named:
        return "<p>No scenario is flaky beyond its runs' binomial noise.</p>"
    return (
        '<ul id="flaky">'
        + "".join(
            f"<li>{text(s.scenario)}: nights vary {s.dispersion.ratio:.1f}× their runs' noise "
            f"(Tarone p = {s.dispersion.p_value:.3f})</li>"
            for s in named
            if s.dispersion is not None
        )
        + "</ul>"
    )


def _promotion_list(facts: TrendFacts, promoted: list[tuple[int, TrendNight]], links: Links) -> str:
    items = "".join(
        f"<li>{_night_cell(n, links)}: compared with baseline <code>{text(n.baseline_batch)}"
        f"</code> ({'pinned by hand' if n.baseline_pinned else 'rolling, promoted if clean'})"
        + (" — the first night read" if i == 0 else "")
        + "</li>"
        for i, n in promoted
    )
    decided = ""
    if facts.promotion is not None:
        verb = "promoted" if facts.promotion.promoted else "not promoted"
        decided = f"<p><strong>This night: {verb}.</strong> {text(facts.promotion.reason)}</p>"
    body = f'<ul id="promotions">{items}</ul>' if items else "<p>No baseline recorded.</p>"
    return decided + body


def _nights_table(nights: Sequence[TrendNight], links: Links) -> str:
    rows = "".join(
        f"<tr><td>{_night_cell(n, links)}</td><td>{text(n.verdict or '–')}</td>"
        f'<td class="num">{"" if n.exit_code is None else n.exit_code}</td>'
        f"<td>{text(n.baseline_batch or '–')}</td><td>"
        + ("report" if links.get((n.date, n.night_id)) else "not reachable from here")
        + "</td></tr>"
        for n in reversed(nights)
    )
    return (
        '<div class="tablewrap nightswrap"><table id="nights"><thead><tr><th>night</th>'
        "<th>verdict</th><th>exit</th><th>baseline</th><th>report</th></tr></thead>"
        f"<tbody>{rows}</tbody></table></div>"
    )


def _data(facts: TrendFacts, keys: Sequence[tuple[str, str]]) -> str:
    scenarios = [
        [
            [
                i,
                p.passes,
                p.runs,
                round(p.crash_rate * p.runs),
                None if p.tool_distance is None else round(p.tool_distance, 3),
                None if p.mean_tokens is None else round(p.mean_tokens),
                None if p.mean_cost_usd is None else float(f"{p.mean_cost_usd:.3g}"),
            ]
            for i, p in enumerate(_aligned(s, keys))
            if p is not None
        ]
        for s in facts.scenarios
    ]
    payload = {"dates": [d for d, _ in keys], "ids": [i for _, i in keys], "scenarios": scenarios}
    # inside a <script> element: no "<" may end it early, whatever a night id holds
    return json.dumps(payload, separators=(",", ":")).replace("<", "\\u003c")


def render_trend_page(facts: TrendFacts, nights: Sequence[TrendNight], *, links: Links) -> str:
    """The page of ``facts`` over ``nights`` (the trend's nights, oldest first; each alarm's
    index is into them), each night linked to ``links``'s href when it has one."""
    keys = [(n.date, n.night_id) for n in nights]
    promoted = _promotions(nights)
    marks = [i for i, _ in promoted if i > 0]
    span = f"{text(keys[0][0])} to {text(keys[-1][0])}" if keys else "no night"
    key = "".join(
        f'<span><i class="{cls}"></i>{words}</span>'
        for cls, words in (
            ("harmful", "alarm, harmful (pass rate down, crash rate up)"),
            ("benign", "alarm, not harmful"),
            ("onset", "where its change began"),
            ("promotion", "a new baseline"),
        )
    )
    method = "".join(f"<p>{inline(line)}</p>" for line in _method(facts.monitoring) if line)
    sections = "".join(_scenario(k, s, keys, marks) for k, s in enumerate(facts.scenarios))
    style = asset("report.css") + "\n" + asset("trend.css")
    script = asset("trend.js")
    policy = (
        f"default-src 'none'; style-src {csp_hash(style)}; script-src {csp_hash(script)}; "
        "base-uri 'none'; form-action 'none'"
    )
    toc = "".join(
        f'<a href="#{i}">{label}</a>'
        for i, label in (
            ("alarms-section", "Alarms"),
            ("flaky-section", "Flaky"),
            ("promotions-section", "Baselines"),
            ("scenarios-section", "Scenarios"),
            ("nights-section", "Nights"),
        )
    )
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{policy}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>trajguard trend: {text(facts.suite)}</title><style>{style}</style></head>\n"
        f'<body><header class="top"><nav class="toc">{toc}</nav></header><main>'
        f"<h1>Trend: {text(facts.suite)}</h1><p>{facts.nights} nights, {span}, from the store "
        f"<code>{text(facts.store)}</code>.</p>{method}"
        f'<section id="alarms-section"><h2>Alarms</h2>{_alarms(facts, nights, links)}</section>'
        f'<section id="flaky-section"><h2>Flaky scenarios</h2>{_flaky(facts)}</section>'
        '<section id="promotions-section"><h2>Baselines</h2>'
        f"{_promotion_list(facts, promoted, links)}</section>"
        f'<section id="scenarios-section"><h2>Scenarios</h2><p class="key">{key}</p>'
        f"{sections}</section>"
        f'<section id="nights-section"><h2>Nights</h2>{_nights_table(nights, links)}</section>'
        "<footer>Rendered by trajguard from the store of nights; one file, no network "
        "requests.</footer></main>\n"
        f'<script type="application/json" id="trend-data">{_data(facts, keys)}</script>\n'
        f"<script>{script}</script></body></html>\n"
    )
