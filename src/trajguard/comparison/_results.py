"""Result types of a comparison: verdicts, per-metric, per-scenario and whole-report results.

All are frozen and keyword-only; no field is ever NaN (``None`` where undefined).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from trajguard._text import counted
from trajguard.comparison._config import CompareConfig
from trajguard.comparison._evaluation import Summary
from trajguard.comparison._history import Drift
from trajguard.comparison._judge_results import (
    JudgeConsistency,
    JudgeOnce,
    JudgeProbe,
    LengthRuleJudge,
    UniformJudge,
)
from trajguard.comparison._verdicts import Evidence, Verdict, combine_verdicts

__all__ = [
    "BlindSpot",
    "Comparison",
    "Family",
    "MetricResult",
    "PassK",
    "ScenarioGate",
    "ScenarioResult",
    "SuiteTest",
    "settle",
]


@dataclass(frozen=True, kw_only=True)
class MetricResult:
    """One metric of one scenario, after multiplicity adjustment."""

    metric: str
    """the metric's name (``trajguard.comparison.METRICS``)."""
    kind: Literal["gating", "diagnostic"]
    """gating (its regressions fail the night) or diagnostic."""
    baseline: Summary
    """the baseline's values of the metric."""
    candidate: Summary
    """the candidate's values."""
    effect: str
    """what ``estimate`` measures, in words."""
    estimate: float | None
    """the effect (a difference of rates, a ratio, a distance, A)."""
    ci: tuple[float, float] | None
    """its interval at the report's confidence (``None`` where none is computed)."""
    test: str
    """the test that gave ``p_value``."""
    p_value: float
    """raw p-value in the adjusted family: one-sided harmful (or any change for metrics without
    direction), or two-sided in two-sided mode."""
    p_adjusted: float
    """Holm (gating) or BH (diagnostic) adjusted ``p_value``."""
    p_benefit: float | None
    """one-sided beneficial p-value (one-sided mode, directional metrics)."""
    p_benefit_adjusted: float | None
    """its adjustment within the improvement family."""
    p_tost: float | None
    """equivalence p-value; ``None`` for report-only metrics."""
    min_p: float
    """smallest ``p_value`` this design can produce."""
    reachable: bool
    """some outcome at this N could be significant in this report: with ``min_p`` in place of
    ``p_value`` and the family's other p-values as observed, the adjusted p-value is at most the
    level (always true when ``p_adjusted`` is). False for an untested metric."""
    identical: bool
    """both batches constant at the same value."""
    verdict: Verdict
    """the verdict (``verdict_of(evidence)``, or a design's)."""
    evidence: Evidence
    """what the verdict was decided from (:func:`verdict_of` of it is ``verdict``)."""
    notes: tuple[str, ...] = ()
    """what a reader should know about this test (reachability, what N would decide)."""


@dataclass(frozen=True, kw_only=True)
class ScenarioGate:
    """A scenario's combined gating test (docs/explanation/statistics.md §3)."""

    metrics: tuple[str, ...]
    """the gating metrics it combines (those that vary over the arrangements)."""
    test: str
    """how it was computed."""
    p_value: float
    """its permutation p-value."""
    p_adjusted: float
    """adjusted over the scenarios (step-down min-p)."""
    floor: float
    """the smallest p-value it can give (0 when unknown)."""
    reachable: bool
    """its smallest attainable p-value clears the family's first step."""


@dataclass(frozen=True, kw_only=True)
class SuiteTest:
    """One gating metric across every scenario (the suite-level gate)."""

    metric: str
    """the metric."""
    test: str
    """the stratified test."""
    estimate: float | None
    """the mean over scenarios of the per-scenario effect (a difference of rates, a TVD, A, an
    excess share), or the geometric mean of the ratios."""
    p_value: float
    """its permutation p-value (scenario labels arranged within each scenario)."""
    p_adjusted: float
    """Westfall-Young over the suite-level tests."""
    outside: bool
    """the estimate lies beyond the metric's band on the harmful side."""
    verdict: Verdict
    """regressed, changed (within tolerance), improved or inconclusive."""
    scenarios: int
    """scenarios that contributed."""


