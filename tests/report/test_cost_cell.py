"""The provenance table's cost cell: the agent's cost, with the judge's and the simulated user's
beside it, each only when known (issue 38)."""

from __future__ import annotations

import pandas as pd

from trajguard.report._cost import cost_cell
from trajguard.report._format import usd
from trajguard.report.builders._cost_facts import batch_cost


def test_the_simulated_users_cost_is_summed_and_shown_apart() -> None:
    runs = pd.DataFrame(
        {
            "model": ["local/smollm2"] * 3,
            "cost_usd": [0.25, 0.25, 0.5],
            "judge_cost_usd": [None, None, None],
            "user_cost_usd": [0.125, None, 0.125],
        }
    )
    cost = batch_cost(runs)
    assert (cost.agent_usd, cost.user_usd, cost.judge_usd) == (1.0, 0.25, None)
    cell = cost_cell(cost)
    assert cell.startswith(usd(1.0))
    assert cell.endswith(f"; simulated user {usd(0.25)}")
    assert "judge" not in cell


def test_without_a_simulated_user_the_cell_does_not_mention_one() -> None:
    runs = pd.DataFrame({"model": ["m"], "cost_usd": [0.5], "judge_cost_usd": [0.25]})
    cost = batch_cost(runs)  # a run set written before the column existed
    assert cost.user_usd is None
    assert "simulated user" not in cost_cell(cost) and f"judge {usd(0.25)}" in cost_cell(cost)
