"""The report's judge-consistency section: how often two of a judge's verdicts on one run
disagree, and how much of a verdict's variance is the judge's own noise, each with its interval
(a renderer: reads only the comparison)."""

from __future__ import annotations

from trajguard._text import counted
from trajguard.comparison import UNSTABLE_JUDGE_DISAGREEMENT, Comparison, JudgeConsistency
from trajguard.local_model import MODEL_STRING, is_local_model
from trajguard.report._format import md
from trajguard.suite import EMBEDDED_JUDGE_MEASURED

__all__ = [
    "embedded_judge_warnings",
    "judge_section",
    "length_rule_judge_warnings",
    "probe_judge_warnings",
    "uniform_judge_warnings",
    "unmeasured_judge_warnings",
    "unstable_judge_warnings",
]


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.0f}%"


def _range(value: float | None, low: float | None, high: float | None) -> str:
    if value is None or low is None or high is None:
        return _pct(value)
    return f"{_pct(value)} ({_pct(low)}–{_pct(high)})"


def unstable_judge_warnings(comparison: Comparison) -> list[str]:
    """Headline lines for the judges flagged unstable (failing the night under
    ``judge_unstable: fail``)."""
    gate = comparison.config.judge_unstable == "fail"
    return [
        f"- **Unstable judge{' (fails the night: judge_unstable: fail)' if gate else ''}:** "
        f"{md(j.scenario, limit=40)} ({j.side}), {md(j.criterion, limit=80)} — two of its "
        "verdicts on one run disagree "
        f"{_range(j.pair_disagreement, j.pair_disagreement_low, j.pair_disagreement_high)} "
        f"of the time (flagged above {_pct(UNSTABLE_JUDGE_DISAGREEMENT)} with 95% confidence); "
        f"{_range(j.noise_share, j.noise_share_low, j.noise_share_high)} of a verdict's "
        "variance is the judge's noise: do not read this scenario's pass-rate change as the "
        "agent's"
        for j in comparison.judges
        if j.unstable
    ]


def uniform_judge_warnings(comparison: Comparison) -> list[str]:
    """Headline lines for the judges that said the same of every run though the answers
    differ: such a judge cannot see a change."""
    return [
        f"- **Judge that may not judge:** {md(j.scenario, limit=40)}, "
        f"{md(j.criterion, limit=80)} ({md(j.model, limit=40)}) said {j.verdict} of all "
        f"{counted(j.runs, 'run')} of both sides, which gave {j.answers} different answers: a "
        "judge that "
        f"{'passes' if j.verdict == 'PASS' else 'fails'} everything cannot see a change. Check "
        "it on answers you know are wrong (and right) before gating on it."
        for j in comparison.uniform_judges
    ]


def length_rule_judge_warnings(comparison: Comparison) -> list[str]:
    """Headline lines for the judges that answer length predicts better than they predict
    themselves: such a judge may be scoring length, not the rubric."""
    return [
        f"- **Judge that answer length explains better than it explains itself:** "
        f"{md(j.scenario, limit=40)}, {md(j.criterion, limit=80)} ({md(j.model, limit=40)}): "
        f'the rule "{md(j.rule, limit=80)}" agrees with {_pct(j.rule_agreement)} of its '
        f"verdicts (cross-validated), two of its own verdicts on one run agree "
        f"{_pct(j.self_agreement)} of the time, over {j.runs} runs of both sides (rule minus "
        f"self {100 * j.margin:+.0f} pts, 95% lower bound {100 * j.margin_low:+.0f} pts). "
        "It may be scoring length, not the rubric: check it on answers whose length says "
        "nothing of their quality before gating on it."
        for j in comparison.length_rule_judges
        if j.flagged
    ]


