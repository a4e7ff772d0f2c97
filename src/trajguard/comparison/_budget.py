"""The budgeted design: a budget (runs, minutes or dollars) spent in looks where a verdict is open.

Look 1 gives every scenario its own ``runs:`` (its minimum), or an even share of a third of the
budget when it has none. After each look every active scenario's rate gates (pass rate down,
crash rate up; one-sided) are tested on all its runs so far with Boschloo's exact test (Fisher's
beyond its table) at the look's O'Brien-Fleming spending increment of the scenario's Bonferroni
share of alpha (:func:`trajguard.stats.obf_thresholds`, ``method="bonferroni"``: each look at
its increment, valid for any look sizes by the union bound, as the sequential design's
non-rate metrics). A scenario stops

* **regressed** when a gate crosses its threshold with its estimate beyond the band;
* **no regression detected** when the candidate is no worse than the baseline on both rates
  (non-binding futility: it cannot raise the false-alarm rate);
* **blind** when even the whole remaining budget could not give it 50 % power against a drop of
  its band at the last look's threshold (judged from the baseline's rate and the budget alone),
  unless every active scenario is: then none is dropped, since the runs still buy the power to
  see drops larger than the band.

The rest share the next look's slice of the budget (the rest of it at the last look), each
given no more runs than it needs for 80 % power against its band. A scenario's look sizes
depend on the baseline, the budget and the other scenarios' stops, never on its own candidate
runs beyond stopping, so each look's test stays valid and the family-wise error stays at most
alpha. Measured against fixed N in benchmarks/bench_budget_design.py.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import TYPE_CHECKING, Literal

from trajguard import stats as st
from trajguard.comparison._config import CompareConfig
from trajguard.comparison._designs import Look, decided_by_design
from trajguard.comparison._results import Comparison
from trajguard.errors import UsageError

if TYPE_CHECKING:  # the record (BudgetOutcome) is read without pandas and the arms
    import pandas as pd

    from trajguard.comparison._arms import Arm

__all__ = ["BudgetOutcome", "BudgetRecord", "BudgetedDesign"]

LOOKS = 3
BLIND_POWER = 0.5
"""Below this power with the whole remaining budget, a scenario gets no more runs."""
GATES = ("pass_rate", "crash_rate")


@dataclass(frozen=True, kw_only=True)
class BudgetOutcome:
    """What the budgeted design did."""

    budget: float
    """the budget, in the unit of ``cost``."""
    spent: float = 0.0
    """the budget the planned runs use."""
    runs: Mapping[str, int] = field(default_factory=dict)
    """scenario → candidate runs planned so far."""
    stops: Mapping[str, str] = field(default_factory=dict)
    """scenario → why it got no more runs (and at which look)."""
    regressed: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """scenario → the gates it stopped on as regressed."""
    thresholds: tuple[float, ...] = ()
    """the per-look significance thresholds of each gate."""


@dataclass(frozen=True, kw_only=True)
class BudgetRecord:
    """The document's record of a budgeted design."""

    name: Literal["budget"] = "budget"
    """the design's tag."""
    unit: str = "runs"
    """what a run count counts (``runs``, or ``runs per variant`` in an A/B)."""
    outcome: BudgetOutcome
    """the budget, each scenario's runs and its stop."""


