"""The comparison as a document: everything a report of ``compare``, ``nightly`` or ``ab`` says.

The renderers (markdown, A/B markdown, JUnit, plots, the job summary) read only a
:class:`ReportDocument`, so the same document renders the same report again, byte for byte,
without the run sets. Every field is plain data a JSON codec can write: strings, numbers,
booleans, ``None``, tuples, string-keyed mappings, string enums and nested dataclasses; no
pandas or numpy value and no NaN. ``trajguard.report`` builds it from the run sets.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from trajguard.comparison import (
    EXIT_BUDGET,
    EXIT_OK,
    EXIT_REGRESSED,
    Answer,
    Comparison,
    DesignRecord,
    FixedRecord,
    FloorResult,
    Overall,
    PairwiseResult,
    exit_code,
)
from trajguard.results._conversations import ConversationFacts
from trajguard.results._cost import BatchCost
from trajguard.results._explanation import Explanation, RateCount
from trajguard.results._trend_facts import EXIT_ALARM, TrendFacts

__all__ = [
    "DOCUMENT_SCHEMA_VERSION",
    "ABOverall",
    "HistoryFacts",
    "PlotSample",
    "RateCount",
    "ReportDocument",
    "ReportKind",
    "ResilienceGroup",
    "Scalar",
    "ScenarioFacts",
    "Side",
    "SideFacts",
    "ToolUse",
    "TopSequence",
]

DOCUMENT_SCHEMA_VERSION = 3
"""Bumped whenever a field of the document changes meaning or goes away (3: ``design`` is one
record per design, tagged by ``name``; version 2 files still read)."""

Scalar = str | int | float | bool | None
"""A JSON scalar (the values of a machine record)."""

_PLOT_PATH = re.compile(r"plots/[A-Za-z0-9_.-]+\.png")


class ReportKind(StrEnum):
    """The job that made the comparison."""

    COMPARE = "compare"
    NIGHTLY = "nightly"
    AB = "ab"


@dataclass(frozen=True, kw_only=True)
class Side:
    """What the report says of one side (baseline or candidate), taken from its run set.

    Manifest values are kept as the provenance table shows them: as text, ``None`` where the
    manifest has no value (or an empty one).
    """

    label: str
    """the side as the resilience table names it (``baseline (base)`` when all its runs are of one
    variant)."""
    path: str
    """the run set as the report shows it (``runs (variant A)`` in an A/B report)."""
    suite: str | None = None
    """the suite its manifest names."""
    models: tuple[str, ...] = ()
    """the models it ran."""
    git_sha: str | None = None
    """the commit it ran at."""
    started_at: str | None = None
    """when its batch started (ISO 8601)."""
    finished_at: str | None = None
    """when its batch finished."""
    trajguard_version: str | None = None
    """the trajguard that ran it."""
    batch_seed: str | None = None
    """the batch seed."""
    config_hashes: Mapping[str, str] = field(default_factory=dict)
    """``scenario/variant`` → the definition's config hash."""
    machine: Mapping[str, Scalar] | None = None
    """the machine record of its manifest (``None`` when it has none)."""
    history_batches: tuple[str, ...] = ()
    """the batches pooled from a baseline history (newest first; empty without one)."""
    status: str | None = None
    """the batch's status (``finished`` once complete)."""
    batch_id: str | None = None
    """the batch's id."""
    imported_from: str | None = None
    """the tool whose eval logs the run set was imported from (``inspect``, ``promptfoo``,
    ``harbor``; ``None``: trajguard ran it)."""
    lacks: tuple[str, ...] = ()
    """what those logs do not record (missing in its rows: trajectories, token usage)."""
    pass_rule: str | None = None
    """how the logs' scores became ``passed``, as the importer stated it."""
    source_files: tuple[str, ...] = ()
    """the logs it was imported from, as given to ``trajguard import``."""
    source_figures: tuple[str, ...] = ()
    """the tool's own headline figure beside trajguard's pass rate, and why they differ, as the
    import summary printed them."""
    stopped: str | None = None
    """why the batch stopped before its plan, as its manifest says (``None``: it did not stop early,
    or does not say)."""
    budget_not_run: Mapping[str, int] = field(default_factory=dict)
    """scenario → the planned runs a budget (``--max-cost``, ``--max-minutes``) left unmade (empty:
    no budget ended the batch)."""
    cost: BatchCost | None = None
    """What its runs cost (``None``: a document written before costs were kept)."""


