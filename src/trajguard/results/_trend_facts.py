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
    """One night of one scenario."""

    date: str
    """the night's date (``YYYY-MM-DD``)."""
    night_id: str
    """its key within the date."""
    runs: int
    """its judged runs."""
    passes: int
    """runs that passed."""
    pass_rate: float
    """``passes / runs``."""
    pass_low: float
    """the pass rate's 95 % Wilson interval, low end."""
    pass_high: float
    """its high end."""
    crash_rate: float
    """crashed runs over judged runs."""
    crash_low: float
    """the crash rate's Wilson interval, low end."""
    crash_high: float
    """its high end."""
    tool_distance: float | None = None
    """total-variation distance of the night's tool mix from the baseline's (``None``: no baseline
    tool mix recorded)."""
    mean_tokens: float | None = None
    """mean tokens per run."""
    verdict: str | None = None
    """the scenario's verdict that night."""
    judge_disagreement: float | None = None
    """the largest pair disagreement of the scenario's judges sampled more than once that night (the
    chance two verdicts on one run disagree); ``None``: no such judge, or a night recorded before
    the store kept it."""
    paths: Mapping[str, int] | None = None
    """the judged runs whose tool use is recorded, by path (the tool a run called most, or ``no
    tool``); ``None``: a night recorded before the store kept it."""
    failing_paths: Mapping[str, int] | None = None
    """those of them that failed, by path."""
    mean_cost_usd: float | None = None
    """mean US dollars per run, over the runs whose cost is known (``None``: none is, or a night
    recorded before the store kept it)."""


@dataclass(frozen=True, kw_only=True)
class TrendAlarm:
    """An alarm of the trend's monitoring procedure: one metric of one scenario changed."""

    metric: str
    """``pass_rate``, ``crash_rate``, ``tool_usage`` (one path's share of the runs fell: the tool
    mix moved) or ``failing_paths`` (the share of runs failing along one path rose)."""
    direction: str
    """``drop`` or ``rise``; ``moved`` for ``tool_usage``."""
    shape: str
    """``step`` (the rate jumped at ``start``) or ``drift`` (it began to slide at ``start``, by
    ``slope`` a night): whichever fits better the nights from the stream's reference start to the
    newest night of this regime (the night before the stream's next alarm, or the newest night
    read)."""
    harmful: bool
    """a drop of the pass rate or a rise of the crash rate (what a gate fails on)."""
    raised: str
    """the date of the night the CUSUM crossed its threshold."""
    raised_night_id: str
    """that night's key."""
    raised_index: int
    """its position in the series (0 = the oldest night read)."""
    start: str
    """the date of the change's first night (a step's, or a drift's onset)."""
    start_night_id: str
    """its key."""
    start_index: int
    """its position in the series."""
    before: float
    """the rate of the reference nights before ``start``."""
    after: float
    """a step's rate from ``start`` on; a drift's fitted rate on the regime's newest night."""
    slope: float | None
    """a drift's change of rate per night (``None``: a step)."""
    statistic: float
    """the CUSUM's value when it crossed."""
    threshold: float
    """the threshold it crossed."""
    path: str | None = None
    """the path of a ``tool_usage`` or ``failing_paths`` alarm (``None``: other metrics); ``before``
    and ``after`` are then its share of the runs."""
    gained: str | None = None
    """for ``tool_usage``, the path whose share rose most over the same nights (``None``: none rose,
    or other metrics)."""


@dataclass(frozen=True, kw_only=True)
class Monitoring:
    """The monitoring procedure's own figures, as this trend ran it."""

    method: str
    """the procedure in a few words."""
    statistics: int
    """one-sided CUSUMs watched over the suite (per scenario: pass rate down and up, crash rate up,
    and, for a scenario whose runs took two paths or more, each path's share of the runs down and
    its failing runs' share up)."""
    threshold: float
    """the threshold of a pass-rate drop's statistic (a flaky stream's is up to ``flaky_extra``
    higher)."""
    flaky_extra: float
    """the most a stream's threshold grows with its nights' spread."""
    allowance: float
    """the CUSUMs' reference value ``k`` (standard deviations of a night)."""
    target_arl: float
    """the in-control average run length the threshold is set for: nights of an unchanged suite
    between two false alarms of any statistic, on average."""
    statistic_arl: float
    """one statistic's in-control ARL at the threshold (calibrated)."""
    warmup: int
    """nights a stream needs since its (re)start before a night is judged."""
    path_statistics: int = 0
    """how many of ``statistics`` watch paths (tool usage, failing paths)."""
    path_threshold: float | None = None
    """their threshold (each gets an eighth of a pass-rate drop's part of the suite's false-alarm
    rate; ``None``: no scenario took two paths)."""
    rise_threshold: float | None = None
    """the threshold of a pass-rate rise's and a crash-rate rise's statistic (each gets a quarter of
    a drop's part; ``None``: not stated, before these parts)."""
    runs: int | None = None
    """the runs a night the detection figure is for (the median over the nights read)."""
    drop_named: float | None = None
    """the chance a 20-point pass-rate drop of one scenario (45 % to 25 %) is named within 5 nights
    at ``runs`` runs a night (calibrated, RESULTS.md)."""
    runs_for_target: int | None = None
    """the fewest runs a night at which ``drop_named`` reaches 80 % (``None``: not within 400)."""