@dataclass(frozen=True, kw_only=True)
class Family:
    """How the gating family of a report was adjusted."""

    method: str
    """``omnibus`` (a combined test per scenario, step-down min-p over scenarios, and the
    suite-level tests) or ``holm`` (one test per metric, Holm)."""
    alpha: float
    """the family-wise level of the whole gating family."""
    alpha_scenarios: float
    """the part of it the per-scenario tests use."""
    alpha_suite: float
    """the part the suite-level tests use (0 without them)."""
    critical: float
    """the p-value a single scenario's test must reach to clear the first step (Holm: alpha over the
    tests)."""
    suite: tuple[SuiteTest, ...] = ()
    """the suite-level tests."""


@dataclass(frozen=True, kw_only=True)
class PassK:
    """pass^k: the chance that k runs in a row all pass, with its interval."""

    k: int
    """the number of runs in a row."""
    estimate: float
    """the unbiased estimate C(passes, k) / C(runs, k)."""
    low: float
    """the interval's lower end."""
    high: float
    """the interval's upper end."""


@dataclass(frozen=True, kw_only=True)
class ScenarioResult:
    """One scenario: its metrics, verdict, pass^k per batch and detectable pass-rate drop."""

    scenario: str
    """the scenario's id."""
    verdict: Verdict
    """its gating metrics' verdicts combined (``combine_verdicts``)."""
    metrics: tuple[MetricResult, ...]
    """every metric, in the configured order."""
    runs_baseline: int
    """baseline runs (harness errors included)."""
    runs_candidate: int
    """candidate runs (harness errors included)."""
    harness_excluded_baseline: int
    """baseline harness errors left out of every statistic."""
    harness_excluded_candidate: int
    """candidate harness errors left out."""
    pass_k_baseline: tuple[PassK, ...]
    """the baseline's pass^k for k = 1 .. max_k."""
    pass_k_candidate: tuple[PassK, ...]
    """the candidate's."""
    mde_pass_rate: float | None
    """the smallest pass-rate drop these runs detect with the stated power at ``mde_alpha``
    (``None``: not even a drop to 0 %, or not computed)."""
    mde_alpha: float
    """the level of that statement (the gating family's first step)."""
    baseline_pass_rate: float | None = None
    """The baseline pass rate the detectable drop was computed from (``None``: not computed)."""
    gate: ScenarioGate | None = None
    """Its combined gating test (``None`` with Holm, or without gating metrics)."""

    def metric(self, name: str) -> MetricResult:
        """The result of metric ``name``."""
        return next(m for m in self.metrics if m.metric == name)

    @property
    def mde_note(self) -> str:
        """The detectable pass-rate change in words."""
        sizes = (
            f"{counted(self.runs_baseline, 'run')} per side"
            if self.runs_baseline == self.runs_candidate
            else f"{self.runs_baseline} baseline and {self.runs_candidate} candidate runs"
        )
        if self.baseline_pass_rate is None:
            return f"with {sizes} the detectable pass-rate drop was not computed (no judged runs)"
        if self.mde_pass_rate is None and self.baseline_pass_rate == 0:
            return f"with {sizes} there is no pass-rate drop to detect: the baseline passed no run"
        if self.mde_pass_rate is None:
            return (
                f"with {sizes} no pass-rate drop is detectable at alpha {self.mde_alpha:.2g}, "
                "not even one to 0%"
            )
        return (
            f"with {sizes} this run could see a pass-rate drop of >= "
            f"{100 * self.mde_pass_rate:.0f} points (80% power, alpha {self.mde_alpha:.2g})"
        )


@dataclass(frozen=True, kw_only=True)
class BlindSpot:
    """A scenario whose gating tests could not see a pass-rate drop the size of its band."""

    scenario: str
    """the scenario."""
    drop: float
    """the drop looked for: its pass-rate band."""
    detectable: float | None
    """the smallest drop these runs detect with the stated power from ``rate`` (``None``: not even a
    drop to 0 %)."""
    runs_needed: int | None
    """runs per side that would detect ``drop`` from ``rate`` (``None``: more than 100,000)."""
    rate: float | None = None
    """the baseline pass rate the judgement was made at: the least favourable of the rates the
    baseline's runs leave plausible (their 90 % Jeffreys interval, at least the band), not the
    observed rate, which a few runs that all failed or all passed would collapse to 0 or 1
    (``None``: a document written before it was kept)."""


