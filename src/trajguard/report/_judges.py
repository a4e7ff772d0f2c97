"""The report's judge-consistency section: how often each judge's k verdicts on one run
disagree, and how much of the verdicts' variance is the judge's own noise (a renderer: reads
only the comparison)."""

from __future__ import annotations

from trajguard.compare import UNSTABLE_JUDGE_DISAGREEMENT, Comparison, JudgeConsistency
from trajguard.report._format import md

__all__ = ["judge_section", "unmeasured_judge_warnings", "unstable_judge_warnings"]


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.0f}%"


def unstable_judge_warnings(comparison: Comparison) -> list[str]:
    """Headline lines for the judges flagged unstable."""
    return [
        f"- **Unstable judge:** {md(j.scenario, limit=40)} ({j.side}), "
        f"{md(j.criterion, limit=80)} — its {j.samples} verdicts on a run disagree in "
        f"{_pct(j.disagreement)} of runs (limit {_pct(UNSTABLE_JUDGE_DISAGREEMENT)}); "
        f"{_pct(j.noise_share)} of the verdicts' variance is the judge's noise: do not read "
        "this scenario's pass-rate change as the agent's"
        for j in comparison.judges
        if j.unstable
    ]


def unmeasured_judge_warnings(comparison: Comparison) -> list[str]:
    """Headline lines for the gating judged criteria whose judge gave one verdict per run: its
    noise is unknown (once per scenario and criterion, whichever side sampled once)."""
    config = comparison.config
    if "pass_rate" not in config.gating or "pass_rate" not in config.metrics:
        return []
    seen: dict[tuple[str, str], str] = {}
    for j in comparison.judged_once:
        seen.setdefault((j.scenario, j.criterion), j.model)
    return [
        f"- **Judge noise unknown:** {md(scenario, limit=40)}, {md(criterion, limit=80)} "
        f"({md(model, limit=40)}) gave one verdict per run (`samples: 1`): how often this "
        "judge contradicts itself is not measured, so how much of the scenario's pass-rate "
        "change is the judge's cannot be said. Set `samples: 3` to measure it (each run is "
        "then decided by the majority of its verdicts)."
        for (scenario, criterion), model in sorted(seen.items())
    ]


def _row(j: JudgeConsistency) -> str:
    flag = "**unstable**" if j.unstable else "stable"
    return (
        f"| {md(j.scenario, limit=40)} | {j.side} | {md(j.criterion, limit=60)} | "
        f"{md(j.model, limit=40)} | {j.samples} | {j.runs} | {_pct(j.disagreement)} | "
        f"{_pct(j.noise_share)} | {_pct(j.verdict_pass_rate)} | {flag} |"
    )


def judge_section(comparison: Comparison) -> list[str]:
    """The judge-consistency table (empty without a judge sampled more than once)."""
    if not comparison.judges:
        return []
    return [
        "",
        "## Judge consistency",
        "",
        "Each judged run got k verdicts. *Disagree*: share of runs whose verdicts were not all "
        "the same. *Noise share*: within-run variance of the verdicts over their total variance "
        "(the rest is between runs: the agent). A judge is unstable when its verdicts disagree "
        f"in more than {_pct(UNSTABLE_JUDGE_DISAGREEMENT)} of runs.",
        "",
        "| scenario | side | criterion | judge | k | runs | disagree | noise share | PASS "
        "verdicts | judge |",
        "|---|---|---|---|---:|---:|---:|---:|---:|---|",
        *(_row(j) for j in comparison.judges),
    ]