@dataclass(frozen=True, kw_only=True)
class FlakyFacts:
    """Between-night variation beyond binomial noise (Tarone's overdispersion test)."""

    p_value: float
    """the test's Monte Carlo p-value."""
    ratio: float
    """Pearson's chi-square over its degrees of freedom (about 1 for steady noise)."""


@dataclass(frozen=True, kw_only=True)
class BaselineDrift:
    """The nights since the baseline, pooled, against the baseline."""

    batch: str
    """the baseline's batch id."""
    started_at: str | None
    """when its batch started (ISO 8601; ``None``: not recorded)."""
    age_days: float | None
    """days from its start to the newest night (``None``: unknown)."""
    pinned: bool
    """promoted by hand (an anchor), not by ``--promote-if-clean``."""
    nights: int
    """nights compared with it."""
    difference: float
    """pooled pass rate of those nights minus the baseline's."""
    low: float
    """the difference's 95 % interval (Newcombe), low end."""
    high: float
    """its high end."""
    recent_difference: float
    """the newest nights' (up to 3) pass rate minus the baseline's."""
    beyond_band: bool
    """the nights moved beyond the pass-rate band (the guard's rule)."""


@dataclass(frozen=True, kw_only=True)
class ScenarioTrend:
    """One scenario (and variant) over the nights."""

    scenario: str
    """its id."""
    variant: str
    """the variant."""
    points: tuple[TrendPoint, ...]
    """its nights, oldest first."""
    alarms: tuple[TrendAlarm, ...] = ()
    """the monitoring procedure's alarms, oldest first."""
    flaky: bool = False
    """named flaky (its nights vary more than their runs' noise explains)."""
    dispersion: FlakyFacts | None = None
    """the overdispersion test (``None``: too few nights)."""
    drift: BaselineDrift | None = None
    """against the current baseline (``None``: no baseline recorded)."""
    anchor_drift: BaselineDrift | None = None
    """against the pinned anchor (``None``: none, or it is the current baseline)."""


@dataclass(frozen=True, kw_only=True)
class Promotion:
    """What ``nightly --promote-if-clean`` did with the night."""

    promoted: bool
    """the night became the baseline."""
    reason: str
    """why (or why not), in words."""


@dataclass(frozen=True, kw_only=True)
class TrendFacts:
    """The series of nights of one suite."""

    store: str
    """where the nights are kept."""
    suite: str
    """the suite."""
    nights: int
    """nights in the window."""
    alpha: float
    """the level of the flaky test."""
    simulations: int
    """series simulated for each Monte Carlo p-value."""
    band: float
    """the pass-rate band the drift rule uses."""
    scenarios: tuple[ScenarioTrend, ...]
    """every scenario, sorted by id."""
    monitoring: Monitoring | None = None
    """the monitoring procedure's figures."""
    promotion: Promotion | None = None
    """what ``--promote-if-clean`` did (``None``: not asked)."""
    skipped: tuple[SkippedFile, ...] = ()
    """files in the store no night was read from (foreign or unreadable), each named with the
    reason; the trend is of the other nights."""
    fail_on_change: bool = False
    """``--fail-on-change``: a harmful alarm raised on the newest night fails the command
    (:data:`EXIT_ALARM`)."""

    @property
    def alarmed_tonight(self) -> tuple[str, ...]:
        """The scenarios with a harmful alarm raised on the newest night."""
        newest = self.nights - 1
        return tuple(
            s.scenario
            for s in self.scenarios
            if any(a.harmful and a.raised_index == newest for a in s.alarms)
        )