@dataclass(frozen=True, kw_only=True)
class TagGroup:
    """The scenarios of one tag: pass rates, and the stratified pass-rate test over them."""

    tag: str
    """the tag."""
    scenarios: int
    """compared scenarios with this tag."""
    pass_rate_baseline: float | None
    """judged passes over judged runs of those scenarios (``None``: none)."""
    pass_rate_candidate: float | None
    """the candidate's."""
    estimate: float | None
    """the mean over its scenarios of the pass-rate change (candidate - baseline)."""
    p_value: float | None
    """the stratified permutation test (CMH over its scenarios) of the pass rate."""
    p_adjusted: float | None
    """Holm over the tag groups (diagnostic: tags never gate)."""


@dataclass(frozen=True, kw_only=True)
class Comparison:
    """A whole report: headline verdict, exit-code flag and every scenario."""

    verdict: Verdict
    """the report's verdict (scenarios and suite-level tests combined)."""
    regressed: bool
    """the night failed: some gating metric or suite-level test regressed."""
    scenarios: tuple[ScenarioResult, ...]
    """every scenario both sides ran, sorted by id."""
    pass_k_baseline: tuple[PassK, ...]
    """the mean over scenarios of the baseline's pass^k."""
    pass_k_candidate: tuple[PassK, ...]
    """the candidate's."""
    gating_tests: int
    """testable gating tests."""
    diagnostic_tests: int
    """testable diagnostic tests."""
    harness_excluded_baseline: int
    """baseline harness errors left out, over all scenarios."""
    harness_excluded_candidate: int
    """candidate harness errors left out."""
    only_in_baseline: tuple[str, ...]
    """scenarios only the baseline ran (not compared)."""
    only_in_candidate: tuple[str, ...]
    """scenarios only the candidate ran (not compared)."""
    config: CompareConfig
    """the settings of the comparison."""
    family: Family | None = None
    """how the gating family was adjusted (``None`` without gating metrics)."""
    drift: tuple[Drift, ...] = ()
    """Whether pooled baseline batches agree (only with a baseline history)."""
    blind: tuple[BlindSpot, ...] = ()
    """Scenarios whose gating tests could not see a pass-rate drop of their band."""
    warnings: tuple[str, ...] = ()
    """Criteria of the candidate naming a tool none of its runs called (a misspelt tool?)."""
    tags: tuple[TagGroup, ...] = ()
    """Results grouped by the scenarios' tags (empty without tags)."""
    judges: tuple[JudgeConsistency, ...] = ()
    """The consistency of each judge criterion sampled more than once, per scenario and side."""
    uniform_judges: tuple[UniformJudge, ...] = ()
    """Judge criteria that gave one verdict to every run of both sides, whose answers differ."""
    judge_probes: tuple[JudgeProbe, ...] = ()
    """What each judge said of an empty and an off-topic answer before each side's batch."""
    length_rule_judges: tuple[LengthRuleJudge, ...] = ()
    """Judge criteria sampled k ≥ 2 times: how a rule on answer length predicts their verdicts
    beside how they predict themselves (``flagged``: length predicts them better)."""
    judged_once: tuple[JudgeOnce, ...] = ()
    """Judge criteria that gave one verdict per run (their noise unknown), per scenario and
    side."""

    def scenario(self, name: str) -> ScenarioResult:
        """The result of scenario ``name``."""
        return next(s for s in self.scenarios if s.scenario == name)


def settle(comparison: Comparison) -> Comparison:
    """The comparison with its scenario verdicts, report verdict and exit flag derived from its
    gating metrics' and suite-level tests' verdicts: the one rule for "this night failed"
    (some gating metric or suite-level test regressed, or, under ``judge_unstable: fail``, a
    judge was flagged unstable), whatever design set those verdicts."""
    scenarios = tuple(
        replace(s, verdict=combine_verdicts([m.verdict for m in s.metrics if m.kind == "gating"]))
        for s in comparison.scenarios
    )
    suite = tuple(t.verdict for t in comparison.family.suite) if comparison.family else ()
    failed = Verdict.REGRESSED in suite or any(
        m.verdict is Verdict.REGRESSED for s in scenarios for m in s.metrics if m.kind == "gating"
    )
    if comparison.config.judge_unstable == "fail":  # an unstable judge fails the night too
        failed = failed or any(j.unstable for j in comparison.judges)
    return replace(
        comparison,
        scenarios=scenarios,
        verdict=combine_verdicts([s.verdict for s in scenarios], suite=suite),
        regressed=failed,
    )
