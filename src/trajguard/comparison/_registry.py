"""The metrics as the comparison computes them: the one table of
:mod:`trajguard._metric_table`, each description given its evaluator and its p-values on the
joint arrangements.

Every tolerance check and evaluator dispatch reads :data:`METRICS` and :data:`TOLERANCES`;
tables, plots and plan rows word a metric from the table alone
(:func:`trajguard._metric_table.metric_description`), without this module. Adding a metric
is one entry in that table (plus its evaluator in :mod:`trajguard.comparison._evaluators` when
no existing one measures it). The order of :data:`METRICS` is that table's, part of the seeding
of the permutation tests (each metric's generator is keyed by its position): append, never
reorder.
"""

from __future__ import annotations

from dataclasses import fields

import numpy as np

from trajguard._catalog import TOLERANCES, Tolerance, tolerance
from trajguard._metric_table import (
    DEFAULT_GATING,
    METRIC_DESCRIPTIONS,
    METRIC_NAMES,
    MetricDescription,
    canonical_metric,
)
from trajguard.comparison import _evaluators as ev
from trajguard.comparison._arms import NUMBER_COLUMNS, Arm
from trajguard.comparison._joint import JointBuilder, flag_column, rate_column, statistic_column
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
    "metric",
    "metric_stream",
    "tolerance",
]


_TOLERANCE_BY_NAME = {n: t for t in TOLERANCES for n in (t.name, *t.aliases)}


def _passes(arm: Arm) -> tuple[BoolArray, BoolArray]:
    return arm.passed_runs, arm.judged_runs


def _crashes(arm: Arm) -> tuple[BoolArray, BoolArray]:
    return arm.crashed, np.ones(arm.runs, dtype=bool)


def _evaluator(description: MetricDescription) -> ev.Evaluator:
    """The function of :mod:`trajguard.comparison._evaluators` a description names."""
    assert description.evaluator in ev.__all__, f"no evaluator {description.evaluator!r}"
    evaluate: ev.Evaluator = getattr(ev, description.evaluator)
    return evaluate


def _joint(description: MetricDescription) -> JointBuilder:
    """A metric's p-values on the joint arrangements: a rate's exact test, else its statistic."""
    if description.kind != "rate":
        return statistic_column(description.kind)
    if description.evaluator == "flag_rate":  # a resilience rate, of the runs that met a fault
        return flag_column(description.column)
    arms = _passes if description.evaluator == "pass_rate" else _crashes
    return rate_column(arms, harmful_high=not description.higher_is_better)


METRICS: tuple[Metric, ...] = tuple(
    Metric(
        **{f.name: getattr(d, f.name) for f in fields(d)},
        evaluate=_evaluator(d),
        joint=_joint(d),
    )
    for d in METRIC_DESCRIPTIONS
)
_BY_NAME = {m.name: m for m in METRICS}
DIRECTIONAL = frozenset(m.name for m in METRICS if m.directional)

assert all(m.column in NUMBER_COLUMNS for m in METRICS if m.kind in ("shift", "ratio")), (
    "every numeric metric must read a column the arms keep"
)
assert all(
    band is None or band in _TOLERANCE_BY_NAME
    for m in METRICS
    for band in (m.tolerance, m.equivalence)
), "every metric's tolerance and equivalence margin must be in TOLERANCES"
assert all(
    m.evaluator in ("pass_rate", "crash_rate", "flag_rate") for m in METRICS if m.kind == "rate"
), "a rate's joint test is the pass rate's, the crash rate's or a resilience flag's"


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
