"""The pieces of a pull-request comment, each from the report document alone: which scenarios
infrastructure left without a comparison, the per-scenario rows, cost, and the failing runs with
links into the page's run explorer."""

from __future__ import annotations

import re

from trajguard._metric_table import metric_description
from trajguard._text import counted
from trajguard.comparison import MetricResult, ScenarioResult, Verdict
from trajguard.errors import UsageError
from trajguard.report._explanation import headline_shift, what_broke
from trajguard.report._format import MARK, md
from trajguard.report._scenario import measured
from trajguard.report.html import failed_runs_fragment, run_fragment
from trajguard.results import ReportDocument, RunRef

__all__ = [
    "NOT_COMPARABLE",
    "check_page_url",
    "cost_cell",
    "cost_metrics",
    "failing_runs",
    "infrastructure_note",
    "not_comparable",
    "scenario_rows",
]

NOT_COMPARABLE = "⛔ not comparable"
"""How a scenario (or a whole comparison) that infrastructure left without runs is marked."""

_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_UNSAFE = re.compile(r"[\s<>()\[\]\"'`\\|]")
_ORDER = (
    Verdict.REGRESSED,
    Verdict.CHANGED,
    Verdict.CHANGED_WITHIN_TOLERANCE,
    Verdict.IMPROVED,
    Verdict.INCONCLUSIVE,
    Verdict.UNCHANGED,
)


def check_page_url(url: str | None) -> str | None:
    """``url`` if it can stand in a markdown link: http(s) or a relative path, nothing that
    could end the link or open markup.

    Raises:
        UsageError: it has another scheme, spaces, quotes, brackets or parentheses.
    """
    if url is None:
        return None
    scheme = _SCHEME.match(url)
    if (scheme and scheme.group().lower() not in ("http:", "https:")) or _UNSAFE.search(url):
        raise UsageError(
            f"--page-url {url!r} is not a link a comment can carry",
            hint="give an http(s) address or a relative path, percent-encoding spaces, quotes, "
            "brackets and parentheses",
        )
    return url.split("#", 1)[0]


def _wiped(runs: int, excluded: int) -> bool:
    return runs > 0 and excluded >= runs


def not_comparable(document: ReportDocument) -> list[str]:
    """Scenarios with a side whose every run was a harness error (infrastructure failed: the
    model endpoint, a worker, trajguard itself — ``trajguard.outcome.STATUS_TABLE``)."""
    return [
        s.scenario
        for s in document.comparison.scenarios
        if _wiped(s.runs_baseline, s.harness_excluded_baseline)
        or _wiped(s.runs_candidate, s.harness_excluded_candidate)
    ]


def infrastructure_note(document: ReportDocument) -> list[str]:
    """What infrastructure failures the comparison left out, and unfinished batches."""
    c = document.comparison
    lines = []
    if c.harness_excluded_baseline or c.harness_excluded_candidate:
        lines.append(
            f"- Infrastructure failed on {counted(c.harness_excluded_baseline, 'baseline run')} "
            f"and {counted(c.harness_excluded_candidate, 'candidate run')} (harness errors: "
            "left out of every statistic)."
        )
    for side in (document.baseline, document.candidate):
        if side.status not in (None, "finished"):
            lines.append(
                f"- The {md(side.label)} batch did not finish (status {md(side.status)}): "
                "the comparison holds only the runs it made."
            )
    return lines


def cost_metrics(document: ReportDocument) -> list[str]:
    """The cost metrics the comparison measured on some run (none in a document written before
    cost was, nor when no run's model had a price)."""
    names = {m.metric for s in document.comparison.scenarios for m in s.metrics if measured(m)}
    return sorted(n for n in names if "cost" in n)


def _number(value: float | None) -> str:
    return "—" if value is None else f"{value:.3g}"


def cost_cell(result: MetricResult) -> str:
    """A cost metric's two sides and effect with its interval."""
    try:
        shown = metric_description(result.metric)
    except KeyError:  # a metric this trajguard does not know: its numbers, plainly
        sides = f"{_number(result.baseline.mean)} → {_number(result.candidate.mean)}"
        ci = "" if result.ci is None else f" [{_number(result.ci[0])}, {_number(result.ci[1])}]"
        return f"{sides} (effect {_number(result.estimate)}{ci})"
    effect, ci = shown.format_effect(result.estimate, result.ci)
    sides = (
        f"{shown.format_value(result.baseline.mean)} → {shown.format_value(result.candidate.mean)}"
    )
    return f"{sides} ({effect}, {ci})" if ci != "—" else f"{sides} ({effect})"


def _rate(s: ScenarioResult, name: str) -> str:
    try:
        result = s.metric(name)
    except StopIteration:
        return "—"
    m = metric_description(name)
    sides = f"{m.format_value(result.baseline.mean)} → {m.format_value(result.candidate.mean)}"
    if result.estimate is None:
        return sides
    return f"{sides}: {m.format_difference(result.estimate)} {m.format_interval(result.ci)}"


def scenario_rows(document: ReportDocument, costs: list[str]) -> list[str]:
    """One table row per scenario, not comparable ones first, then by how much they moved."""
    broken = set(not_comparable(document))
    ordered = sorted(
        document.comparison.scenarios,
        key=lambda s: (s.scenario not in broken, _ORDER.index(s.verdict), s.scenario),
    )
    rows = []
    for s in ordered:
        verdict = NOT_COMPARABLE if s.scenario in broken else MARK[s.verdict]
        drop = "—" if s.mde_pass_rate is None else f"≥ {100 * s.mde_pass_rate:.0f} pts"
        cells = [md(s.scenario, limit=60), verdict, _rate(s, "pass_rate"), _rate(s, "crash_rate")]
        cells.append(drop)
        for name in costs:
            found = [m for m in s.metrics if m.metric == name]
            cells.append(cost_cell(found[0]) if found else "—")
        rows.append("| " + " | ".join(cells) + " |")
    return rows


def _run_link(run: RunRef, label: str, page_url: str | None) -> str:
    text = f"{md(label)} run {md(run.run_id, limit=60)}"
    if page_url is None:
        return text
    return f"[{text}]({page_url}{run_fragment(run)})"


def failing_runs(document: ReportDocument, page_url: str | None) -> list[str]:
    """One bullet per scenario whose candidate failed runs: the criterion that broke, the run
    that shows it beside the baseline's contrast, and all its failed runs in the page."""
    items = []
    order = {s.scenario: _ORDER.index(s.verdict) for s in document.comparison.scenarios}
    for s in sorted(document.comparison.scenarios, key=lambda s: (order[s.scenario], s.scenario)):
        try:
            rate = s.metric("pass_rate").candidate.mean
        except StopIteration:
            continue
        if rate is None or rate >= 1:
            continue
        parts = [f"**{md(s.scenario, limit=60)}**"]
        explanation = document.scenarios[s.scenario].explanation
        broke = what_broke(explanation)
        if broke is not None:
            parts.append(md(headline_shift(broke), limit=120))
        exemplars = explanation.exemplars if explanation is not None else None
        if exemplars is not None and exemplars.candidate is not None:
            shown = _run_link(exemplars.candidate, document.candidate.label, page_url)
            if exemplars.baseline is not None:
                contrast = _run_link(exemplars.baseline, document.baseline.label, page_url)
                shown += f" beside {contrast}"
            parts.append(shown)
        if page_url is not None:
            fragment = failed_runs_fragment(s.scenario)
            parts.append(f"[every failed {md(document.candidate.label)} run]({page_url}{fragment})")
        items.append("- " + " — ".join(parts))
    return items
