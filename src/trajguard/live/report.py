"""A comparison → a markdown report that reads well on GitHub. Returns text; the caller writes.

Model-produced text (tool names a weak model invented, final outputs) is escaped before it goes
into a table, so it can neither break the table nor inject HTML.
"""

from __future__ import annotations

import html
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from trajguard.live.results import (
    METRIC_LABELS,
    Comparison,
    MetricResult,
    PassK,
    ScenarioResult,
    Verdict,
)
from trajguard.live.summary import summarize

__all__ = ["RunSetInfo", "interval_label", "md", "render_report"]

_MARK = {
    Verdict.REGRESSED: "🔴 regressed",
    Verdict.IMPROVED: "🟢 improved",
    Verdict.UNCHANGED: "⚪ unchanged",
    Verdict.CHANGED_WITHIN_TOLERANCE: "🟡 changed within tolerance",
    Verdict.CHANGED: "🟠 changed",
    Verdict.INCONCLUSIVE: "⚫ inconclusive",
}
_LABEL = {**METRIC_LABELS, "latency": "latency (s)"}
_RATES = {"pass_rate", "crash_rate"}


@dataclass(frozen=True)
class RunSetInfo:
    """One side of the comparison: where it came from and its runs."""

    path: str
    manifest: Mapping[str, Any]
    runs: pd.DataFrame = field(repr=False)


def md(text: object, *, limit: int = 80) -> str:
    """Text made safe for a markdown table cell: escaped HTML, pipes, backticks and newlines."""
    value = " ".join(str(text).split())
    if len(value) > limit:
        value = value[: limit - 1] + "…"
    value = html.escape(value, quote=False)
    for char in "|`*_[]":
        value = value.replace(char, "\\" + char)
    return value


def _number(value: float | None, metric: str) -> str:
    if value is None:
        return "—"
    if metric in _RATES:
        return f"{100 * value:.0f}%"
    return f"{value:.3g}"


def _side(summary: Any, metric: str) -> str:
    if summary.n == 0:
        return "no runs"
    if metric in _RATES:
        return f"{_number(summary.mean, metric)} (n={summary.n})"
    if metric in ("tool_multiset", "tool_sequence"):
        return f"n={summary.n}"
    if summary.geometric_mean is not None:
        # Tokens and latency: the effect is a ratio of geometric means, so show those.
        return f"gmean {_number(summary.geometric_mean, metric)} (n={summary.n})"
    shown = summary.median if summary.median is not None else summary.mean
    return f"median {_number(shown, metric)} (n={summary.n})"


def interval_label(alpha: float) -> str:
    """Column header of intervals computed at confidence ``1 - alpha``."""
    return f"{100 * (1 - alpha):.4g}% CI"


_EFFECT = {
    "pass_rate": ("Δ", 100, " pts"),
    "crash_rate": ("Δ", 100, " pts"),
    "step_count": ("A =", 1, ""),
    "prompt_tokens": ("×", 1, ""),
    "completion_tokens": ("×", 1, ""),
    "latency": ("×", 1, ""),
    "tool_multiset": ("V =", 1, ""),
    "tool_sequence": ("Δd =", 1, ""),
}
_EFFECT_LEGEND = (
    "Effects: Δ = candidate − baseline rate (Newcombe interval); A = P(candidate > baseline) + "
    "½P(tie), 0.5 is no change; × = geometric-mean ratio candidate / baseline (gmean = geometric "
    "mean); V = Cramér's V of calls by tool plus one end-of-run count per run; Δd = mean edit "
    "distance between batches − within batches (0 is no change)."
)


def _effect(result: MetricResult) -> tuple[str, str]:
    symbol, scale, unit = _EFFECT.get(result.metric, ("", 1, ""))
    if result.estimate is None:
        return "—", "—"
    value = scale * result.estimate
    if symbol == "Δ":
        estimate = f"Δ {value:+.0f}{unit}"
    elif symbol == "×":
        estimate = f"×{value:.2f}"
    else:
        estimate = f"{symbol} {value:.2f}"
    if result.ci is None:
        return estimate, "—"
    low, high = result.ci
    return estimate, f"[{scale * low:.3g}, {scale * high:.3g}]"