@dataclass(frozen=True, kw_only=True)
class TopSequence:
    """The most common tool sequence of a scenario's first arm (in ``summarize``'s order)."""

    sequence: tuple[str, ...]
    """the tools called, in order."""
    count: int
    """behavioural runs that called exactly this sequence."""
    runs: int
    """every run of the arm, harness errors included."""
    distinct: int
    """distinct sequences among its behavioural runs."""


@dataclass(frozen=True, kw_only=True)
class ToolUse:
    """One side's tool usage in one scenario."""

    calls: Mapping[str, float] = field(default_factory=dict)
    """tool → mean calls per behavioural run."""
    top: TopSequence | None = None
    """its most common sequence (``None`` when no run recorded one)."""


@dataclass(frozen=True, kw_only=True)
class PlotSample:
    """One side of one scenario as its distribution plot draws it (behavioural runs only)."""

    pass_rate: float | None = None
    """passed over judged runs (``None`` when none was judged)."""
    crash_rate: float | None = None
    """crashed over behavioural runs (``None`` without any)."""
    judged: int = 0
    """judged runs, as :func:`trajguard.outcome.tally` counts them."""
    steps: tuple[float, ...] = ()
    """the step count of each run that recorded one."""
    prompt_tokens: tuple[float, ...] = ()
    """the prompt tokens of each run that recorded them."""
    latency: tuple[float, ...] = ()
    """the duration in seconds of each run that recorded one."""


@dataclass(frozen=True, kw_only=True)
class SideFacts:
    """What the report shows of one side of one scenario beyond its metrics."""

    tools: ToolUse = field(default_factory=ToolUse)
    plot: PlotSample = field(default_factory=PlotSample)


@dataclass(frozen=True, kw_only=True)
class ScenarioFacts:
    """One compared scenario's tool usage and plot data, per side, and how it changed."""

    baseline: SideFacts = field(default_factory=SideFacts)
    """the baseline's tool usage and plot data."""
    candidate: SideFacts = field(default_factory=SideFacts)
    """the candidate's."""
    explanation: Explanation | None = None
    """what broke, the runs that show it and where the runs went (``None``: the scenario is not
    explained — it did not change, and not every scenario was asked for)."""
    description: str = ""
    """the scenario's description in the suite, as the candidate's run set recorded it (else the
    baseline's; empty when neither has one)."""


@dataclass(frozen=True, kw_only=True)
class ResilienceGroup:
    """The runs of one side that met one kind of fault (``(none met)``: faults planned, none
    met), and how they did; each rate is ``None`` when no run of the group was judged on it.
    """

    side: str
    """the side's label (:attr:`Side.label`)."""
    fault_kind: str
    """the fault kind."""
    runs: int
    """behavioural runs in the group."""
    passed: RateCount | None = None
    """runs that passed."""
    retried: RateCount | None = None
    """runs that retried after the fault."""
    recovered_or_escalated: RateCount | None = None
    """runs that recovered or escalated."""
    no_fabricated_result: RateCount | None = None
    """runs that presented no fabricated result."""


@dataclass(frozen=True, kw_only=True)
class HistoryFacts:
    """How the baseline was pooled from its history (what ``PooledBaseline`` says, without its
    rows).
    """

    batches: Mapping[str, tuple[str, ...]]
    """per scenario, the labels of the batches pooled (newest first)."""
    changed: tuple[str, ...]
    """scenarios whose candidate definition matches no kept batch."""
    available: int
    """batches in the history."""


@dataclass(frozen=True, kw_only=True)
class ABOverall:
    """The overall part of an A/B comparison (``ABResult`` without its per-scenario report)."""

    variant_a: str
    variant_b: str
    answer: Answer
    summary: str
    detectable_difference: float | None
    overall: tuple[Overall, ...]
    pairwise: PairwiseResult | None = None
    """The pairwise judge's preferences and their test (``None``: the suite has none)."""