class BudgetedDesign:
    """The budgeted design (module docstring) in the one design protocol.

    Args:
        budget: what the candidate's runs may use, in the unit of ``cost``.
        cost: scenario → what one of its runs uses (1 for a budget in runs; seconds; dollars).
        own_runs: scenario → the runs set for it (:func:`trajguard.suite.set_runs`: ``--runs``,
            else its own ``runs:``; ``None``: neither).
        config: alpha, tolerance bands, crash statuses.

    Raises:
        UsageError: a cost that is not positive, or a budget that cannot pay every scenario's
            own ``runs:``.
    """

    def __init__(
        self,
        *,
        budget: float,
        cost: Mapping[str, float],
        own_runs: Mapping[str, int | None],
        config: CompareConfig,
    ) -> None:
        self._config = config
        self._cost = dict(cost)
        if any(not (c > 0 and math.isfinite(c)) for c in self._cost.values()):
            raise UsageError("the budgeted design needs a positive cost per run of each scenario")
        scenarios = list(own_runs)
        alpha = config.alpha / max(1, len(scenarios) * len(GATES))
        even = max(2, int(budget / LOOKS / max(sum(self._cost.values()), 1e-12)))
        first = {s: own_runs[s] or even for s in scenarios}
        need = sum(first[s] * self._cost[s] for s in scenarios)
        if need > budget:
            raise UsageError(
                f"the budget ({budget:g}) cannot pay the first look ({need:g}: every "
                "scenario's own runs:, or 2 runs)",
                hint="raise the budget, or use the fixed design",
            )
        self._base: Mapping[str, Arm] | None = None
        self.outcome = BudgetOutcome(
            budget=budget,
            spent=need,
            runs=first,
            thresholds=st.obf_thresholds(alpha, LOOKS, method="bonferroni"),
        )

    @property
    def name(self) -> str:
        """``budget``."""
        return "budget"

    def record(self, *, unit: str) -> BudgetRecord:
        """Its record in the document: the budget, each scenario's runs and its stop
        (:attr:`outcome`)."""
        return BudgetRecord(unit=unit, outcome=self.outcome)

    def first(self) -> Look:
        """Every scenario at its own ``runs:`` (else an even share of a third of the budget)."""
        return Look(index=0, runs=dict(self.outcome.runs), label=f"look 1/{LOOKS}")

    def after(self, look: Look, baseline: pd.DataFrame, candidate: pd.DataFrame) -> Look | None:
        """Stop the decided, the blind; share the next slice of the budget among the rest."""
        from trajguard.comparison._arms import split_runs

        statuses = self._config.crash_statuses
        if self._base is None:
            self._base = split_runs(baseline, crash_statuses=statuses, side="baseline")
        arms = split_runs(candidate, crash_statuses=statuses, side="candidate")
        active = list(look.runs or self.outcome.runs)
        stops, regressed = dict(self.outcome.stops), dict(self.outcome.regressed)
        threshold = self.outcome.thresholds[look.index]
        for s in active:
            base, cand = self._base.get(s), arms.get(s)
            if base is None or cand is None:
                stops[s] = f"no runs to compare at look {look.index + 1}"
                continue
            crossed = _crossed(base, cand, threshold, self._config.for_scenario(s))
            if crossed:
                regressed[s] = crossed
                stops[s] = f"regressed at look {look.index + 1}"
            elif _no_worse(base, cand):
                stops[s] = f"no regression detected at look {look.index + 1}"
        going = [s for s in active if s not in stops]
        last = look.index + 1 >= LOOKS
        if not last:
            left = self.outcome.budget - self.outcome.spent
            for s in going:
                if self._blind(s, left):
                    stops[s] = f"blind: the budget left cannot see its band (look {look.index + 1})"
            if all(s in stops for s in going):  # all blind: the runs still buy larger drops
                for s in going:
                    del stops[s]
            going = [s for s in going if s not in stops]
        self.outcome = replace(self.outcome, stops=stops, regressed=regressed)
        if last or not going:
            return None
        return self._next(look.index + 1, going)

    def _rate(self, scenario: str) -> tuple[float, int, float]:
        """The baseline's pass rate and runs, and the scenario's pass-rate band."""
        base = self._base[scenario] if self._base else None
        n = 0 if base is None else int(base.passed.size)
        p = float(base.passed.mean()) if base is not None and n else 0.0
        return p, n, self._config.for_scenario(scenario).tolerance("pass_rate")

    def _blind(self, scenario: str, left: float) -> bool:
        p, n, band = self._rate(scenario)
        most = self.outcome.runs[scenario] + int(left / self._cost[scenario])
        return n == 0 or _power(p, band, n, most, self.outcome.thresholds[-1]) < BLIND_POWER

    def _needed(self, scenario: str) -> int:
        p, _, band = self._rate(scenario)
        return _n_needed(p, band, self.outcome.thresholds[-1])

    def _next(self, index: int, going: Sequence[str]) -> Look | None:
        left = self.outcome.budget - self.outcome.spent
        share = left if index + 1 >= LOOKS else left / (LOOKS - index)
        runs, spent = dict(self.outcome.runs), self.outcome.spent
        open_ = list(going)
        while share > 0 and open_:  # even shares, each capped at the runs it needs
            each = share / len(open_)
            capped = []
            for s in open_:
                want = max(0, self._needed(s) - runs[s])
                extra = min(want, int(each / self._cost[s]))
                runs[s] += extra
                spent += extra * self._cost[s]
                share -= extra * self._cost[s]
                if extra >= want:
                    capped.append(s)
            if not capped:
                break
            open_ = [s for s in open_ if s not in capped]
        grown = tuple(s for s in going if runs[s] > self.outcome.runs[s])
        self.outcome = replace(self.outcome, runs=runs, spent=spent)
        if not grown:
            return None
        return Look(
            index=index, runs={s: runs[s] for s in grown}, label=f"look {index + 1}/{LOOKS}"
        )

    def final_config(self, config: CompareConfig) -> CompareConfig:
        """No suite-level tests: the looks spend the whole alpha on the scenarios."""
        return replace(config, suite_share=0.0)

    def settle(self, comparison: Comparison) -> Comparison:
        """A gating metric is significant exactly when its scenario stopped regressed on it."""
        return decided_by_design(
            comparison,
            design="budget",
            decided=self.outcome.regressed,
            reasons=dict(self.outcome.stops),
            suite=(),
        )