def _p(value: float | None) -> str:
    if value is None:
        return "—"
    return "<0.001" if value < 0.001 else f"{value:.3f}"


def _metric_row(result: MetricResult) -> str:
    estimate, interval = _effect(result)
    kind = "" if result.kind == "gating" else " ·diag"
    cells = [
        f"{_LABEL.get(result.metric, result.metric)}{kind}",
        _side(result.baseline, result.metric),
        _side(result.candidate, result.metric),
        estimate,
        interval,
        _p(result.p_value),
        _p(result.p_adjusted),
        _p(result.p_tost),
        _MARK[result.verdict],
    ]
    return "| " + " | ".join(cells) + " |"


def _sequence(seq: Sequence[str]) -> str:
    return " → ".join(md(name, limit=30) for name in seq) if seq else "(no tools)"


def _tools_section(scenario: str, baseline: pd.DataFrame, candidate: pd.DataFrame) -> list[str]:
    lines = ["", "**Tool usage** (mean calls per run) and **most common sequences**:", ""]
    counts = []
    for frame in (baseline, candidate):
        rows = frame[(frame["scenario"] == scenario) & (frame["status"] != "harness_error")]
        total: Counter[str] = Counter()
        for value in rows["tool_counts"].dropna():
            total.update(dict(value))
        counts.append({k: v / max(len(rows), 1) for k, v in total.items()})
    names = sorted(set(counts[0]) | set(counts[1]))
    if names:
        lines += ["| tool | baseline | candidate | change |", "|---|---:|---:|---:|"]
        for name in names:
            b, c = counts[0].get(name, 0.0), counts[1].get(name, 0.0)
            lines.append(f"| {md(name, limit=40)} | {b:.2f} | {c:.2f} | {c - b:+.2f} |")
    else:
        lines.append("No tool was called in either batch.")
    tops = []
    for label, frame in (("baseline", baseline), ("candidate", candidate)):
        arms = [a for a in summarize(frame[frame["scenario"] == scenario], top=1)]
        if arms and arms[0].top_sequences:
            seq, n = arms[0].top_sequences[0]
            share = 100 * n / max(arms[0].runs, 1)
            tops.append(
                f"- {label}: {_sequence(seq)} ({n} of {arms[0].runs} runs, {share:.0f}%; "
                f"{arms[0].distinct_sequences} distinct)"
            )
    lines += ["", *tops]
    return lines


def _scenario_section(
    result: ScenarioResult,
    baseline: pd.DataFrame,
    candidate: pd.DataFrame,
    plots: Mapping[str, str],
    alpha: float,
) -> list[str]:
    lines = [
        "",
        f"### {md(result.scenario, limit=60)} — {_MARK[result.verdict]}",
        "",
        f"{result.runs_baseline} baseline runs, {result.runs_candidate} candidate runs"
        + _excluded(result.harness_excluded_baseline, result.harness_excluded_candidate)
        + f". {result.mde_note.capitalize()}.",
        "",
        f"| metric | baseline | candidate | effect | {interval_label(alpha)} | p | adj. p "
        "| TOST p | verdict |",
        "|---|---|---|---|---|---:|---:|---:|---|",
    ]
    lines += [_metric_row(m) for m in result.metrics]
    lines += ["", f"<sub>{_EFFECT_LEGEND}</sub>"]
    notes = [f"{_LABEL.get(m.metric, m.metric)}: {n}" for m in result.metrics for n in m.notes]
    if notes:
        lines += ["", "<details><summary>Notes</summary>", ""]
        lines += [f"- {md(n, limit=300)}" for n in notes]
        lines += ["", "</details>"]
    lines += _pass_k(result)
    lines += _tools_section(result.scenario, baseline, candidate)
    if result.scenario in plots:
        lines += ["", f"![distributions of {md(result.scenario)}]({plots[result.scenario]})"]
    return lines


