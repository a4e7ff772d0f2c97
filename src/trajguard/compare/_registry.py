"""The metric and tolerance tables: the one place a metric is described.

Every table, plot, plan row, tolerance check and evaluator dispatch reads :data:`METRICS` and
:data:`TOLERANCES`. Adding a metric is one :class:`Metric` entry plus its evaluator in
:mod:`trajguard.compare._evaluators`. The order of :data:`METRICS` is part of the seeding of the
permutation tests (each metric's generator is keyed by its position): append, never reorder.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt

from trajguard.compare import _evaluators as ev
from trajguard.compare._arms import NUMBER_COLUMNS, Arm
from trajguard.compare._evaluation import Summary
from trajguard.compare._joint import JointBuilder, flag_column, rate_column, statistic_column
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

Kind = Literal["rate", "shift", "ratio", "tools", "order"]
BoolArray = npt.NDArray[np.bool_]


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


@dataclass(frozen=True, kw_only=True)
class Metric:
    """One metric of a comparison.

    Attributes:
        name: its key in configs, reports and JSON.
        label: how tables name it.
        column: the run-table column it reads.
        unit: the unit of its values ("" when none).
        kind: how its values and effect are shown: ``rate`` (Δ points), ``shift`` (A),
            ``ratio`` (ratio of geometric means), ``tools`` (Cramér's V), ``order`` (Δd).
        higher_is_better: its direction; ``None`` for metrics without one (any change counts).
        tolerance: its tolerance band, if it has one (how far it may move before a significant
            change is a regression).
        equivalence: the margin of its equivalence test, when not the tolerance band (tool
            usage: the per-tool ``tools`` band).
        gating: whether it gates (fails the night) by default.
        plan_label: its row in ``trajguard plan``, if planned.
        evaluate: the evaluator, ``(baseline arm, candidate arm, context) -> Evaluation``.
        joint: its p-value at every arrangement of a scenario's runs, for the scenario's
            combined gating test (:mod:`trajguard.compare._gating`).
        suite: its suite-level test across scenarios: ``cmh`` (rates) or ``combined`` (Fisher
            combination of the scenarios' permutation p-values).
        conditional: judged only on some runs (resilience: those that met a fault), so a
            scenario where neither batch has such runs leaves it out of its table.
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
    evaluate: ev.Evaluator
    equivalence: str | None = None
    joint: JointBuilder
    suite: Literal["cmh", "combined"] = "combined"
    conditional: bool = False

    @property
    def equivalence_band(self) -> str | None:
        """The tolerance name of its equivalence margin."""
        return self.equivalence or self.tolerance

    @property
    def heading(self) -> str:
        """The label with its unit, for table rows."""
        return f"{self.label} ({self.unit})" if self.unit == "s" else self.label

    @property
    def directional(self) -> bool:
        """The metric has a harmful and a beneficial direction."""
        return self.higher_is_better is not None

    @property
    def no_change(self) -> float:
        """The effect estimate that means no change."""
        return {"rate": 0.0, "shift": 0.5, "ratio": 1.0}.get(self.kind, 0.0)

    def no_worse(self, estimate: float | None) -> bool:
        """The candidate's estimate is on the beneficial side of no change (or at it)."""
        if estimate is None or self.higher_is_better is None:
            return False
        if self.higher_is_better:
            return estimate >= self.no_change
        return estimate <= self.no_change

    def format_value(self, value: float | None) -> str:
        """One batch's value: a rate in percent, anything else to three digits."""
        if value is None:
            return "—"
        return f"{100 * value:.0f}%" if self.kind == "rate" else f"{value:.3g}"

    def format_side(self, summary: Summary) -> str:
        """One batch's summary in a table cell."""
        if summary.n == 0:
            return "no runs"
        if self.kind == "rate":
            return f"{self.format_value(summary.mean)} (n={summary.n})"
        if self.kind in ("tools", "order"):
            return f"n={summary.n}"
        if summary.geometric_mean is not None:
            # Tokens and latency: the effect is a ratio of geometric means, so show those.
            return f"gmean {self.format_value(summary.geometric_mean)} (n={summary.n})"
        shown = summary.median if summary.median is not None else summary.mean
        return f"median {self.format_value(shown)} (n={summary.n})"

    def format_effect(
        self, estimate: float | None, ci: tuple[float, float] | None
    ) -> tuple[str, str]:
        """The effect and its interval, as table cells."""
        if estimate is None:
            return "—", "—"
        scale = 100 if self.kind == "rate" else 1
        value = scale * estimate
        shown = {
            "rate": f"Δ {value:+.0f} pts",
            "shift": f"A = {value:.2f}",
            "ratio": f"×{value:.2f}",
            "tools": f"TVD = {value:.2f}",
            "order": f"new {100 * value:+.0f} pts",
        }[self.kind]
        if ci is None:
            return shown, "—"
        return shown, f"[{scale * ci[0]:.3g}, {scale * ci[1]:.3g}]"

    def format_difference(self, value: float | None) -> str:
        """A difference between variants (A/B overall): points, steps or a ratio."""
        if value is None:
            return "—"
        if self.kind == "rate":
            return f"{100 * value:+.0f} pts"
        if self.kind == "shift":
            return f"{value:+.2f} steps"
        if self.kind == "tools":
            return f"TVD {value:.2f}"
        if self.kind == "order":
            return f"new {100 * value:+.0f} pts"
        return f"×{value:.2f}"

    def format_interval(self, ci: tuple[float, float] | None) -> str:
        """An interval of :meth:`format_difference` values."""
        if ci is None:
            return "—"
        if self.kind == "rate":
            return f"[{100 * ci[0]:+.0f}, {100 * ci[1]:+.0f}] pts"
        return f"[{ci[0]:.3g}, {ci[1]:.3g}]"

    def format_detectable(self, value: float | None) -> str:
        """A detectable effect in ``trajguard plan``."""
        if value is None:
            return "none detectable"
        if self.kind == "rate":
            return f"{100 * value:.0f} pts"
        return f"×{value:.2f}" if self.kind == "ratio" else f"{value:.2f}"

    def format_band(self, value: float) -> str:
        """A tolerance band of this metric, as the headline states it."""
        if self.kind == "rate":
            return f"±{100 * value:.0f} pts"
        if self.kind == "shift":
            return f"A within 0.5 ± {value:.2g}"
        if self.kind == "ratio":
            return f"within ×{value:.3g}"
        if self.kind == "tools":
            return f"TVD ≤ {value:.2g}"
        return f"≤ {100 * value:.0f} pts more new sequences than by chance"

    def format_plan_baseline(self, value: float) -> str:
        """The baseline value a plan row assumed."""
        if self.kind == "rate":
            return f"{100 * value:.0f}%"
        return f"A = {value:.2f}" if self.kind == "shift" else f"sd(log) {value:.2f}"


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
