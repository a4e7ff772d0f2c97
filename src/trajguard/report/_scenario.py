"""One scenario's section of the report: metrics, notes, pass^k, tool usage, plot."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from trajguard._metric_table import metric_description
from trajguard._text import counted
from trajguard.comparison import MetricResult, ScenarioResult
from trajguard.report._explanation import explanation_section
from trajguard.report._format import (
    EFFECT_LEGEND,
    MARK,
    effect_cells,
    interval_label,
    md,
    p_cell,
    pass_k_cells,
)
from trajguard.results import ScenarioFacts, ToolUse

__all__ = ["scenario_section"]


def _metric_row(result: MetricResult, latency_note: str | None) -> str:
    m = metric_description(result.metric)
    estimate, interval = effect_cells(result)
    kind = "" if result.kind == "gating" else " ·diag"
    if result.metric == "latency" and latency_note is not None:
        kind += " ·machines may differ"
    cells = [
        f"{m.heading}{kind}",
        m.format_side(result.baseline),
        m.format_side(result.candidate),
        estimate,
        interval,
        p_cell(result.p_value),
        p_cell(result.p_adjusted),
        p_cell(result.p_tost),
        MARK[result.verdict],
    ]
    return "| " + " | ".join(cells) + " |"


def _sequence(seq: Sequence[str]) -> str:
    return " → ".join(md(name, limit=30) for name in seq) if seq else "(no tools)"


def _tools_section(baseline: ToolUse, candidate: ToolUse) -> list[str]:
    lines = ["", "**Tool usage** (mean calls per run) and **most common sequences**:", ""]
    counts = [baseline.calls, candidate.calls]
    names = sorted(set(counts[0]) | set(counts[1]))
    if names:
        lines += ["| tool | baseline | candidate | change |", "|---|---:|---:|---:|"]
        for name in names:
            b, c = counts[0].get(name, 0.0), counts[1].get(name, 0.0)
            lines.append(f"| {md(name, limit=40)} | {b:.2f} | {c:.2f} | {c - b:+.2f} |")
    else:
        lines.append("No tool was called in either batch.")
    tops = []
    for label, side in (("baseline", baseline), ("candidate", candidate)):
        top = side.top
        if top is not None:
            share = 100 * top.count / max(top.runs, 1)
            tops.append(
                f"- {label}: {_sequence(top.sequence)} ({top.count} of {counted(top.runs, 'run')}, "
                f"{share:.0f}%; {top.distinct} distinct)"
            )
    lines += ["", *tops]
    return lines


def _gate_line(result: ScenarioResult) -> list[str]:
    gate = result.gate
    if gate is None:
        return []
    return [
        "",
        f"Scenario test: {gate.test}; p {p_cell(gate.p_value)}, adjusted over scenarios "
        f"{p_cell(gate.p_adjusted)}.",
    ]


def measured(result: MetricResult) -> bool:
    """Whether a report shows the metric: a conditional one (resilience, cost, user turns)
    without a run measured on either side is left out — a test of nothing. A metric this
    trajguard does not know (a document of another version) is shown when it has runs."""
    if result.baseline.n or result.candidate.n:
        return True
    try:
        return not metric_description(result.metric).conditional
    except KeyError:
        return False


def scenario_section(
    result: ScenarioResult,
    facts: ScenarioFacts,
    plots: Mapping[str, str],
    alpha: float,
    *,
    latency_note: str | None = None,
    scenario_adjusted: bool = False,
) -> list[str]:
    lines = [
        "",
        f"### {md(result.scenario, limit=60)} — {MARK[result.verdict]}",
        "",
        *(
            [f"**Description:** {md(facts.description, limit=300)}", ""]
            if facts.description.strip()
            else []
        ),
        f"{result.runs_baseline} baseline runs, {result.runs_candidate} candidate runs"
        + _excluded(result.harness_excluded_baseline, result.harness_excluded_candidate)
        + f". {result.mde_note.capitalize()}.",
        "",
        f"| metric | baseline | candidate | effect | {interval_label(alpha)} | p | adj. p "
        "| TOST p | verdict |",
        "|---|---|---|---|---|---:|---:|---:|---|",
    ]
    lines += [_metric_row(m, latency_note) for m in result.metrics if measured(m)]
    legend = EFFECT_LEGEND
    if scenario_adjusted:
        legend += (
            " adj. p of a gating metric is its scenario's (the combined test of the scenario's "
            "gating metrics, adjusted over scenarios)."
        )
    lines += ["", f"<sub>{legend}</sub>"]
    lines += _gate_line(result)
    notes = [
        f"{metric_description(m.metric).heading}: {n}"
        for m in result.metrics
        if measured(m)
        for n in m.notes
    ]
    if latency_note is not None and any(m.metric == "latency" for m in result.metrics):
        notes.append(latency_note)
    if notes:
        lines += ["", "<details><summary>Notes</summary>", ""]
        lines += [f"- {md(n, limit=300)}" for n in notes]
        lines += ["", "</details>"]
    lines += _pass_k(result)
    lines += explanation_section(facts.explanation, alpha)
    lines += _tools_section(facts.baseline.tools, facts.candidate.tools)
    if result.scenario in plots:
        lines += ["", f"![distributions of {md(result.scenario)}]({plots[result.scenario]})"]
    return lines


def _excluded(b: int, c: int) -> str:
    if not b and not c:
        return ""
    return f" ({b} baseline and {c} candidate harness errors excluded)"


def _pass_k(result: ScenarioResult) -> list[str]:
    if not result.pass_k_baseline and not result.pass_k_candidate:
        return []
    cells = pass_k_cells(result.pass_k_baseline, result.pass_k_candidate)
    return ["", f"pass^k (all k runs pass): {cells}."]
