"""The budgeted design: its first look honours each scenario's own runs, a clear break stops
regressed and decides the final verdict, the blind get no more runs unless every scenario is
blind, the budget is never overspent, and a budget that cannot pay the first look is refused."""

from __future__ import annotations

import pandas as pd
import pytest
from trajguard_testkit.rows import pass_rows as rows

from trajguard.comparison import BudgetedDesign, CompareConfig, Look, Verdict, compare_runsets
from trajguard.errors import UsageError

CONFIG = CompareConfig(metrics=("pass_rate", "crash_rate"), suite_share=0.0)


def design(budget: float, own: dict[str, int | None], cost: float = 1.0) -> BudgetedDesign:
    return BudgetedDesign(budget=budget, cost=dict.fromkeys(own, cost), own_runs=own, config=CONFIG)


def test_the_first_look_gives_each_scenario_its_own_runs_else_an_even_share() -> None:
    d = design(300, {"own": 12, "other": None})
    first = d.first()
    assert first.runs == {"own": 12, "other": 50}  # 300 / 3 looks / 2 scenarios
    assert d.outcome.spent == 62


def test_a_budget_that_cannot_pay_the_first_look_is_refused() -> None:
    with pytest.raises(UsageError, match="cannot pay the first look"):
        design(20, {"a": 15, "b": 15})
    with pytest.raises(UsageError, match="positive cost"):
        design(100, {"a": None}, cost=0.0)


def test_a_clear_break_stops_regressed_and_the_design_settles_the_verdict() -> None:
    d = design(120, {"broken": None, "quiet": None})
    base = pd.DataFrame(rows("broken", 18, 20) + rows("quiet", 10, 20))
    look = d.first()
    n = (look.runs or {})["broken"]
    cand = pd.DataFrame(rows("broken", 0, n) + rows("quiet", n // 2, n))
    after = d.after(look, base, cand)
    assert d.outcome.regressed == {"broken": ("pass_rate",)}
    assert d.outcome.stops["broken"] == "regressed at look 1"
    assert after is None or "broken" not in (after.runs or {})
    final = d.settle(compare_runsets(base, cand, config=d.final_config(CONFIG)))
    assert final.scenario("broken").verdict is Verdict.REGRESSED
    assert final.regressed


def test_blind_scenarios_get_no_more_runs_when_another_can_see_its_band() -> None:
    # 40 % on 20 baseline runs: no candidate budget sees a 10-point drop (the baseline's own
    # noise is too large); 100 % on 200 baseline runs: a few dozen candidate runs do
    d = design(240, {"hopeless": None, "seeing": None})
    base = pd.DataFrame(rows("hopeless", 8, 20) + rows("seeing", 200, 200))
    look = d.first()
    n = (look.runs or {})["seeing"]
    cand = pd.DataFrame(rows("hopeless", 3, n) + rows("seeing", n - 1, n))
    after = d.after(look, base, cand)
    assert d.outcome.stops["hopeless"].startswith("blind")
    assert after is not None and set(after.runs or ()) == {"seeing"}
    assert d.outcome.spent <= d.outcome.budget


def test_when_every_scenario_is_blind_the_budget_is_still_spent_on_all() -> None:
    d = design(80, {"a": None, "b": None, "c": None, "d": None})
    base = pd.DataFrame([r for s in "abcd" for r in rows(s, 8, 20)])
    look: Look | None = d.first()
    while look is not None:
        runs = look.runs or {}
        n = d.outcome.runs  # a little worse than the baseline's 40 %: undecided
        cand = pd.DataFrame([r for s in "abcd" for r in rows(s, int(0.3 * n[s]), n[s])])
        assert set(runs) <= set("abcd")
        look = d.after(look, base, cand)
    assert not any(stop.startswith("blind") for stop in d.outcome.stops.values())
    assert sum(d.outcome.runs.values()) > 40, "more than the first look"
    assert d.outcome.spent <= d.outcome.budget


def test_the_looks_spend_at_most_the_scenarios_share_of_alpha() -> None:
    d = design(300, {"a": None, "b": None})
    assert sum(d.outcome.thresholds) == pytest.approx(0.05 / 4)
    assert d.outcome.thresholds[0] < d.outcome.thresholds[1] < d.outcome.thresholds[2]