def probe_judge_warnings(comparison: Comparison) -> list[str]:
    """Headline lines for the judges that passed the empty or the off-topic answer they were
    asked about before a batch: such a judge passes answers it never read."""
    passed: dict[tuple[str, str], dict[str, set[str]]] = {}
    for probe in comparison.judge_probes:
        if probe.passed:
            answers = passed.setdefault((probe.criterion, probe.model), {})
            answers.setdefault(probe.answer, set()).add(probe.side)
    lines = []
    for (criterion, model), answers in sorted(passed.items()):
        said = " and ".join(
            f"{'an' if name[0] in 'aeiou' else 'a'} {name} answer ({', '.join(sorted(sides))})"
            for name, sides in sorted(answers.items())
        )
        lines.append(
            f"- **Judge that cannot judge:** {md(criterion, limit=80)} ({md(model, limit=40)}) "
            f"passed {said} before the batch: unless saying nothing meets the rubric, it "
            "passes answers it never read, and its verdicts on the agent's say little. Use a "
            "capable judge `model:` (or a sharper rubric) before gating on it."
        )
    return lines


def embedded_judge_warnings(comparison: Comparison) -> list[str]:
    """The headline line when a judge criterion is judged by the embedded model: a judge for
    the plumbing, not for the rubric."""
    criteria = sorted(
        {j.criterion for j in comparison.judges if is_local_model(j.model)}
        | {j.criterion for j in comparison.judged_once if is_local_model(j.model)}
        | {p.criterion for p in comparison.judge_probes if p.embedded}
    )
    if not criteria:
        return []
    named = ", ".join(md(c, limit=60) for c in criteria[:3])
    more = f" and {len(criteria) - 3} more" if len(criteria) > 3 else ""
    return [
        f"- **Plumbing-grade judge:** {named}{more} judged by the embedded model "
        f"({MODEL_STRING}, SmolLM2-135M): it shows that judging runs end to end, not whether "
        f"answers meet the rubric ({EMBEDDED_JUDGE_MEASURED}). Name a capable judge `model:` "
        "before reading its pass rates as the agent's."
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
        "change is the judge's cannot be said, nor whether a rule on answer length predicts its "
        "verdicts better than the judge predicts itself. Set `samples: 3` to measure both "
        "(each run is then decided by the majority of its verdicts)."
        for (scenario, criterion), model in sorted(seen.items())
    ]


def _row(j: JudgeConsistency) -> str:
    flag = "**unstable**" if j.unstable else "stable"
    return (
        f"| {md(j.scenario, limit=40)} | {j.side} | {md(j.criterion, limit=60)} | "
        f"{md(j.model, limit=40)} | {j.samples} | {j.runs} | {_pct(j.disagreement)} | "
        f"{_range(j.pair_disagreement, j.pair_disagreement_low, j.pair_disagreement_high)} | "
        f"{_range(j.noise_share, j.noise_share_low, j.noise_share_high)} | "
        f"{_pct(j.verdict_pass_rate)} | {flag} |"
    )


def judge_section(comparison: Comparison) -> list[str]:
    """The judge-consistency table (empty without a judge sampled more than once)."""
    if not comparison.judges:
        return []
    return [
        "",
        "## Judge consistency",
        "",
        "Each judged run got k verdicts. *Runs split*: share of runs whose verdicts were not all "
        "the same (it grows with k). *Pair disagreement*: the chance that two verdicts on one "
        "run disagree (unbiased, the same figure at any k; 95% interval). *Noise share*: the "
        "judge's within-run variance over a verdict's total variance, unbiased (1: the judge is "
        "pure noise; the rest is between runs, the agent; 95% bootstrap interval). A judge is "
        "unstable when its pair disagreement is above "
        f"{_pct(UNSTABLE_JUDGE_DISAGREEMENT)} with 95% confidence.",
        "",
        "| scenario | side | criterion | judge | k | runs | runs split | pair disagreement | "
        "noise share | PASS verdicts | judge |",
        "|---|---|---|---|---:|---:|---:|---:|---:|---:|---|",
        *(_row(j) for j in comparison.judges),
    ]
