"""A comparison → a markdown report that reads well on GitHub. Returns text; the caller writes."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

from trajguard._text import counted
from trajguard.comparison import BlindSpot, Comparison, ScenarioResult
from trajguard.report._conversations import conversations_section
from trajguard.report._cost import cost_row
from trajguard.report._design import design_section
from trajguard.report._floors import floors_section
from trajguard.report._format import MARK, interval_label, md, p_cell, pass_k_cells, value_cell
from trajguard.report._gating import failures, gating_section, machines_note
from trajguard.report._history import history_section
from trajguard.report._judges import (
    embedded_judge_warnings,
    judge_section,
    length_rule_judge_warnings,
    probe_judge_warnings,
    uniform_judge_warnings,
    unmeasured_judge_warnings,
    unstable_judge_warnings,
)
from trajguard.report._resilience import resilience_section
from trajguard.report._scenario import scenario_section
from trajguard.report._trend_markdown import trend_section
from trajguard.results import ReportDocument, ReportKind, ScenarioFacts, Side

__all__ = ["render_report"]


def _suite_pass_k(comparison: Comparison) -> list[str]:
    if not comparison.pass_k_baseline and not comparison.pass_k_candidate:
        return []
    cells = pass_k_cells(comparison.pass_k_baseline, comparison.pass_k_candidate)
    return [
        "",
        f"Suite pass^k (mean over scenarios of the chance that k runs in a row all pass; "
        f"intervals average the scenarios' {interval_label(comparison.config.alpha)}s): {cells}.",
    ]


_BLIND_LISTED = 5


def _blind_spot(spot: BlindSpot) -> str:
    drop = f"{100 * spot.drop:.0f}-point drop"
    sees = (
        "no drop is detectable at this N"
        if spot.detectable is None
        else f"these runs see a drop of ≥ {100 * spot.detectable:.0f} points"
    )
    if spot.rate is not None:
        sees = f"from a plausible baseline rate of {100 * spot.rate:.0f}%, {sees}"
    needs = (
        f"about {counted(spot.runs_needed, 'run')} per side would see a {drop}"
        if spot.runs_needed is not None
        else f"no practical N would see a {drop}"
    )
    return f"{md(spot.scenario, limit=40)} ({sees}; {needs})"


def _blind(comparison: Comparison, require_power: bool, ab: bool) -> list[str]:
    """The scenarios the night could not see, so a quiet verdict is not read as a clean one."""
    spots = comparison.blind
    if not spots:
        return []
    listed = "; ".join(_blind_spot(b) for b in spots[:_BLIND_LISTED])
    more = len(spots) - _BLIND_LISTED
    if more > 0:
        listed += f"; and {more} more"
    if ab:
        consequence = "A smaller difference there would go unseen."
    elif require_power and not comparison.regressed:
        consequence = "`--require-power` was asked, so this night exits 4."
    else:
        consequence = (
            "A quiet verdict there is not evidence of no regression (`--require-power` makes "
            "such a night exit 4)."
        )
    return [
        "",
        f"**Blind in {len(spots)} of {counted(len(comparison.scenarios), 'scenario')}** "
        f"({100 * comparison.config.power:.0f}% power to see "
        "a pass-rate drop of the band from every baseline rate its runs leave plausible): "
        f"{listed}. {consequence}",
    ]


def _headline(
    comparison: Comparison,
    suite: str,
    *,
    require_power: bool = False,
    ab: bool = False,
    scenarios: Mapping[str, ScenarioFacts] | None = None,
) -> list[str]:
    counts = Counter(s.verdict for s in comparison.scenarios)
    parts = ", ".join(f"{n} {v.value}" for v, n in counts.most_common())
    lines = [f"# trajguard report: {md(suite, limit=60)}", ""]
    failed = failures(comparison, scenarios)
    if comparison.regressed:
        lines += [
            f"**Verdict: {MARK[comparison.verdict]}** — the night failed on "
            f"{len(failed)} gating regression{'s' if len(failed) != 1 else ''}:",
            "",
            *failed,
            "",
            f"{counted(len(comparison.scenarios), 'scenario')}: {parts or 'none compared'}.",
        ]
    else:
        lines.append(
            f"**Verdict: {MARK[comparison.verdict]}** — "
            f"{counted(len(comparison.scenarios), 'scenario')}: "
            f"{parts or 'none compared'}; no gating metric moved beyond its band with "
            "significance."
        )
    for label, names in (
        ("only in the baseline", comparison.only_in_baseline),
        ("only in the candidate", comparison.only_in_candidate),
    ):
        if names:
            lines.append(f"- Scenarios {label} (not compared): {', '.join(md(n) for n in names)}")
    lines += _blind(comparison, require_power, ab)
    lines += [f"- **Warning:** {md(w, limit=300)}" for w in comparison.warnings]
    lines += unstable_judge_warnings(comparison)
    lines += probe_judge_warnings(comparison)
    lines += embedded_judge_warnings(comparison)
    lines += uniform_judge_warnings(comparison)
    lines += length_rule_judge_warnings(comparison)
    lines += unmeasured_judge_warnings(comparison)
    return lines


def _summary_table(comparison: Comparison) -> list[str]:
    lines = [
        "",
        "| scenario | verdict | pass rate | crash rate | median steps | tool usage (TVD) "
        "| scenario test adj. p | detectable pass-rate drop |",
        "|---|---|---|---|---|---|---:|---|",
    ]
    for s in comparison.scenarios:

        def change(metric: str, s: ScenarioResult = s) -> str:
            try:
                m = s.metric(metric)
            except StopIteration:
                return "—"
            b = m.baseline.median if metric == "step_count" else m.baseline.mean
            c = m.candidate.median if metric == "step_count" else m.candidate.mean
            return f"{value_cell(b, metric)} → {value_cell(c, metric)}"

        drop = "—" if s.mde_pass_rate is None else f"≥ {100 * s.mde_pass_rate:.0f} pts"
        try:
            tvd = s.metric("tool_usage").estimate
        except StopIteration:
            tvd = None
        mix = "—" if tvd is None else f"{tvd:.2f}"
        gate = "—" if s.gate is None else p_cell(s.gate.p_adjusted)
        lines.append(
            f"| {md(s.scenario, limit=40)} | {MARK[s.verdict]} | {change('pass_rate')} | "
            f"{change('crash_rate')} | {change('step_count')} | {mix} | {gate} | {drop} |"
        )
    if any(s.mde_pass_rate is None for s in comparison.scenarios):
        lines += [
            "",
            "<sub>Detectable drop: the smallest pass-rate drop these runs detect with 80% power "
            "at the gating family's first step. — means none is: not even a drop to 0% would be "
            "detected at this N, the baseline passed no run, or no run was judged.</sub>",
        ]
    return lines


def _provenance(baseline: Side, candidate: Side, *, ab: bool = False) -> list[str]:
    def shown(value: str | None) -> str:
        return md(value if value not in (None, "") else "—", limit=60)

    lines = [
        "",
        "## Provenance",
        "",
        "| | baseline | candidate |",
        "|---|---|---|",
        f"| run set | {md(baseline.path, limit=60)} | {md(candidate.path, limit=60)} |",
    ]
    for label, b, c in (
        ("models", ", ".join(baseline.models), ", ".join(candidate.models)),
        ("git sha", baseline.git_sha, candidate.git_sha),
        ("started", baseline.started_at, candidate.started_at),
        ("finished", baseline.finished_at, candidate.finished_at),
        ("trajguard", baseline.trajguard_version, candidate.trajguard_version),
        ("batch seed", baseline.batch_seed, candidate.batch_seed),
    ):
        lines.append(f"| {label} | {shown(b)} | {shown(c)} |")
    lines += cost_row(baseline.cost, candidate.cost)
    b_hashes, c_hashes = baseline.config_hashes, candidate.config_hashes
    changed = sorted(k for k in set(b_hashes) & set(c_hashes) if b_hashes[k] != c_hashes[k])
    between = "the variants" if ab else "the batches"
    if changed:
        verb = "differ" if ab else "changed"
        lines += ["", f"Scenario definitions {verb} between {between} (config hash):"]
        lines += [f"- {md(k)}: {b_hashes[k]} → {c_hashes[k]}" for k in changed]
    elif set(b_hashes) & set(c_hashes):
        both = "both variants" if ab else "both batches"
        lines += ["", f"Scenario definitions are identical in {both} (same config hashes)."]
    else:
        lines += ["", "The run sets record no config hashes to compare definitions by."]
    return lines


def _method(comparison: Comparison) -> list[str]:
    config = comparison.config
    return [
        "",
        "## Method",
        "",
        f"The unit is the run. Diagnostic metrics ({comparison.diagnostic_tests} tests, marked "
        f"·diag) are adjusted with Benjamini–Hochberg at q = {config.q:g} and never fail the "
        'report. "Unchanged" is claimed only from an equivalence test (TOST) against the '
        f"tolerance band: pass rate ±{100 * config.tolerance('pass_rate'):g} pts, crash rate "
        f"±{100 * config.tolerance('crash_rate'):g} pts, tokens and latency within ×"
        f"{config.tolerance('ratio'):g}, steps P(candidate > baseline) within 0.5 ± "
        f"{config.tolerance('steps'):g}, every tool's calls per run within 0.5 ± "
        f"{config.tolerance('tools'):g}, every failing path's share within "
        f"±{100 * config.tolerance('failing_paths'):g} pts. Bands of regressions: tool usage TVD "
        f"{config.tolerance('tool_usage'):g}, runs failing along one path "
        f"{100 * config.tolerance('failing_paths'):g} pts, new tool sequences "
        f"{100 * config.tolerance('tool_order'):g} pts beyond chance. A significant change "
        "inside its band is reported as changed within tolerance. "
        "Details: `trajguard docs statistics`.",
    ]


def _unfinished(baseline: Side, candidate: Side) -> list[str]:
    """A warning for each side whose batch had not finished (``compare --allow-unfinished``, or
    a budget that ended it), with what a budget did not run."""
    return [
        f"\n> **Warning: the {role} run set is not a finished batch** (its manifest says "
        f"status `{md(side.status, limit=40)}`): this report compares the runs it held."
        + _budget_cut(side)
        for role, side in (("candidate", candidate), ("baseline", baseline))
        if side.status not in (None, "finished")
    ]


def _budget_cut(side: Side) -> str:
    if not side.budget_not_run:
        return f" It stopped: {md(side.stopped, limit=300)}." if side.stopped else ""
    missing = ", ".join(
        f"{md(scenario, limit=80)} {n}" for scenario, n in sorted(side.budget_not_run.items())
    )
    return (
        f" **The budget ended it** ({md(side.stopped or 'budget', limit=300)}). Not run "
        f"(runs per scenario): {missing}; those scenarios were compared on fewer runs. "
        "`--resume` with the run set finishes the batch."
    )


def _imported(baseline: Side, candidate: Side) -> list[str]:
    """What each side imported from another tool's logs is, and what those logs lack."""
    lines = []
    for role, side in (("candidate", candidate), ("baseline", baseline)):
        if side.imported_from is None:
            continue
        text = f"\n> **The {role} was imported from {md(side.imported_from, limit=40)} logs.**"
        if side.source_files:
            shown = ", ".join(side.source_files[:5])
            more = f" and {len(side.source_files) - 5} more" if len(side.source_files) > 5 else ""
            text += f" Its logs: {md(shown, limit=300)}{more}."
        for figure in side.source_figures:
            text += f" {md(figure.strip(), limit=300)}."
        if side.pass_rule:
            text += f" Passed: {md(side.pass_rule, limit=300)}."
        if side.lacks:
            text += (
                f" The logs do not record {md(', '.join(side.lacks), limit=300)}: those "
                "metrics are missing for this side, not zero, and are not compared."
            )
        lines.append(text)
    return lines