def _excluded(b: int, c: int) -> str:
    if not b and not c:
        return ""
    return f" ({b} baseline and {c} candidate harness errors excluded)"


def _pass_k_cells(baseline: Sequence[PassK], candidate: Sequence[PassK]) -> str:
    shown = {1, 2, 4, 8}
    cells = []
    for label, values in (("baseline", baseline), ("candidate", candidate)):
        parts = [
            f"k={p.k}: {100 * p.estimate:.0f}% [{100 * p.low:.0f}, {100 * p.high:.0f}]"
            for p in values
            if p.k in shown
        ]
        cells.append(f"{label} " + ", ".join(parts))
    return " · ".join(cells)


def _pass_k(result: ScenarioResult) -> list[str]:
    if not result.pass_k_baseline and not result.pass_k_candidate:
        return []
    cells = _pass_k_cells(result.pass_k_baseline, result.pass_k_candidate)
    return ["", f"pass^k (all k runs pass): {cells}."]


def _suite_pass_k(comparison: Comparison) -> list[str]:
    if not comparison.pass_k_baseline and not comparison.pass_k_candidate:
        return []
    cells = _pass_k_cells(comparison.pass_k_baseline, comparison.pass_k_candidate)
    return [
        "",
        f"Suite pass^k (mean over scenarios of the chance that k runs in a row all pass; "
        f"intervals average the scenarios' {interval_label(comparison.config.alpha)}s): {cells}.",
    ]


def _headline(comparison: Comparison, suite: str) -> list[str]:
    counts = Counter(s.verdict for s in comparison.scenarios)
    parts = ", ".join(f"{n} {v.value}" for v, n in counts.most_common())
    regressed = [s for s in comparison.scenarios if s.verdict is Verdict.REGRESSED]
    lines = [
        f"# trajguard report: {md(suite, limit=60)}",
        "",
        f"**Verdict: {_MARK[comparison.verdict]}** — {len(comparison.scenarios)} scenarios: "
        f"{parts or 'none compared'}.",
    ]
    for scenario in regressed:
        failing = [m for m in scenario.metrics if m.verdict is Verdict.REGRESSED]
        what = "; ".join(
            f"{_LABEL.get(m.metric, m.metric)} {_number(m.baseline.mean, m.metric)} → "
            f"{_number(m.candidate.mean, m.metric)} (adj. p {_p(m.p_adjusted)})"
            for m in failing
        )
        lines.append(f"- **{md(scenario.scenario)}** regressed: {what}")
    for label, names in (
        ("only in the baseline", comparison.only_in_baseline),
        ("only in the candidate", comparison.only_in_candidate),
    ):
        if names:
            lines.append(f"- Scenarios {label} (not compared): {', '.join(md(n) for n in names)}")
    return lines


def _summary_table(comparison: Comparison) -> list[str]:
    lines = [
        "",
        "| scenario | verdict | pass rate | crash rate | median steps "
        "| detectable pass-rate drop |",
        "|---|---|---|---|---|---|",
    ]
    for s in comparison.scenarios:

        def change(metric: str, s: ScenarioResult = s) -> str:
            try:
                m = s.metric(metric)
            except StopIteration:
                return "—"
            b = m.baseline.median if metric == "step_count" else m.baseline.mean
            c = m.candidate.median if metric == "step_count" else m.candidate.mean
            return f"{_number(b, metric)} → {_number(c, metric)}"

        drop = "—" if s.mde_pass_rate is None else f"≥ {100 * s.mde_pass_rate:.0f} pts"
        lines.append(
            f"| {md(s.scenario, limit=40)} | {_MARK[s.verdict]} | {change('pass_rate')} | "
            f"{change('crash_rate')} | {change('step_count')} | {drop} |"
        )
    if any(s.mde_pass_rate is None for s in comparison.scenarios):
        lines += [
            "",
            "<sub>Detectable drop: the smallest pass-rate drop these runs detect with 80% power "
            "at the first Holm step. — means none is: not even a drop to 0% would be detected "
            "at this N, the baseline passed no run, or no run was judged.</sub>",
        ]
    return lines


