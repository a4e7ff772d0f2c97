"""A series of nights as data: what ``trajguard trend`` prints and a nightly report's trend
section shows (computed by :mod:`trajguard.nights`)."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "BaselineDrift",
    "ChangeFacts",
    "FlakyFacts",
    "Promotion",
    "ScenarioTrend",
    "TrendFacts",
    "TrendPoint",
]


@dataclass(frozen=True, kw_only=True)
class TrendPoint:
    """One night of one scenario.

    Attributes:
        date: the night's date (``YYYY-MM-DD``).
        night_id: its key within the date.
        runs: its judged runs.
        passes: runs that passed.
        pass_rate: ``passes / runs``.
        pass_low: the pass rate's 95 % Wilson interval, low end.
        pass_high: its high end.
        crash_rate: crashed runs over judged runs.
        crash_low: the crash rate's Wilson interval, low end.
        crash_high: its high end.
        tool_distance: total-variation distance of the night's tool mix from the baseline's
            (``None``: no baseline tool mix recorded).
        mean_tokens: mean tokens per run.
        verdict: the scenario's verdict that night.
        judge_disagreement: the largest pair disagreement of the scenario's judges sampled more
            than once that night (the chance two verdicts on one run disagree); ``None``: no
            such judge, or a night recorded before the store kept it.
    """

    date: str
    night_id: str
    runs: int
    passes: int
    pass_rate: float
    pass_low: float
    pass_high: float
    crash_rate: float
    crash_low: float
    crash_high: float
    tool_distance: float | None = None
    mean_tokens: float | None = None
    verdict: str | None = None
    judge_disagreement: float | None = None


@dataclass(frozen=True, kw_only=True)
class ChangeFacts:
    """A sustained change of pass rate the scan named ("since when").

    Attributes:
        date: the first night of the change.
        night_id: its key.
        index: its position in the series (0 = the oldest night shown).
        before: the pass rate of the nights before it.
        after: the pass rate from it on.
        p_value: the scan's Monte Carlo p-value under "nothing changed".
    """

    date: str
    night_id: str
    index: int
    before: float
    after: float
    p_value: float


@dataclass(frozen=True, kw_only=True)
class FlakyFacts:
    """Between-night variation beyond binomial noise (Tarone's overdispersion test).

    Attributes:
        p_value: the test's Monte Carlo p-value.
        ratio: Pearson's chi-square over its degrees of freedom (about 1 for steady noise).
    """

    p_value: float
    ratio: float


@dataclass(frozen=True, kw_only=True)
class BaselineDrift:
    """The nights since the baseline, pooled, against the baseline.

    Attributes:
        batch: the baseline's batch id.
        started_at: when its batch started (ISO 8601; ``None``: not recorded).
        age_days: days from its start to the newest night (``None``: unknown).
        pinned: promoted by hand (an anchor), not by ``--promote-if-clean``.
        nights: nights compared with it.
        difference: pooled pass rate of those nights minus the baseline's.
        low: the difference's 95 % interval (Newcombe), low end.
        high: its high end.
        recent_difference: the newest nights' (up to 3) pass rate minus the baseline's.
        beyond_band: the nights moved beyond the pass-rate band (the guard's rule).
    """

    batch: str
    started_at: str | None
    age_days: float | None
    pinned: bool
    nights: int
    difference: float
    low: float
    high: float
    recent_difference: float
    beyond_band: bool


@dataclass(frozen=True, kw_only=True)
class ScenarioTrend:
    """One scenario (and variant) over the nights.

    Attributes:
        scenario: its id.
        variant: the variant.
        points: its nights, oldest first.
        change: the sustained change named (``None``: none at the level).
        change_p: the scan's p-value (``None``: too few nights to scan).
        flaky: named flaky (its nights vary more than their runs' noise explains).
        dispersion: the overdispersion test (``None``: too few nights).
        drift: against the current baseline (``None``: no baseline recorded).
        anchor_drift: against the pinned anchor (``None``: none, or it is the current baseline).
    """

    scenario: str
    variant: str
    points: tuple[TrendPoint, ...]
    change: ChangeFacts | None = None
    change_p: float | None = None
    flaky: bool = False
    dispersion: FlakyFacts | None = None
    drift: BaselineDrift | None = None
    anchor_drift: BaselineDrift | None = None


@dataclass(frozen=True, kw_only=True)
class Promotion:
    """What ``nightly --promote-if-clean`` did with the night.

    Attributes:
        promoted: the night became the baseline.
        reason: why (or why not), in words.
    """

    promoted: bool
    reason: str


@dataclass(frozen=True, kw_only=True)
class TrendFacts:
    """The series of nights of one suite.

    Attributes:
        store: where the nights are kept.
        suite: the suite.
        nights: nights in the window.
        alpha: the level of the change scan and of the flaky test.
        simulations: series simulated for each Monte Carlo p-value.
        band: the pass-rate band the drift rule uses.
        false_alarm_rate: the scan's A/A alarm rate per scenario as calibrated
            (``benchmarks/bench_trend_calibration.py``; ``None``: not stated).
        scenarios: every scenario, sorted by id.
        promotion: what ``--promote-if-clean`` did (``None``: not asked).
    """

    store: str
    suite: str
    nights: int
    alpha: float
    simulations: int
    band: float
    scenarios: tuple[ScenarioTrend, ...]
    false_alarm_rate: float | None = None
    promotion: Promotion | None = None
