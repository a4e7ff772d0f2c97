"""What failed the night and why (the headline), and how the gating family was tested."""

from __future__ import annotations

from collections.abc import Mapping

from trajguard._metric_table import metric_description
from trajguard._text import counted
from trajguard.comparison import Comparison, MetricResult, SuiteTest, Verdict
from trajguard.report._explanation import headline_shift, what_broke
from trajguard.report._format import MARK, md, p_cell
from trajguard.results import Scalar, ScenarioFacts

__all__ = ["failures", "gating_section", "machines_note"]


def _band(comparison: Comparison, name: str, scenario: str | None = None) -> str:
    m = metric_description(name)
    if m.tolerance is None:
        return "no band"
    config = comparison.config if scenario is None else comparison.config.for_scenario(scenario)
    return f"band {m.format_band(config.tolerance(m.tolerance))}"


def _metric_reason(comparison: Comparison, scenario: str, result: MetricResult) -> str:
    m = metric_description(result.metric)
    effect = m.format_effect(result.estimate, None)[0]
    if m.kind == "rate":
        effect = (
            f"{m.format_value(result.baseline.mean)} → {m.format_value(result.candidate.mean)} "
            f"({effect})"
        )
    rise = result.estimate
    if m.kind == "paths" and rise is not None and result.baseline.detail:
        before, after = dict(result.baseline.detail), dict(result.candidate.detail)
        path = min(before, key=lambda k: abs(after.get(k, 0.0) - before[k] - rise))
        effect = (
            f"runs failing along {md(path)} {before[path]:.0%} → {after.get(path, 0.0):.0%} "
            f"({effect})"
        )
    band = _band(comparison, result.metric, scenario)
    return f"{m.heading} {effect}, {band}, p {p_cell(result.p_value)}"


def _suite_reason(comparison: Comparison, test: SuiteTest) -> str:
    m = metric_description(test.metric)
    return (
        f"**suite** {m.heading}: {m.format_difference(test.estimate)} on average over "
        f"{counted(test.scenarios, 'scenario')}, {_band(comparison, test.metric)} "
        f"({test.test.split(',')[0]}, adj. p {p_cell(test.p_adjusted)})"
    )


def failures(
    comparison: Comparison, scenarios: Mapping[str, ScenarioFacts] | None = None
) -> list[str]:
    """One line per thing that failed the night: metric, effect, band and adjusted p, and the
    criterion whose failures rose the most (from the scenario's explanation)."""
    lines = []
    for s in comparison.scenarios:
        failing = [m for m in s.metrics if m.kind == "gating" and m.verdict is Verdict.REGRESSED]
        if not failing:
            continue
        reasons = "; ".join(_metric_reason(comparison, s.scenario, m) for m in failing)
        adjusted = (
            f" — scenario test adj. p {p_cell(s.gate.p_adjusted)}"
            if s.gate is not None
            else f" — adj. p {p_cell(min(m.p_adjusted for m in failing))}"
        )
        broke = what_broke(scenarios[s.scenario].explanation) if scenarios else None
        cause = f"; {md(headline_shift(broke), limit=120)}" if broke is not None else ""
        lines.append(f"- **{md(s.scenario)}**: {reasons}{adjusted}{cause}")
    family = comparison.family
    if family is not None:
        lines += [
            "- " + _suite_reason(comparison, t)
            for t in family.suite
            if t.verdict is Verdict.REGRESSED
        ]
    return lines


def _labels(names: tuple[str, ...] | list[str]) -> str:
    return ", ".join(metric_description(n).heading for n in names) or "none"


def gating_section(comparison: Comparison) -> list[str]:
    """The gating family: its method, the levels, and the suite-level tests."""
    family, config = comparison.family, comparison.config
    gating = [m for m in config.metrics if m in config.gating]
    lines = ["", "## Gating", ""]
    if family is None or family.method == "holm":
        lines.append(
            f"Gating metrics ({_labels(gating)}; {comparison.gating_tests} tests) are adjusted "
            f"together with Holm at α = {config.alpha:g}."
        )
        return lines
    scenarios = sum(s.gate is not None for s in comparison.scenarios)
    lines.append(
        f"The night fails when a gating metric ({_labels(gating)}) moves beyond its band with "
        f"significance, or when a suite-level test does. Family-wise error over the whole gating "
        f"family is at most α = {config.alpha:g}: the scenarios' tests use "
        f"{family.alpha_scenarios:.3g} and the suite-level tests {family.alpha_suite:.3g} "
        + (
            f"({100 * family.alpha_suite / config.alpha:.0f}% of α)."
            if family.alpha_suite
            else "(none with a single scenario)."
        )
    )
    lines += [
        "",
        f"Each scenario has one test: its gating metrics computed on the same arrangements of "
        f"its runs and combined (Fisher), with the combination's own permutation p-value; the "
        f"{counted(scenarios, 'scenario test')} are adjusted by step-down min-p (a scenario "
        "whose test "
        f"cannot give a small p-value costs the others nothing). A single scenario must reach "
        f"p ≤ {family.critical:.2g} to clear the first step. A metric regresses when its "
        f"scenario's adjusted p is at most {family.alpha_scenarios:.3g}, its own p at most "
        f"{config.alpha:g} and its estimate beyond its band on the harmful side.",
    ]
    if family.suite:
        lines += [
            "",
            "Suite level (every scenario a stratum; Westfall–Young over these tests):",
            "",
            "| metric | test | effect (mean over scenarios) | band | p | adj. p | verdict |",
            "|---|---|---|---|---:|---:|---|",
        ]
        for t in family.suite:
            m = metric_description(t.metric)
            lines.append(
                f"| {m.heading} | {t.test} | {m.format_difference(t.estimate)} | "
                f"{_band(comparison, t.metric)} | {p_cell(t.p_value)} | {p_cell(t.p_adjusted)} "
                f"| {MARK[t.verdict]} |"
            )
    return lines


def machines_note(
    baseline: Mapping[str, Scalar] | None, candidate: Mapping[str, Scalar] | None
) -> str | None:
    """Why latency compares machines as well as agents, or ``None`` when both batches ran on
    the same recorded machine (the machine records of their manifests)."""
    b, c = baseline, candidate
    if b is None or c is None:
        return (
            "latency: the batches do not both record their machine, so latency may compare "
            "machines as well as agents"
        )
    if dict(b) != dict(c):
        return (
            "latency: the batches ran on different machines "
            f"({md(b.get('cpu', '?'), limit=40)} against {md(c.get('cpu', '?'), limit=40)}), "
            "so latency compares the machines too"
        )
    return None
