"""The metric and tolerance tables: the one place a metric is described.

Every table, plot, plan row, tolerance check and evaluator dispatch reads :data:`METRICS` and
:data:`TOLERANCES`. Adding a metric is one :class:`Metric` entry plus its evaluator in
:mod:`trajguard.comparison._evaluators`. The order of :data:`METRICS` is part of the seeding of the
permutation tests (each metric's generator is keyed by its position): append, never reorder.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from trajguard import _catalog
from trajguard._catalog import TOLERANCES, Tolerance, canonical_metric, tolerance
from trajguard.comparison import _evaluators as ev
from trajguard.comparison._arms import NUMBER_COLUMNS, Arm
from trajguard.comparison._joint import flag_column, rate_column, statistic_column
from trajguard.comparison._metric import BoolArray, Metric

__all__ = [
    "DEFAULT_GATING",
    "DIRECTIONAL",
    "METRICS",
    "METRIC_NAMES",
    "SHARED_STREAM",
    "TOLERANCES",
    "Metric",
    "Tolerance",
    "canonical_tolerances",
    "metric",
    "metric_stream",
    "tolerance",
]


_TOLERANCE_BY_NAME = {n: t for t in TOLERANCES for n in (t.name, *t.aliases)}


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
        name="tool_usage",
        label="tool usage",
        column="tool_counts",
        unit="calls",
        kind="tools",
        higher_is_better=None,
        tolerance="tool_usage",
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
    Metric(
        name="cost",
        label="cost",
        column="cost_usd",
        unit="USD",
        kind="ratio",
        higher_is_better=False,
        tolerance="cost",
        plan_label="cost ratio",
        evaluate=ev.cost,
        conditional=True,
        joint=statistic_column("ratio"),
    ),
    Metric(
        name="user_turns",
        label="user turns",
        column="user_turns",
        unit="turns",
        kind="shift",
        higher_is_better=False,
        tolerance="steps",
        evaluate=ev.shift,
        joint=statistic_column("shift"),
        conditional=True,  # conversations only: a scenario of one message leaves it out
    ),
)
_BY_NAME = {m.name: m for m in METRICS}
METRIC_NAMES = tuple(_BY_NAME)
assert METRIC_NAMES == _catalog.METRIC_NAMES, "the metrics are trajguard._catalog's, in its order"
DIRECTIONAL = frozenset(m.name for m in METRICS if m.directional)
DEFAULT_GATING = frozenset(m.name for m in METRICS if m.gating)
assert DEFAULT_GATING == _catalog.DEFAULT_GATING, "the default gates are trajguard._catalog's"

assert all(m.column in NUMBER_COLUMNS for m in METRICS if m.kind in ("shift", "ratio")), (
    "every numeric metric must read a column the arms keep"
)
assert all(
    band is None or band in _TOLERANCE_BY_NAME
    for m in METRICS
    for band in (m.tolerance, m.equivalence)
), "every metric's tolerance and equivalence margin must be in TOLERANCES"


SHARED_STREAM = 12
"""The random stream of a scenario's shared arrangements (the next one: their refinement):
the number of metrics before cost was appended, kept so earlier reports reproduce."""


def metric_stream(name: str) -> int:
    """The random stream of a metric's own tests: its position, past the shared streams for
    the metrics appended after them (cost)."""
    index = METRIC_NAMES.index(canonical_metric(name))
    return index if index < SHARED_STREAM else index + 2


def metric(name: str) -> Metric:
    """The metric called ``name`` or an earlier name of it (``KeyError`` when unknown)."""
    return _BY_NAME[canonical_metric(name)]
