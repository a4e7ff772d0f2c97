"""How to compare: levels, gating metrics, tolerance bands (global and per scenario), resampling."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from trajguard._catalog import canonical_metric, tolerance_problems
from trajguard._json_sets import SortedNames
from trajguard.comparison._evaluation import Resampling
from trajguard.comparison._registry import (
    DEFAULT_GATING,
    METRIC_NAMES,
    TOLERANCES,
    canonical_tolerances,
    tolerance,
)
from trajguard.errors import TrajguardError
from trajguard.outcome import DEFAULT_CRASH_STATUSES

__all__ = ["CompareConfig", "tolerance_problems"]


@dataclass(frozen=True, kw_only=True)
class CompareConfig:
    """How to compare. The tolerance bands are the margins of the equivalence tests too."""

    alpha: float = 0.05
    """family-wise level of the whole gating family, and the TOST level."""
    q: float = 0.10
    """false discovery rate of the diagnostic metrics (Benjamini-Hochberg)."""
    gating: SortedNames = DEFAULT_GATING
    """metrics whose regressions fail the report; the rest are diagnostic."""
    multiplicity: Literal["omnibus", "holm"] = "omnibus"
    """``omnibus`` (default): one combined test of the gating metrics per scenario, step-down min-p
    over scenarios, plus the suite-level tests; ``holm``: one test per gating metric and scenario,
    Holm (the method before the combined test)."""
    suite_share: float = 0.1
    """the share of ``alpha`` given to the suite-level tests (with at least two scenarios; 0 turns
    them off)."""
    metrics: tuple[str, ...] = METRIC_NAMES
    """metrics to compute."""
    tolerances: Mapping[str, float] = field(default_factory=dict)
    """tolerance bands by name (aliases accepted); unset ones take the defaults of
    :data:`trajguard.comparison.TOLERANCES`."""
    scenario_tolerances: Mapping[str, Mapping[str, float]] = field(default_factory=dict)
    """per scenario, bands that replace these (e.g. from the suite file)."""
    two_sided: bool = False
    """two-sided tests (A/B comparisons); otherwise one-sided per direction."""
    crash_statuses: SortedNames = DEFAULT_CRASH_STATUSES
    """statuses that count as a crash."""
    max_k: int = 8
    """largest k of pass^k."""
    power: float = 0.8
    """power at which the minimum detectable effect is stated."""
    resampling: Resampling = field(default_factory=Resampling)
    """permutation settings."""
    seed: int = 0
    """seed of the permutation generators (one stream per scenario and metric)."""
    token_floor: float = 1.0
    """tokens below this count as this before taking logs."""
    latency_floor: float = 1e-3
    """seconds below this count as this before taking logs."""
    cost_floor: float = 1e-12
    """US dollars below this count as this before taking logs (a run that cost nothing, e.g. at a
    price of 0, would otherwise have no logarithm)."""
    judge_unstable: Literal["warn", "fail"] = "warn"
    """``warn`` (default): a judge flagged unstable is a headline line; ``fail``: it also fails the
    night (``Comparison.regressed``, exit code 1)."""

    def __post_init__(self) -> None:
        # Earlier metric names (tool_multiset) are read as today's.
        object.__setattr__(self, "metrics", tuple(canonical_metric(m) for m in self.metrics))
        object.__setattr__(self, "gating", frozenset(canonical_metric(m) for m in self.gating))
        unknown = sorted((set(self.metrics) | set(self.gating)) - set(METRIC_NAMES))
        problems = [f"unknown metric(s) {unknown}"] if unknown else []
        problems += [
            f"{name} must be in (0, 1), got {value}"
            for name, value in (("alpha", self.alpha), ("q", self.q), ("power", self.power))
            if not 0 < value < 1
        ]
        if not 0 <= self.suite_share < 1:
            problems.append(f"suite_share must be in [0, 1), got {self.suite_share}")
        if self.multiplicity not in ("omnibus", "holm"):
            problems.append(f"multiplicity must be omnibus or holm, got {self.multiplicity!r}")
        problems += tolerance_problems(self.tolerances)
        for scenario, values in self.scenario_tolerances.items():
            problems += [f"scenario {scenario}: {p}" for p in tolerance_problems(values)]
        if problems:
            raise TrajguardError(
                "invalid comparison settings: " + "; ".join(problems),
                hint=f"metrics are {', '.join(METRIC_NAMES)}",
            )
        bands = {t.name: t.default for t in TOLERANCES} | canonical_tolerances(self.tolerances)
        object.__setattr__(self, "tolerances", bands)
        object.__setattr__(
            self,
            "scenario_tolerances",
            {s: canonical_tolerances(v) for s, v in self.scenario_tolerances.items() if v},
        )

    def tolerance(self, name: str) -> float:
        """The band of tolerance ``name`` (or alias) in these settings."""
        return self.tolerances[tolerance(name).name]

    def for_scenario(self, scenario: str) -> CompareConfig:
        """The settings with this scenario's own tolerance bands applied."""
        own = self.scenario_tolerances.get(scenario)
        if not own:
            return self
        return replace(self, tolerances={**self.tolerances, **own}, scenario_tolerances={})

    def with_updates(self, **changes: Any) -> CompareConfig:
        """A copy with some settings changed (tolerances merged into the current bands)."""
        if "tolerances" in changes:
            changes["tolerances"] = {**self.tolerances, **changes["tolerances"]}
        return replace(self, **changes)

    def floor(self, column: str) -> float:
        """What values of a ratio metric's column below it count as before taking logs."""
        return {"duration_s": self.latency_floor, "cost_usd": self.cost_floor}.get(
            column, self.token_floor
        )
