"""Result types of a comparison: verdicts, settings, per-metric and per-scenario results.

Kept apart from :mod:`trajguard.live.compare` so that reports and the CLI can import the types
without the statistics. All are frozen; no field is ever NaN (``None`` where undefined).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any, Literal

from trajguard.errors import TrajguardError
from trajguard.live import metrics as mt
from trajguard.live.runs import DEFAULT_CRASH_STATUSES

__all__ = [
    "DIRECTIONAL",
    "METRICS",
    "CompareConfig",
    "Comparison",
    "MetricResult",
    "PassK",
    "ScenarioResult",
    "Verdict",
    "overall_verdict",
]

METRICS = (
    "pass_rate",
    "crash_rate",
    "step_count",
    "prompt_tokens",
    "completion_tokens",
    "latency",
    "tool_multiset",
    "tool_sequence",
)
DIRECTIONAL = frozenset(METRICS[:6])
METRIC_LABELS = {
    "pass_rate": "pass rate",
    "crash_rate": "crash rate",
    "step_count": "steps",
    "prompt_tokens": "prompt tokens",
    "completion_tokens": "completion tokens",
    "latency": "latency",
    "tool_multiset": "tool usage",
    "tool_sequence": "tool order",
}
"""How reports name each metric."""
_COLUMN = {
    "step_count": "step_count",
    "prompt_tokens": "prompt_tokens",
    "completion_tokens": "completion_tokens",
    "latency": "duration_s",
    "pass_rate": "passed",
}


class Verdict(StrEnum):
    """A metric's, a scenario's or a report's verdict."""

    REGRESSED = "regressed"
    IMPROVED = "improved"
    UNCHANGED = "unchanged"
    CHANGED_WITHIN_TOLERANCE = "changed within tolerance"
    CHANGED = "changed"
    INCONCLUSIVE = "inconclusive"


@dataclass(frozen=True)
class CompareConfig:
    """How to compare. Margins are the tolerance bands; the equivalence tests use them too.

    Attributes:
        alpha: family-wise level of the gating metrics (Holm) and the TOST level.
        q: false discovery rate of the diagnostic metrics (Benjamini-Hochberg).
        gating: metrics whose regressions fail the report; the rest are diagnostic.
        metrics: metrics to compute.
        pass_rate_margin: absolute pass-rate difference tolerated.
        crash_rate_margin: absolute crash-rate difference tolerated.
        steps_margin: tolerated distance of ``A`` from 1/2 for step counts.
        ratio_margin: tolerated geometric-mean ratio of tokens and latency (and its inverse).
        tool_margin: tolerated distance of ``A`` from 1/2 for each tool's calls per run.
        two_sided: two-sided tests (A/B comparisons); otherwise one-sided per direction.
        crash_statuses: statuses that count as a crash.
        max_k: largest k of pass^k.
        power: power at which the minimum detectable effect is stated.
        resampling: permutation settings.
        seed: seed of the permutation generators (one stream per scenario and metric).
        token_floor: tokens below this count as this before taking logs.
        latency_floor: seconds below this count as this before taking logs.
    """

    alpha: float = 0.05
    q: float = 0.10
    gating: frozenset[str] = frozenset({"pass_rate", "crash_rate"})
    metrics: tuple[str, ...] = METRICS
    pass_rate_margin: float = 0.10
    crash_rate_margin: float = 0.05
    steps_margin: float = 0.10
    ratio_margin: float = 1.15
    tool_margin: float = 0.10
    two_sided: bool = False
    crash_statuses: frozenset[str] = DEFAULT_CRASH_STATUSES
    max_k: int = 8
    power: float = 0.8
    resampling: mt.Resampling = field(default_factory=mt.Resampling)
    seed: int = 0
    token_floor: float = 1.0
    latency_floor: float = 1e-3
    scenario_margins: Mapping[str, Mapping[str, float]] = field(default_factory=dict)
    """Per-scenario tolerance bands (scenario → setting → value), e.g. from the suite file."""

    def for_scenario(self, scenario: str) -> CompareConfig:
        """The settings with this scenario's own tolerance bands applied."""
        own: dict[str, Any] = dict(self.scenario_margins.get(scenario) or {})
        return replace(self, **own, scenario_margins={}) if own else self

    def __post_init__(self) -> None:
        unknown = sorted((set(self.metrics) | set(self.gating)) - set(METRICS))
        problems = [f"unknown metric(s) {unknown}"] if unknown else []
        problems += [
            f"{name} must be in (0, 1), got {value}"
            for name, value in (("alpha", self.alpha), ("q", self.q), ("power", self.power))
            if not 0 < value < 1
        ]
        if self.ratio_margin <= 1:
            problems.append(f"ratio_margin must exceed 1, got {self.ratio_margin}")
        if problems:
            raise TrajguardError(
                "invalid comparison settings: " + "; ".join(problems),
                hint=f"metrics are {', '.join(METRICS)}",
            )


