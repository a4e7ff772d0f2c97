"""How to compare: levels, gating metrics, tolerance bands (global and per scenario), resampling."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from trajguard._catalog import TOLERANCES, canonical_tolerances, tolerance, tolerance_problems
from trajguard._json_sets import SortedNames
from trajguard._metric_table import DEFAULT_GATING, METRIC_NAMES, canonical_metric, unknown_metrics
from trajguard.comparison._evaluation import Resampling
from trajguard.errors import TrajguardError
from trajguard.outcome import DEFAULT_CRASH_STATUSES

__all__ = ["CompareConfig", "InvalidSettings", "SettingProblem", "tolerance_problems"]


@dataclass(frozen=True, kw_only=True)
class SettingProblem:
    """One thing wrong with comparison settings, kept apart so the command line can name the
    option that set it.

    Attributes:
        setting: the :class:`CompareConfig` field (``gating``, ``suite_share``, ``tolerances``…).
        text: what is wrong, as the library says it.
        detail: what is wrong after the setting's name (``must be in (0, 1), got 2``).
        name: the tolerance band as given, for a problem of ``tolerances``.
    """

    setting: str
    text: str
    detail: str
    name: str | None = None


def _problem(setting: str, detail: str) -> SettingProblem:
    return SettingProblem(setting=setting, text=f"{setting} {detail}", detail=detail)


class InvalidSettings(TrajguardError):
    """Comparison settings that cannot be used, each problem in :attr:`problems`."""

    def __init__(self, problems: list[SettingProblem]) -> None:
        super().__init__(
            "invalid comparison settings: " + "; ".join(p.text for p in problems),
            hint=f"metrics are {', '.join(METRIC_NAMES)}",
        )
        self.problems = tuple(problems)


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
        problems = self._problems()
        if problems:
            raise InvalidSettings(problems)
        bands = {t.name: t.default for t in TOLERANCES} | canonical_tolerances(self.tolerances)
        object.__setattr__(self, "tolerances", bands)
        object.__setattr__(
            self,
            "scenario_tolerances",
            {s: canonical_tolerances(v) for s, v in self.scenario_tolerances.items() if v},
        )

    def _problems(self) -> list[SettingProblem]:
        """Everything wrong with these settings (the one check of them)."""
        problems = []
        unknown = sorted(unknown_metrics([*self.metrics, *self.gating]))
        if unknown:
            gates = set(unknown_metrics(self.gating))
            problem = f"unknown metric(s) {unknown}"
            setting = "gating" if gates.issuperset(unknown) else "metrics"
            problems.append(SettingProblem(setting=setting, text=problem, detail=problem))
        problems += [
            _problem(name, f"must be in (0, 1), got {value}")
            for name, value in (("alpha", self.alpha), ("q", self.q), ("power", self.power))
            if not 0 < value < 1
        ]
        if not 0 <= self.suite_share < 1:
            detail = f"must be at least 0 and below 1, got {self.suite_share}"
            problems.append(_problem("suite_share", detail))
        if self.multiplicity not in ("omnibus", "holm"):
            detail = f"must be omnibus or holm, got {self.multiplicity!r}"
            problems.append(_problem("multiplicity", detail))
        for name, value in self.tolerances.items():
            problems += [
                SettingProblem(setting="tolerances", text=p, detail=p, name=name)
                for p in tolerance_problems({name: value})
            ]
        for scenario, values in self.scenario_tolerances.items():
            problems += [
                SettingProblem(
                    setting="scenario_tolerances", text=f"scenario {scenario}: {p}", detail=p
                )
                for p in tolerance_problems(values)
            ]
        return problems

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
