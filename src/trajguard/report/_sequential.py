"""The report section of a sequential run: the design, and where each scenario stopped."""

from __future__ import annotations

from trajguard._metric_table import metric_description
from trajguard._text import counted
from trajguard.comparison import SequentialOutcome
from trajguard.stats import Action

__all__ = ["sequential_section"]


def _table(outcome: SequentialOutcome, runs: str) -> list[str]:
    lines = [f"| scenario | stopped after | {runs} | decision |", "|---|---:|---:|---|"]
    for scenario, stop in sorted(outcome.stopped.items()):
        look = outcome.stop_look(scenario)
        lines.append(f"| {scenario} | look {look + 1} | {stop.runs} | {stop.decision.label} |")
    return lines


def _usage(outcome: SequentialOutcome, unit: str) -> str:
    planned = outcome.runs_planned() if outcome.stopped else outcome.max_runs
    used = outcome.runs_used()
    saved = 100 * (1 - used / planned) if planned else 0.0
    own = "; ".join(
        f"{name} at {', '.join(map(str, plan))}" for name, plan in sorted(outcome.own_plans.items())
    )
    mine = f" Scenarios with their own `runs:`: {own}." if own else ""
    return f"{used} of {planned} planned {unit} made ({saved:.0f}% saved).{mine}"


def sequential_section(outcome: SequentialOutcome) -> str:
    """The report's description of the design and where it stopped."""
    if outcome.variants is not None:
        return _ab_section(outcome, outcome.variants)
    gate = "regressed" if outcome.regressed else "no regression detected"
    names = ", ".join(metric_description(m).label for m in outcome.gating) or "none"
    plan = outcome.plan
    lines = [
        "## Sequential design",
        "",
        f"**Sequential gate: {gate}.** In sequential mode this stopping rule decides the exit "
        "code, and the verdicts of the gating metrics above follow it; the p-values in the "
        "tables are fixed-sample tests on the runs made.",
        "",
        f"Up to {counted(len(plan), 'look')} at {', '.join(map(str, plan))} candidate runs per "
        f"scenario (max {outcome.max_runs}). Gating metrics: {names}; each tested one-sided at "
        f"O'Brien–Fleming alpha-spending thresholds, α = {outcome.alpha:.4g} per test "
        "(Bonferroni across scenarios and gating metrics). A scenario stops regressed only "
        "when a metric crosses its threshold with its estimate outside the tolerance band; "
        "it stops with no regression detected when the candidate is no worse (futility) or "
        f"can no longer cross a threshold (curtailment). {_usage(outcome, 'runs')}",
        "",
        *_table(outcome, "runs"),
    ]
    return "\n".join(lines)


def _ab_section(outcome: SequentialOutcome, variants: tuple[str, str]) -> str:
    a, b = variants
    stopped = sum(s.decision.action is Action.STOP_DIFFERENT for s in outcome.stopped.values())
    plan = outcome.plan
    lines = [
        "## Sequential design (A/B)",
        "",
        f"**{stopped} of {counted(len(outcome.stopped), 'scenario')} stopped early on a clear "
        "pass-rate "
        f"difference.** The stopping rule only decides how many runs each scenario gets; "
        "the answer above comes from the tests on the runs made, and `ab` exits 0 whatever "
        "it finds.",
        "",
        f"Up to {counted(len(plan), 'look')} at {', '.join(map(str, plan))} runs per variant "
        f"per scenario (max {outcome.max_runs}). After each look a scenario stops when the pass "
        f"rates of {b} and {a} differ clearly in either direction: Boschloo's test, "
        f"O'Brien–Fleming alpha-spending thresholds at α = {outcome.alpha:.4g} per direction "
        "and scenario. There is no futility stop: without a clear difference a scenario runs "
        f"to the maximum. {_usage(outcome, 'runs per variant')}",
        "",
        *_table(outcome, "runs per variant"),
    ]
    return "\n".join(lines)
