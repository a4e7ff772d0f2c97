"""The metric and tolerance tables: the one place a metric is described.

Every table, plot, plan row, tolerance check and evaluator dispatch reads :data:`METRICS` and
:data:`TOLERANCES`. Adding a metric is one :class:`Metric` entry plus its evaluator in
:mod:`trajguard.compare._evaluators`. The order of :data:`METRICS` is part of the seeding of the
permutation tests (each metric's generator is keyed by its position): append, never reorder.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from trajguard.compare import _evaluators as ev
from trajguard.compare._arms import NUMBER_COLUMNS, Arm
from trajguard.compare._joint import flag_column, rate_column, statistic_column
from trajguard.compare._metric import BoolArray, Metric
from trajguard.compare._tolerance import Tolerance

__all__ = [
    "DEFAULT_GATING",
    "DIRECTIONAL",
    "METRICS",
    "METRIC_NAMES",
    "TOLERANCES",
    "Metric",
    "Tolerance",
    "canonical_tolerances",
    "metric",
    "tolerance",
]


TOLERANCES: tuple[Tolerance, ...] = (
    Tolerance(
        name="pass_rate",
        default=0.10,
        scale="difference",
        meaning="pass-rate difference (0.10 = ten points)",
    ),
    Tolerance(
        name="crash_rate",
        default=0.05,
        scale="difference",
        meaning="crash-rate difference (0.05 = five points)",
    ),
    Tolerance(
        name="steps",
        aliases=("step_count",),
        default=0.10,
        scale="distance",
        meaning="distance of A = P(candidate > baseline) + ½P(tie) from 0.5 for steps",
    ),
    Tolerance(
        name="ratio",
        aliases=("tokens", "latency"),
        default=1.15,
        scale="ratio",
        meaning="geometric-mean ratio of tokens and latency (one shared band)",
    ),
    Tolerance(
        name="tools",
        default=0.10,
        scale="distance",
        meaning="distance of A from 0.5 for each tool's calls per run (the equivalence margin "
        "of tool usage: what 'unchanged' needs)",
    ),
    Tolerance(
        name="tool_mix",
        default=0.10,
        scale="share",
        meaning="total-variation distance of the tool mix (0.10 = a tenth of the calls and run "
        "ends go to other tools)",
    ),
    Tolerance(
        name="tool_order",
        default=0.20,
        scale="share",
        meaning="share of candidate runs with a tool sequence the baseline never showed, beyond "
        "the baseline's own rate of new sequences",
    ),
    Tolerance(
        name="failing_paths",
        default=0.10,
        scale="share",
        meaning="rise in the share of judged runs that fail along one path (the tool a run "
        "called most, or none; 0.10 = ten points)",
    ),
    Tolerance(
        name="resilience",
        default=0.10,
        scale="difference",
        meaning="difference of each resilience rate (over the runs that met a fault)",
    ),
)
_TOLERANCE_BY_NAME = {n: t for t in TOLERANCES for n in (t.name, *t.aliases)}


def tolerance(name: str) -> Tolerance:
    """The tolerance band a name (or alias) stands for (``KeyError`` when unknown)."""
    return _TOLERANCE_BY_NAME[name]


def canonical_tolerances(values: Mapping[str, float]) -> dict[str, float]:
    """Tolerance values keyed by canonical name (aliases resolved; unknown names: KeyError)."""
    return {tolerance(name).name: float(value) for name, value in values.items()}


def _passes(arm: Arm) -> tuple[BoolArray, BoolArray]:
    return arm.passed_runs, arm.judged_runs


def _crashes(arm: Arm) -> tuple[BoolArray, BoolArray]:
    return arm.crashed, np.ones(arm.runs, dtype=bool)


def _resilience(name: str, label: str, column: str) -> Metric:
    """A resilience rate, over the runs that met a fault (README, "Chaos")."""
    return Metric(
        name=name,
        label=label,
        column=column,
        kind="rate",
        higher_is_better=True,
        tolerance="resilience",
        evaluate=ev.flag_rate,
        joint=flag_column(column),
        suite="cmh",
        conditional=True,
    )


METRICS: tuple[Metric, ...] = (
    Metric(
        name="pass_rate",
        label="pass rate",
        column="passed",
        kind="rate",
        higher_is_better=True,
        tolerance="pass_rate",
        gating=True,
        plan_label="pass-rate drop",
        evaluate=ev.pass_rate,
        joint=rate_column(_passes, harmful_high=False),
        suite="cmh",
    ),
    Metric(
        name="crash_rate",
        label="crash rate",
        column="crashed",
        kind="rate",
        higher_is_better=False,
        tolerance="crash_rate",
        gating=True,
        plan_label="crash-rate rise",
        evaluate=ev.crash_rate,
        joint=rate_column(_crashes, harmful_high=True),
        suite="cmh",
    ),
    Metric(
        name="step_count",
        label="steps",
        column="step_count",
        unit="steps",
        kind="shift",
        higher_is_better=False,
        tolerance="steps",
        plan_label="steps A",
        evaluate=ev.shift,
        joint=statistic_column("shift"),
    ),
    Metric(
        name="prompt_tokens",
        label="prompt tokens",
        column="prompt_tokens",
        unit="tokens",
        kind="ratio",
        higher_is_better=False,
        tolerance="ratio",
        plan_label="prompt-token ratio",
        evaluate=ev.ratio,
        joint=statistic_column("ratio"),
    ),
    Metric(
        name="completion_tokens",
        label="completion tokens",
        column="completion_tokens",
        unit="tokens",
        kind="ratio",
        higher_is_better=False,
        tolerance="ratio",
        plan_label="completion-token ratio",
        evaluate=ev.ratio,
        joint=statistic_column("ratio"),
    ),
    Metric(
        name="latency",
        label="latency",
        column="duration_s",
        unit="s",
        kind="ratio",
        higher_is_better=False,
        tolerance="ratio",
        evaluate=ev.ratio,
        joint=statistic_column("ratio"),
    ),
    Metric(
        name="tool_multiset",
        label="tool usage",
        column="tool_counts",
        unit="calls",
        kind="tools",
        higher_is_better=None,
        tolerance="tool_mix",
        equivalence="tools",
        gating=True,
        evaluate=ev.tool_usage,
        joint=statistic_column("tools"),
    ),
    Metric(
        name="tool_sequence",
        label="tool order",
        column="tool_sequence",
        kind="order",
        higher_is_better=None,
        tolerance="tool_order",
        evaluate=ev.tool_order,
        joint=statistic_column("order"),
    ),
    _resilience("retry_rate", "retried after a fault", "retried_after_fault"),
    _resilience("recovery_rate", "recovered or escalated", "recovered_or_escalated"),
    _resilience("no_fabrication_rate", "no fabricated result", "no_fabricated_result"),
    Metric(
        name="failing_paths",
        label="failing paths",
        column="passed",
        kind="paths",
        higher_is_better=None,
        tolerance="failing_paths",
        gating=True,
        evaluate=ev.failing_paths,
        joint=statistic_column("paths"),
    ),
)
_BY_NAME = {m.name: m for m in METRICS}
METRIC_NAMES = tuple(_BY_NAME)
DIRECTIONAL = frozenset(m.name for m in METRICS if m.directional)
DEFAULT_GATING = frozenset(m.name for m in METRICS if m.gating)

assert all(m.column in NUMBER_COLUMNS for m in METRICS if m.kind in ("shift", "ratio")), (
    "every numeric metric must read a column the arms keep"
)
assert all(
    band is None or band in _TOLERANCE_BY_NAME
    for m in METRICS
    for band in (m.tolerance, m.equivalence)
), "every metric's tolerance and equivalence margin must be in TOLERANCES"


def metric(name: str) -> Metric:
    """The metric called ``name`` (``KeyError`` when unknown)."""
    return _BY_NAME[name]