@lru_cache(maxsize=4096)
def _power(p: float, band: float, n_b: int, n_c: int, level: float) -> float:
    return st.gate_power(p, max(0.0, p - band), n_b, n_c, level, False)


@lru_cache(maxsize=4096)
def _n_needed(p: float, band: float, level: float) -> int:
    if p <= 0:
        return 0  # no pass to lose: more runs cannot show a drop
    found = st.n_needed_pass_rate(p, min(band, p), alpha=level)
    return found if found is not None else st.EXACT_MAX_N + 1


def _pvalue(x_b: int, n_b: int, x_c: int, n_c: int) -> float:
    """One-sided: the baseline's rate of the good outcome is higher."""
    if st.boschloo_feasible(n_b, n_c):
        return st.boschloo_pvalue(x_b, n_b, x_c, n_c, "greater")
    return st.fisher_pvalue(x_b, n_b, x_c, n_c, "greater")


def _crossed(base: Arm, cand: Arm, threshold: float, config: CompareConfig) -> tuple[str, ...]:
    """The gates that crossed ``threshold`` with their estimate beyond the band."""
    found = []
    for gate, good_b, good_c in (
        ("pass_rate", base.passed, cand.passed),
        ("crash_rate", ~base.crashed, ~cand.crashed),
    ):
        n_b, n_c = good_b.size, good_c.size
        if n_b == 0 or n_c == 0:
            continue
        x_b, x_c = int(good_b.sum()), int(good_c.sum())
        drop = x_b / n_b - x_c / n_c
        if drop > config.tolerance(gate) and _pvalue(x_b, n_b, x_c, n_c) <= threshold:
            found.append(gate)
    return tuple(found)


def _no_worse(base: Arm, cand: Arm) -> bool:
    if base.passed.size == 0 or cand.passed.size == 0:
        return False
    return bool(
        cand.passed.mean() >= base.passed.mean() and cand.crashed.mean() <= base.crashed.mean()
    )