@dataclass(frozen=True)
class MetricResult:
    """One metric of one scenario, after multiplicity adjustment.

    Attributes:
        p_value: raw p-value in the adjusted family: one-sided harmful (or any change for
            metrics without direction), or two-sided in two-sided mode.
        p_adjusted: Holm (gating) or BH (diagnostic) adjusted ``p_value``.
        p_benefit: one-sided beneficial p-value (one-sided mode, directional metrics).
        p_benefit_adjusted: its adjustment within the improvement family.
        p_tost: equivalence p-value; ``None`` for report-only metrics.
        min_p: smallest ``p_value`` this design can produce.
        reachable: some outcome at this N could be significant in this report: with ``min_p``
            in place of ``p_value`` and the family's other p-values as observed, the adjusted
            p-value is at most the level (always true when ``p_adjusted`` is). False for an
            untested metric.
        identical: both batches constant at the same value.
    """

    metric: str
    kind: Literal["gating", "diagnostic"]
    baseline: mt.Summary
    candidate: mt.Summary
    effect: str
    estimate: float | None
    ci: tuple[float, float] | None
    test: str
    p_value: float
    p_adjusted: float
    p_benefit: float | None
    p_benefit_adjusted: float | None
    p_tost: float | None
    min_p: float
    reachable: bool
    identical: bool
    verdict: Verdict
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class PassK:
    """pass^k: the chance that k runs in a row all pass, with its interval."""

    k: int
    estimate: float
    low: float
    high: float


@dataclass(frozen=True)
class ScenarioResult:
    """One scenario: its metrics, verdict, pass^k per batch and detectable pass-rate drop."""

    scenario: str
    verdict: Verdict
    metrics: tuple[MetricResult, ...]
    runs_baseline: int
    runs_candidate: int
    harness_excluded_baseline: int
    harness_excluded_candidate: int
    pass_k_baseline: tuple[PassK, ...]
    pass_k_candidate: tuple[PassK, ...]
    mde_pass_rate: float | None
    mde_alpha: float
    baseline_pass_rate: float | None = None
    """The baseline pass rate the detectable drop was computed from (``None``: not computed)."""

    def metric(self, name: str) -> MetricResult:
        """The result of metric ``name``."""
        return next(m for m in self.metrics if m.metric == name)

    @property
    def mde_note(self) -> str:
        """The detectable pass-rate change in words."""
        sizes = (
            f"{self.runs_baseline} runs per side"
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


@dataclass(frozen=True)
class Comparison:
    """A whole report: headline verdict, exit-code flag and every scenario."""

    verdict: Verdict
    regressed: bool
    scenarios: tuple[ScenarioResult, ...]
    pass_k_baseline: tuple[PassK, ...]
    pass_k_candidate: tuple[PassK, ...]
    gating_tests: int
    diagnostic_tests: int
    harness_excluded_baseline: int
    harness_excluded_candidate: int
    only_in_baseline: tuple[str, ...]
    only_in_candidate: tuple[str, ...]
    config: CompareConfig

    def scenario(self, name: str) -> ScenarioResult:
        """The result of scenario ``name``."""
        return next(s for s in self.scenarios if s.scenario == name)


def overall_verdict(verdicts: Sequence[Verdict]) -> Verdict:
    """Combine verdicts (gating metrics of a scenario, or scenarios of a report).

    Any regressed: regressed; all unchanged: unchanged; any improved: improved; only unchanged or
    changed within tolerance: changed within tolerance; otherwise (or none): inconclusive.
    """
    if Verdict.REGRESSED in verdicts:
        return Verdict.REGRESSED
    if verdicts and all(v is Verdict.UNCHANGED for v in verdicts):
        return Verdict.UNCHANGED
    if Verdict.IMPROVED in verdicts:
        return Verdict.IMPROVED
    calm = {Verdict.UNCHANGED, Verdict.CHANGED_WITHIN_TOLERANCE}
    if verdicts and all(v in calm for v in verdicts):
        return Verdict.CHANGED_WITHIN_TOLERANCE
    return Verdict.INCONCLUSIVE