def _provenance(baseline: RunSetInfo, candidate: RunSetInfo) -> list[str]:
    def get(info: RunSetInfo, key: str) -> str:
        value = info.manifest.get(key)
        if isinstance(value, list):
            value = ", ".join(map(str, value))
        return md(value if value not in (None, "") else "—", limit=60)

    lines = [
        "",
        "## Provenance",
        "",
        "| | baseline | candidate |",
        "|---|---|---|",
    ]
    for key, label in (
        ("path", "run set"),
        ("models", "models"),
        ("git_sha", "git sha"),
        ("started_at", "started"),
        ("finished_at", "finished"),
        ("trajguard_version", "trajguard"),
        ("batch_seed", "batch seed"),
    ):
        if key == "path":
            lines.append(
                f"| {label} | {md(baseline.path, limit=60)} | {md(candidate.path, limit=60)} |"
            )
        else:
            lines.append(f"| {label} | {get(baseline, key)} | {get(candidate, key)} |")
    b_hashes = dict(baseline.manifest.get("config_hashes") or {})
    c_hashes = dict(candidate.manifest.get("config_hashes") or {})
    changed = sorted(k for k in set(b_hashes) & set(c_hashes) if b_hashes[k] != c_hashes[k])
    if changed:
        lines += ["", "Scenario definitions changed between the batches (config hash):"]
        lines += [f"- {md(k)}: {b_hashes[k]} → {c_hashes[k]}" for k in changed]
    else:
        lines += ["", "Scenario definitions are identical in both batches (same config hashes)."]
    return lines


def _method(comparison: Comparison) -> list[str]:
    config = comparison.config
    gating = ", ".join(_LABEL.get(m, m) for m in config.metrics if m in config.gating)
    return [
        "",
        "## Method",
        "",
        f"The unit is the run. Gating metrics ({gating}; {comparison.gating_tests} tests) are "
        f"adjusted together with Holm at α = {config.alpha:g}; diagnostic metrics "
        f"({comparison.diagnostic_tests} tests, marked ·diag) with Benjamini–Hochberg at "
        f'q = {config.q:g}. "Unchanged" is claimed only from an equivalence test (TOST) '
        f"against the tolerance band: pass rate ±{100 * config.pass_rate_margin:g} pts, crash "
        f"rate ±{100 * config.crash_rate_margin:g} pts, tokens and latency within ×"
        f"{config.ratio_margin:g}, steps P(candidate > baseline) within 0.5 ± "
        f"{config.steps_margin:g}. A regression outside the band fails the report; inside it, "
        "it is reported as changed within tolerance.",
    ]


def render_report(
    comparison: Comparison,
    *,
    baseline: RunSetInfo,
    candidate: RunSetInfo,
    plots: Mapping[str, str] | None = None,
    command: str | None = None,
    extra_sections: Sequence[str] = (),
) -> str:
    """The markdown report of a comparison.

    Args:
        comparison: the result of :func:`trajguard.live.compare.compare_runsets`.
        baseline: the baseline run set (path, manifest, runs).
        candidate: the candidate run set.
        plots: scenario → relative path of its distribution plot (PNG), if drawn.
        command: the command that reproduces the report.
        extra_sections: markdown inserted before the provenance (e.g. a sequential design).
    """
    suite = str(candidate.manifest.get("suite") or baseline.manifest.get("suite") or "suite")
    lines = _headline(comparison, suite)
    lines += _summary_table(comparison)
    lines += _suite_pass_k(comparison)
    lines += ["", "## Scenarios"]
    for result in comparison.scenarios:
        lines += _scenario_section(
            result, baseline.runs, candidate.runs, plots or {}, comparison.config.alpha
        )
    for section in extra_sections:
        lines += ["", section]
    lines += _method(comparison)
    lines += _provenance(baseline, candidate)
    if command:
        lines += ["", "## Reproduce", "", "```bash", command, "```"]
    return "\n".join(lines) + "\n"
