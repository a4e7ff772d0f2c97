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
from typing import Literal

from trajguard.comparison import (
    EXIT_BUDGET,
    EXIT_OK,
    EXIT_REGRESSED,
    Answer,
    BudgetOutcome,
    Comparison,
    EscalationPlan,
    EscalationStop,
    FloorResult,
    Overall,
    PairwiseResult,
    SequentialOutcome,
    exit_code,
)
from trajguard.results._conversations import ConversationFacts
from trajguard.results._cost import BatchCost
from trajguard.results._explanation import Explanation, RateCount
from trajguard.results._trend_facts import EXIT_ALARM, TrendFacts

__all__ = [
    "DOCUMENT_SCHEMA_VERSION",
    "ABOverall",
    "DesignRecord",
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

DOCUMENT_SCHEMA_VERSION = 2
"""Bumped whenever a field of the document changes meaning or goes away."""

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

    Attributes:
        label: the side as the resilience table names it (``baseline (base)`` when all its runs
            are of one variant).
        path: the run set as the report shows it (``runs (variant A)`` in an A/B report).
        suite: the suite its manifest names.
        models: the models it ran.
        git_sha: the commit it ran at.
        started_at: when its batch started (ISO 8601).
        finished_at: when its batch finished.
        trajguard_version: the trajguard that ran it.
        batch_seed: the batch seed.
        config_hashes: ``scenario/variant`` → the definition's config hash.
        machine: the machine record of its manifest (``None`` when it has none).
        history_batches: the batches pooled from a baseline history (newest first; empty
            without one).
        status: the batch's status (``finished`` once complete).
        batch_id: the batch's id.
        imported_from: the tool whose eval logs the run set was imported from (``inspect``,
            ``promptfoo``, ``harbor``; ``None``: trajguard ran it).
        lacks: what those logs do not record (missing in its rows: trajectories, token usage).
        pass_rule: how the logs' scores became ``passed``, as the importer stated it.
        source_files: the logs it was imported from, as given to ``trajguard import``.
        source_figures: the tool's own headline figure beside trajguard's pass rate, and why
            they differ, as the import summary printed them.
        stopped: why the batch stopped before its plan, as its manifest says (``None``: it
            did not stop early, or does not say).
        budget_not_run: scenario → the planned runs a budget (``--max-cost``,
            ``--max-minutes``) left unmade (empty: no budget ended the batch).
    """

    label: str
    path: str
    suite: str | None = None
    models: tuple[str, ...] = ()
    git_sha: str | None = None
    started_at: str | None = None
    finished_at: str | None = None
    trajguard_version: str | None = None
    batch_seed: str | None = None
    config_hashes: Mapping[str, str] = field(default_factory=dict)
    machine: Mapping[str, Scalar] | None = None
    history_batches: tuple[str, ...] = ()
    status: str | None = None
    batch_id: str | None = None
    imported_from: str | None = None
    lacks: tuple[str, ...] = ()
    pass_rule: str | None = None
    source_files: tuple[str, ...] = ()
    source_figures: tuple[str, ...] = ()
    stopped: str | None = None
    budget_not_run: Mapping[str, int] = field(default_factory=dict)
    cost: BatchCost | None = None
    """What its runs cost (``None``: a document written before costs were kept)."""


@dataclass(frozen=True, kw_only=True)
class TopSequence:
    """The most common tool sequence of a scenario's first arm (in ``summarize``'s order).

    Attributes:
        sequence: the tools called, in order.
        count: behavioural runs that called exactly this sequence.
        runs: every run of the arm, harness errors included.
        distinct: distinct sequences among its behavioural runs.
    """

    sequence: tuple[str, ...]
    count: int
    runs: int
    distinct: int


@dataclass(frozen=True, kw_only=True)
class ToolUse:
    """One side's tool usage in one scenario.

    Attributes:
        calls: tool → mean calls per behavioural run.
        top: its most common sequence (``None`` when no run recorded one).
    """

    calls: Mapping[str, float] = field(default_factory=dict)
    top: TopSequence | None = None


@dataclass(frozen=True, kw_only=True)
class PlotSample:
    """One side of one scenario as its distribution plot draws it (behavioural runs only).

    Attributes:
        pass_rate: passed over judged runs (``None`` when none was judged).
        crash_rate: crashed over behavioural runs (``None`` without any).
        judged: judged runs, as :func:`trajguard.outcome.tally` counts them.
        steps: the step count of each run that recorded one.
        prompt_tokens: the prompt tokens of each run that recorded them.
        latency: the duration in seconds of each run that recorded one.
    """

    pass_rate: float | None = None
    crash_rate: float | None = None
    judged: int = 0
    steps: tuple[float, ...] = ()
    prompt_tokens: tuple[float, ...] = ()
    latency: tuple[float, ...] = ()


@dataclass(frozen=True, kw_only=True)
class SideFacts:
    """What the report shows of one side of one scenario beyond its metrics."""

    tools: ToolUse = field(default_factory=ToolUse)
    plot: PlotSample = field(default_factory=PlotSample)


@dataclass(frozen=True, kw_only=True)
class ScenarioFacts:
    """One compared scenario's tool usage and plot data, per side, and how it changed.

    Attributes:
        baseline: the baseline's tool usage and plot data.
        candidate: the candidate's.
        explanation: what broke, the runs that show it and where the runs went (``None``: the
            scenario is not explained — it did not change, and not every scenario was asked for).
        description: the scenario's description in the suite, as the candidate's run set
            recorded it (else the baseline's; empty when neither has one).
    """

    baseline: SideFacts = field(default_factory=SideFacts)
    candidate: SideFacts = field(default_factory=SideFacts)
    explanation: Explanation | None = None
    description: str = ""


@dataclass(frozen=True, kw_only=True)
class ResilienceGroup:
    """The runs of one side that met one kind of fault (``(none met)``: faults planned, none
    met), and how they did; each rate is ``None`` when no run of the group was judged on it.

    Attributes:
        side: the side's label (:attr:`Side.label`).
        fault_kind: the fault kind.
        runs: behavioural runs in the group.
        passed: runs that passed.
        retried: runs that retried after the fault.
        recovered_or_escalated: runs that recovered or escalated.
        no_fabricated_result: runs that presented no fabricated result.
    """

    side: str
    fault_kind: str
    runs: int
    passed: RateCount | None = None
    retried: RateCount | None = None
    recovered_or_escalated: RateCount | None = None
    no_fabricated_result: RateCount | None = None


@dataclass(frozen=True, kw_only=True)
class HistoryFacts:
    """How the baseline was pooled from its history (what ``PooledBaseline`` says, without its
    rows).

    Attributes:
        batches: per scenario, the labels of the batches pooled (newest first).
        changed: scenarios whose candidate definition matches no kept batch.
        available: batches in the history.
    """

    batches: Mapping[str, tuple[str, ...]]
    changed: tuple[str, ...]
    available: int


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
class DesignRecord:
    """How many runs the comparison made, look by look, and who decided significance.

    Attributes:
        name: ``fixed`` (one look; the comparison decides), ``sequential``, ``escalation`` or
            ``budget`` (the design decides its gating verdicts; docs/explanation/statistics.md §4).
        sequential: the sequential design's plan, looks and stops.
        escalation: the escalation plan (its looks, levels and lean rule).
        stops: where each scenario of an escalated run stopped, and why (in the order decided).
        unit: what a run count counts (``runs``, or ``runs per variant`` in an A/B).
        budget: the budgeted design's budget, runs per scenario and stops.
    """

    name: Literal["fixed", "sequential", "escalation", "budget"] = "fixed"
    sequential: SequentialOutcome | None = None
    escalation: EscalationPlan | None = None
    stops: tuple[EscalationStop, ...] = ()
    unit: str = "runs"
    budget: BudgetOutcome | None = None


@dataclass(frozen=True, kw_only=True)
class ReportDocument:
    """Everything the reports of one comparison say.

    Attributes:
        kind: the job that made it.
        comparison: the per-scenario comparison (in an A/B document, variant A plays the
            baseline).
        ab: the A/B answer and overall tests (``None`` unless ``kind`` is ``ab``).
        baseline: the baseline side.
        candidate: the candidate side.
        scenarios: per compared scenario, its tool usage and plot data.
        resilience: the resilience table's groups, in the order shown.
        history: the baseline history's pooling (``None``: a single baseline batch).
        plots: scenario → the path of its PNG, relative to the report (``plots/<name>.png``,
            one file name of letters, digits, ``_``, ``.`` and ``-``).
        command: the command that reproduces the report.
        design: the design the runs were made under.
        require_power: a blind night (``comparison.blind``) exits 4 (``--require-power``).
        trend: the suite's nights from the store of nights, this one the newest (``None``:
            no ``--store``).
        floors: the scenarios' floors and ceilings checked on the candidate's runs (both
            variants' in an A/B; ``None``: no scenario has a ``floor``).
        conversations: the conversational scenarios' turn pass rates and endings.
    """

    kind: ReportKind
    comparison: Comparison
    ab: ABOverall | None = None
    baseline: Side
    candidate: Side
    scenarios: Mapping[str, ScenarioFacts]
    resilience: tuple[ResilienceGroup, ...] = ()
    history: HistoryFacts | None = None
    plots: Mapping[str, str] = field(default_factory=dict)
    command: str | None = None
    design: DesignRecord = field(default_factory=DesignRecord)
    require_power: bool = False
    trend: TrendFacts | None = None
    floors: FloorResult | None = None
    conversations: tuple[ConversationFacts, ...] = ()

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