def _by_tag(comparison: Comparison) -> list[str]:
    """Pass rate by tag, with the stratified pass-rate test over each tag's scenarios."""
    if not comparison.tags:
        return []

    def rate(value: float | None) -> str:
        return "—" if value is None else f"{100 * value:.0f}%"

    lines = [
        "",
        "## By tag",
        "",
        "Pass rate over each tag's scenarios; the test is the suite-level stratified one (CMH "
        "over the tag's scenarios, runs arranged within each), Holm-adjusted over the tags; "
        "diagnostic, it never gates.",
        "",
        "| tag | scenarios | pass rate | mean change | stratified p | adj. p |",
        "|---|---:|---|---:|---:|---:|",
    ]
    for g in comparison.tags:
        change = "—" if g.estimate is None else f"{100 * g.estimate:+.1f} pts"
        p = "—" if g.p_value is None else f"{g.p_value:.3g}"
        adjusted = "—" if g.p_adjusted is None else f"{g.p_adjusted:.3g}"
        lines.append(
            f"| {md(g.tag, limit=40)} | {g.scenarios} | {rate(g.pass_rate_baseline)} → "
            f"{rate(g.pass_rate_candidate)} | {change} | {p} | {adjusted} |"
        )
    return lines


def render_report(document: ReportDocument) -> str:
    """The markdown report of a comparison, from its document alone."""
    comparison = document.comparison
    lines = _headline(
        comparison,
        document.suite,
        require_power=document.require_power,
        ab=document.kind is ReportKind.AB,
        scenarios=document.scenarios,
    )
    lines += floors_section(document.floors, ab=document.kind is ReportKind.AB)
    lines += _unfinished(document.baseline, document.candidate)
    lines += _imported(document.baseline, document.candidate)
    lines += _summary_table(comparison)
    lines += _suite_pass_k(comparison)
    lines += _by_tag(comparison)
    lines += judge_section(comparison)
    lines += gating_section(comparison)
    lines += history_section(comparison, document.history)
    lines += trend_section(document.trend)
    latency = machines_note(document.baseline.machine, document.candidate.machine)
    lines += ["", "## Scenarios"]
    for result in comparison.scenarios:
        lines += scenario_section(
            result,
            document.scenarios[result.scenario],
            document.plots,
            comparison.config.alpha,
            latency_note=latency,
            scenario_adjusted=comparison.family is not None
            and comparison.family.method == "omnibus",
        )
    lines += resilience_section(document.resilience, comparison.config.alpha)
    lines += conversations_section(
        document.conversations,
        {r.scenario: r for r in comparison.scenarios},
        comparison.config.alpha,
    )
    lines += design_section(document.design)
    lines += _method(comparison)
    lines += _provenance(document.baseline, document.candidate, ab=document.kind is ReportKind.AB)
    if document.command:
        lines += ["", "## Reproduce", "", "```bash", document.command, "```"]
    return "\n".join(lines) + "\n"
