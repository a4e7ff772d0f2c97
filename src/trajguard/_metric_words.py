"""How a metric reads: its heading, its direction and its values, effects and bands as text.

Standard library only, like :mod:`trajguard._metric_table`, whose
:class:`~trajguard._metric_table.MetricDescription` takes these words from :class:`MetricWords`;
so the renderers (``trajguard report``, ``trend``, ``plan``) word a metric without the
comparison's evaluators, numpy or pandas (issue 40).
"""

from __future__ import annotations

from typing import Literal, Protocol

__all__ = ["BatchSummary", "Kind", "MetricWords"]

Kind = Literal["rate", "shift", "ratio", "tools", "order", "paths"]


class BatchSummary(Protocol):
    """What :meth:`MetricWords.format_side` reads of one batch's summary
    (:class:`trajguard.comparison.Summary`)."""

    @property
    def n(self) -> int: ...
    @property
    def mean(self) -> float | None: ...
    @property
    def median(self) -> float | None: ...
    @property
    def geometric_mean(self) -> float | None: ...


class MetricWords:
    """The words of a metric, from the fields of its description."""

    label: str
    unit: str
    kind: Kind
    higher_is_better: bool | None
    tolerance: str | None
    equivalence: str | None

    @property
    def equivalence_band(self) -> str | None:
        """The tolerance name of its equivalence margin."""
        return self.equivalence or self.tolerance

    @property
    def heading(self) -> str:
        """The label with its unit, for table rows."""
        return f"{self.label} ({self.unit})" if self.unit in ("s", "USD") else self.label

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

    def format_side(self, summary: BatchSummary) -> str:
        """One batch's summary in a table cell."""
        if summary.n == 0:
            return "no runs"
        if self.kind == "rate":
            return f"{self.format_value(summary.mean)} (n={summary.n})"
        if self.kind in ("tools", "order"):
            return f"n={summary.n}"
        if self.kind == "paths":
            failed = "—" if summary.mean is None else f"{100 * summary.mean:.0f}% failed"
            return f"{failed} (n={summary.n})"
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
            "paths": f"{100 * value:+.0f} pts on one path",
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
        if self.kind == "paths":
            return f"{100 * value:+.0f} pts on one path"
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
        if self.kind == "paths":
            return f"≤ {100 * value:.0f} pts more runs failing along one path"
        return f"≤ {100 * value:.0f} pts more new sequences than by chance"

    def format_plan_baseline(self, value: float) -> str:
        """The baseline value a plan row assumed."""
        if self.kind == "rate":
            return f"{100 * value:.0f}%"
        return f"A = {value:.2f}" if self.kind == "shift" else f"sd(log) {value:.2f}"