@dataclass(frozen=True, kw_only=True)
class ReportDocument:
    """Everything the reports of one comparison say."""

    kind: ReportKind
    """the job that made it."""
    comparison: Comparison
    """the per-scenario comparison (in an A/B document, variant A plays the baseline)."""
    ab: ABOverall | None = None
    """the A/B answer and overall tests (``None`` unless ``kind`` is ``ab``)."""
    baseline: Side
    """the baseline side."""
    candidate: Side
    """the candidate side."""
    scenarios: Mapping[str, ScenarioFacts]
    """per compared scenario, its tool usage and plot data."""
    resilience: tuple[ResilienceGroup, ...] = ()
    """the resilience table's groups, in the order shown."""
    history: HistoryFacts | None = None
    """the baseline history's pooling (``None``: a single baseline batch)."""
    plots: Mapping[str, str] = field(default_factory=dict)
    """scenario → the path of its PNG, relative to the report (``plots/<name>.png``, one file name
    of letters, digits, ``_``, ``.`` and ``-``)."""
    command: str | None = None
    """the command that reproduces the report."""
    design: DesignRecord = field(default_factory=FixedRecord)
    """the design the runs were made under, tagged by its ``name``: ``fixed`` (one look; the
    comparison decides), ``sequential``, ``escalation`` or ``budget`` (the design decides its
    gating verdicts; docs/explanation/statistics.md §4)."""
    require_power: bool = False
    """a blind night (``comparison.blind``) exits 4 (``--require-power``)."""
    trend: TrendFacts | None = None
    """the suite's nights from the store of nights, this one the newest (``None``: no ``--store``).
    """
    floors: FloorResult | None = None
    """the scenarios' floors and ceilings checked on the candidate's runs (both variants' in an A/B;
    ``None``: no scenario has a ``floor``)."""
    conversations: tuple[ConversationFacts, ...] = ()
    """the conversational scenarios' turn pass rates and endings."""

    def __post_init__(self) -> None:
        compared = {s.scenario for s in self.comparison.scenarios}
        missing = sorted(compared - set(self.scenarios))
        if missing:
            raise ValueError(f"report document lacks the facts of scenario(s) {missing}")
        unknown = sorted(set(self.plots) - compared)
        if unknown:
            raise ValueError(f"report document plots scenario(s) it did not compare: {unknown}")
        unsafe = sorted(p for p in self.plots.values() if not _PLOT_PATH.fullmatch(p))
        if unsafe:
            raise ValueError(f"report document plot path(s) {unsafe} are not plots/<name>.png")
        if (self.ab is None) != (self.kind is not ReportKind.AB):
            raise ValueError("a report document has A/B results exactly when its kind is 'ab'")

    @property
    def exit_code(self) -> int:
        """The command's exit code: 1 when the night failed or a floor was not met (an A/B
        fails only on a floor), 6 when a budget ended the candidate's batch before its plan (and
        it did not fail), 4 when it was blind and power was required, 5 when the trend was asked
        to gate (``--fail-on-change``) and raised a harmful alarm on this night, else 0."""
        below = self.floors is not None and not self.floors.met
        cut = bool(self.candidate.budget_not_run)
        if self.kind is ReportKind.AB:
            if below:
                return EXIT_REGRESSED
            return EXIT_BUDGET if cut else EXIT_OK
        code = exit_code(
            failed=self.comparison.regressed or below,
            blind=bool(self.comparison.blind),
            require_power=self.require_power,
        )
        if cut and code != EXIT_REGRESSED:
            return EXIT_BUDGET
        trend = self.trend
        if code == EXIT_OK and trend is not None and trend.fail_on_change:
            return EXIT_ALARM if trend.alarmed_tonight else EXIT_OK
        return code

    @property
    def suite(self) -> str:
        """The suite the report is about (the candidate's, else the baseline's)."""
        return self.candidate.suite or self.baseline.suite or "suite"
