"""A series of nights as data: what ``trajguard trend`` prints and a nightly report's trend
section shows (computed by :mod:`trajguard.nights`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from trajguard.results._skipped import SkippedFile

__all__ = [
    "EXIT_ALARM",
    "BaselineDrift",
    "FlakyFacts",
    "Monitoring",
    "Promotion",
    "ScenarioTrend",
    "TrendAlarm",
    "TrendFacts",
    "TrendPoint",
]


EXIT_ALARM = 5
"""The exit code of ``trend --fail-on-change`` and ``nightly --fail-on-change`` when the newest
night raised a harmful alarm (and nothing else failed)."""


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
        mean_cost_usd: mean US dollars per run, over the runs whose cost is known (``None``:
            none is, or a night recorded before the store kept it).
        verdict: the scenario's verdict that night.
        judge_disagreement: the largest pair disagreement of the scenario's judges sampled more
            than once that night (the chance two verdicts on one run disagree); ``None``: no
            such judge, or a night recorded before the store kept it.
        paths: the judged runs whose tool use is recorded, by path (the tool a run called most,
            or ``no tool``); ``None``: a night recorded before the store kept it.
        failing_paths: those of them that failed, by path.
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
    paths: Mapping[str, int] | None = None
    failing_paths: Mapping[str, int] | None = None
    mean_cost_usd: float | None = None


@dataclass(frozen=True, kw_only=True)
class TrendAlarm:
    """An alarm of the trend's monitoring procedure: one metric of one scenario changed.

    Attributes:
        metric: ``pass_rate``, ``crash_rate``, ``tool_usage`` (one path's share of the runs
            fell: the tool mix moved) or ``failing_paths`` (the share of runs failing along one
            path rose).
        direction: ``drop`` or ``rise``; ``moved`` for ``tool_usage``.
        shape: ``step`` (the rate jumped at ``start``) or ``drift`` (it began to slide at
            ``start``, by ``slope`` a night): whichever fits better the nights from the
            stream's reference start to the newest night of this regime (the night before the
            stream's next alarm, or the newest night read).
        harmful: a drop of the pass rate or a rise of the crash rate (what a gate fails on).
        raised: the date of the night the CUSUM crossed its threshold.
        raised_night_id: that night's key.
        raised_index: its position in the series (0 = the oldest night read).
        start: the date of the change's first night (a step's, or a drift's onset).
        start_night_id: its key.
        start_index: its position in the series.
        before: the rate of the reference nights before ``start``.
        after: a step's rate from ``start`` on; a drift's fitted rate on the regime's newest
            night.
        slope: a drift's change of rate per night (``None``: a step).
        statistic: the CUSUM's value when it crossed.
        threshold: the threshold it crossed.
        path: the path of a ``tool_usage`` or ``failing_paths`` alarm (``None``: other metrics);
            ``before`` and ``after`` are then its share of the runs.
        gained: for ``tool_usage``, the path whose share rose most over the same nights
            (``None``: none rose, or other metrics).
    """

    metric: str
    direction: str
    shape: str
    harmful: bool
    raised: str
    raised_night_id: str
    raised_index: int
    start: str
    start_night_id: str
    start_index: int
    before: float
    after: float
    slope: float | None
    statistic: float
    threshold: float
    path: str | None = None
    gained: str | None = None


@dataclass(frozen=True, kw_only=True)
class Monitoring:
    """The monitoring procedure's own figures, as this trend ran it.

    Attributes:
        method: the procedure in a few words.
        statistics: one-sided CUSUMs watched over the suite (per scenario: pass rate down and
            up, crash rate up, and, for a scenario whose runs took two paths or more, each
            path's share of the runs down and its failing runs' share up).
        threshold: the threshold of a pass-rate drop's statistic (a flaky stream's is up to
            ``flaky_extra`` higher).
        flaky_extra: the most a stream's threshold grows with its nights' spread.
        allowance: the CUSUMs' reference value ``k`` (standard deviations of a night).
        target_arl: the in-control average run length the threshold is set for: nights of an
            unchanged suite between two false alarms of any statistic, on average.
        statistic_arl: one statistic's in-control ARL at the threshold (calibrated).
        warmup: nights a stream needs since its (re)start before a night is judged.
        path_statistics: how many of ``statistics`` watch paths (tool usage, failing paths).
        path_threshold: their threshold (each gets an eighth of a pass-rate drop's part of
            the suite's false-alarm rate; ``None``: no scenario took two paths).
        rise_threshold: the threshold of a pass-rate rise's and a crash-rate rise's statistic
            (each gets a quarter of a drop's part; ``None``: not stated, before these parts).
        runs: the runs a night the detection figure is for (the median over the nights read).
        drop_named: the chance a 20-point pass-rate drop of one scenario (45 % to 25 %) is
            named within 5 nights at ``runs`` runs a night (calibrated, RESULTS.md).
        runs_for_target: the fewest runs a night at which ``drop_named`` reaches 80 %
            (``None``: not within 400).
    """

    method: str
    statistics: int
    threshold: float
    flaky_extra: float
    allowance: float
    target_arl: float
    statistic_arl: float
    warmup: int
    path_statistics: int = 0
    path_threshold: float | None = None
    rise_threshold: float | None = None
    runs: int | None = None
    drop_named: float | None = None
    runs_for_target: int | None = None


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
        alarms: the monitoring procedure's alarms, oldest first.
        flaky: named flaky (its nights vary more than their runs' noise explains).
        dispersion: the overdispersion test (``None``: too few nights).
        drift: against the current baseline (``None``: no baseline recorded).
        anchor_drift: against the pinned anchor (``None``: none, or it is the current baseline).
    """

    scenario: str
    variant: str
    points: tuple[TrendPoint, ...]
    alarms: tuple[TrendAlarm, ...] = ()
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
        alpha: the level of the flaky test.
        simulations: series simulated for each Monte Carlo p-value.
        band: the pass-rate band the drift rule uses.
        monitoring: the monitoring procedure's figures.
        scenarios: every scenario, sorted by id.
        promotion: what ``--promote-if-clean`` did (``None``: not asked).
        skipped: files in the store no night was read from (foreign or unreadable), each
            named with the reason; the trend is of the other nights.
        fail_on_change: ``--fail-on-change``: a harmful alarm raised on the newest night fails
            the command (:data:`EXIT_ALARM`).
    """

    store: str
    suite: str
    nights: int
    alpha: float
    simulations: int
    band: float
    scenarios: tuple[ScenarioTrend, ...]
    monitoring: Monitoring | None = None
    promotion: Promotion | None = None
    skipped: tuple[SkippedFile, ...] = ()
    fail_on_change: bool = False

    @property
    def alarmed_tonight(self) -> tuple[str, ...]:
        """The scenarios with a harmful alarm raised on the newest night."""
        newest = self.nights - 1
        return tuple(
            s.scenario
            for s in self.scenarios
            if any(a.harmful and a.raised_index == newest for a in s.alarms)
        )
