"""The metrics: the one table of their names, order, default gates and how each reads.

It imports only the standard library, so ``trajguard --help``, ``trajguard validate`` and the
suite loader reach it without numpy, pandas or scipy. :mod:`trajguard.comparison._registry`
builds its :data:`~trajguard.comparison.METRICS` from this table, giving each metric the
evaluator :attr:`MetricDescription.evaluator` names. Adding a metric is one entry here (plus its
evaluator when no existing one measures it). The order is part of the seeding of the permutation
tests (each metric's generator is keyed by its position): append, never reorder. How a metric
reads (:mod:`trajguard._metric_words`) is looked up with :func:`metric_description`, for code
that words a metric without computing it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Literal

from trajguard._metric_words import Kind, MetricWords

__all__ = [
    "DEFAULT_GATING",
    "METRIC_ALIASES",
    "METRIC_DESCRIPTIONS",
    "METRIC_NAMES",
    "Kind",
    "MetricDescription",
    "canonical_metric",
    "metric_description",
    "unknown_metrics",
]


@dataclass(frozen=True, kw_only=True)
class MetricDescription(MetricWords):
    """What a metric measures, how it is banded and how it reads (not how it is computed).

    Attributes:
        name: its key in configs, reports and JSON.
        label: how tables name it.
        column: the run-table column it reads.
        unit: the unit of its values ("" when none).
        kind: how its values and effect are shown: ``rate`` (Δ points), ``shift`` (A),
            ``ratio`` (ratio of geometric means), ``tools`` (TVD), ``order`` (new sequences),
            ``paths`` (rise of the largest failing path, in points).
        higher_is_better: its direction; ``None`` for metrics without one (any change counts).
        tolerance: its tolerance band, if it has one (how far it may move before a significant
            change is a regression).
        equivalence: the margin of its equivalence test, when not the tolerance band (tool
            usage: the per-tool ``tools`` band).
        gating: whether it gates (fails the night) by default.
        plan_label: its row in ``trajguard plan``, if planned.
        evaluator: the function of :mod:`trajguard.comparison._evaluators` that evaluates it.
        suite: its suite-level test across scenarios: ``cmh`` (rates) or ``combined`` (Fisher
            combination of the scenarios' permutation p-values).
        conditional: judged only on some runs (resilience: those that met a fault; cost: those
            whose model has a price), so a scenario where neither batch has such runs leaves
            it out of its table.
    """

    name: str
    label: str
    column: str
    unit: str = ""
    kind: Kind
    higher_is_better: bool | None
    tolerance: str | None
    gating: bool = False
    plan_label: str | None = None
    evaluator: str
    equivalence: str | None = None
    suite: Literal["cmh", "combined"] = "combined"
    conditional: bool = False


def _resilience(name: str, label: str, column: str) -> MetricDescription:
    """A resilience rate, over the runs that met a fault (README, "Chaos")."""
    return MetricDescription(
        name=name,
        label=label,
        column=column,
        kind="rate",
        higher_is_better=True,
        tolerance="resilience",
        evaluator="flag_rate",
        suite="cmh",
        conditional=True,
    )


METRIC_DESCRIPTIONS: tuple[MetricDescription, ...] = (
    MetricDescription(
        name="pass_rate",
        label="pass rate",
        column="passed",
        kind="rate",
        higher_is_better=True,
        tolerance="pass_rate",
        gating=True,
        plan_label="pass-rate drop",
        evaluator="pass_rate",
        suite="cmh",
    ),
    MetricDescription(
        name="crash_rate",
        label="crash rate",
        column="crashed",
        kind="rate",
        higher_is_better=False,
        tolerance="crash_rate",
        gating=True,
        plan_label="crash-rate rise",
        evaluator="crash_rate",
        suite="cmh",
    ),
    MetricDescription(
        name="step_count",
        label="steps",
        column="step_count",
        unit="steps",
        kind="shift",
        higher_is_better=False,
        tolerance="steps",
        plan_label="steps A",
        evaluator="shift",
    ),
    MetricDescription(
        name="prompt_tokens",
        label="prompt tokens",
        column="prompt_tokens",
        unit="tokens",
        kind="ratio",
        higher_is_better=False,
        tolerance="ratio",
        plan_label="prompt-token ratio",
        evaluator="ratio",
    ),
    MetricDescription(
        name="completion_tokens",
        label="completion tokens",
        column="completion_tokens",
        unit="tokens",
        kind="ratio",
        higher_is_better=False,
        tolerance="ratio",
        plan_label="completion-token ratio",
        evaluator="ratio",
    ),
    MetricDescription(
        name="latency",
        label="latency",
        column="duration_s",
        unit="s",
        kind="ratio",
        higher_is_better=False,
        tolerance="ratio",
        evaluator="ratio",
    ),
    MetricDescription(
        name="tool_usage",
        label="tool usage",
        column="tool_counts",
        unit="calls",
        kind="tools",
        higher_is_better=None,
        tolerance="tool_usage",
        equivalence="tools",
        gating=True,
        evaluator="tool_usage",
    ),
    MetricDescription(
        name="tool_sequence",
        label="tool order",
        column="tool_sequence",
        kind="order",
        higher_is_better=None,
        tolerance="tool_order",
        evaluator="tool_order",
    ),
    _resilience("retry_rate", "retried after a fault", "retried_after_fault"),
    _resilience("recovery_rate", "recovered or escalated", "recovered_or_escalated"),
    _resilience("no_fabrication_rate", "no fabricated result", "no_fabricated_result"),
    MetricDescription(
        name="failing_paths",
        label="failing paths",
        column="passed",
        kind="paths",
        higher_is_better=None,
        tolerance="failing_paths",
        gating=True,
        evaluator="failing_paths",
    ),
    MetricDescription(
        name="cost",
        label="cost",
        column="cost_usd",
        unit="USD",
        kind="ratio",
        higher_is_better=False,
        tolerance="cost",
        plan_label="cost ratio",
        evaluator="cost",
        conditional=True,
    ),
    MetricDescription(
        name="user_turns",
        label="user turns",
        column="user_turns",
        unit="turns",
        kind="shift",
        higher_is_better=False,
        tolerance="steps",
        evaluator="shift",
        conditional=True,  # conversations only: a scenario of one message leaves it out
    ),
)

METRIC_NAMES: tuple[str, ...] = tuple(m.name for m in METRIC_DESCRIPTIONS)
"""The metrics in the order of ``trajguard.comparison.METRICS``."""
_BY_NAME = {m.name: m for m in METRIC_DESCRIPTIONS}

DEFAULT_GATING: frozenset[str] = frozenset(m.name for m in METRIC_DESCRIPTIONS if m.gating)
"""The metrics whose regressions fail a report unless ``--gate`` names others."""

METRIC_ALIASES: Mapping[str, str] = {"tool_multiset": "tool_usage"}
"""Earlier names of metrics, still accepted (``--gate tool_multiset`` is ``tool_usage``)."""


def canonical_metric(name: str) -> str:
    """A metric's name with an earlier name resolved (unknown names are returned as given)."""
    return METRIC_ALIASES.get(name, name)


def unknown_metrics(names: Iterable[str]) -> list[str]:
    """The names that are neither a metric nor an earlier name of one, each once, in the given
    order (the one check of metric names: suites, ``--gate`` and the comparison settings)."""
    return [n for n in dict.fromkeys(names) if canonical_metric(n) not in METRIC_NAMES]


def metric_description(name: str) -> MetricDescription:
    """The metric called ``name`` or an earlier name of it, as it reads (``KeyError`` when
    unknown); :func:`trajguard.comparison.metric` gives it with how it is computed."""
    return _BY_NAME[canonical_metric(name)]
