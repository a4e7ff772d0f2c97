"""The simulated user's calls are priced apart (issue 38): ``user_cost_usd`` beside the agent's
``cost_usd`` and the judge's ``judge_cost_usd``, at the suite's price for the user's model or
litellm's map; null when the user's model has no price or the run has no simulated user."""

from __future__ import annotations

import pandas as pd
import pytest
from trajguard_testkit.scripted import Scripted

from trajguard.suite import Suite

from .test_agent_kinds import Project, batch, project  # noqa: F401  (the fixture)
from .test_conversation_runs import BUILTIN_TURNS, simulated_user_world, support_agent

MINI = (0.15, 0.60)  # litellm's bundled map: gpt-4o-mini, US dollars per million tokens
LOCAL = (0.5, 1.5)  # the suite's table: local/smollm2

SIMULATED = """  - id: simulated
    agent: {kind: builtin, mode: json}
    user:
      goal: get a refund for order 1234
      facts: {order number: "1234"}
      user_model: MODEL
      max_turns: 5
    pass:
      - final_output_contains: "1234"
prices:
  local/smollm2: {input: 0.5, output: 1.5}
"""


def _suite(project: Project, model: str) -> Suite:  # noqa: F811
    # the user plays on the agent's model (the scripted one answers both sides)
    return project.suite(
        SIMULATED.replace("MODEL", model), defaults=f"runs: 2\n  concurrency: 2\n  model: {model}"
    )


def _cost(price: tuple[float, float], prompt: int, completion: int) -> float:
    return (prompt * price[0] + completion * price[1]) / 1e6


@pytest.fixture(autouse=True)
def _offline_price_map(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")


@pytest.mark.parametrize(
    ("model", "price"),
    [("local/smollm2", LOCAL), ("openai/gpt-4o-mini", MINI)],
    ids=["suite-table", "litellm-map"],
)
async def test_the_users_calls_are_priced_apart_from_the_agents(
    project: Project,  # noqa: F811
    model: str,
    price: tuple[float, float],
) -> None:
    _, runs = await batch(
        _suite(project, model), project.runset(), Scripted(simulated_user_world), seed=5
    )
    assert len(runs) == 2
    for _, row in runs.iterrows():
        assert (row["stop_reason"], row["user_turns"], row["llm_calls"]) == ("user_done", 3, 2)
        # the agent's two calls (80 prompt, 16 completion tokens), and only those
        assert row["cost_usd"] == pytest.approx(_cost(price, 80, 16), rel=1e-12)
        # the user's three calls (40 + 8 tokens each), in their own column
        assert row["user_cost_usd"] == pytest.approx(3 * _cost(price, 40, 8), rel=1e-12)
        assert pd.isna(row["judge_cost_usd"])  # no judge


async def test_a_user_model_without_a_price_leaves_the_users_cost_unknown(
    project: Project,  # noqa: F811
) -> None:
    suite = _suite(project, "openai/no-such-model-has-a-price")
    _, runs = await batch(suite, project.runset(), Scripted(simulated_user_world), seed=5)
    assert (runs["user_turns"] == 3).all()
    assert runs["user_cost_usd"].isna().all()  # unknown, never 0
    assert runs["cost_usd"].isna().all()


async def test_a_run_without_a_simulated_user_has_no_user_cost(project: Project) -> None:  # noqa: F811
    suite = project.suite(BUILTIN_TURNS + "prices:\n  local/smollm2: {input: 0.5, output: 1.5}\n")
    _, runs = await batch(suite, project.runset(), Scripted(support_agent), seed=3)
    assert runs["user_cost_usd"].isna().all()  # scripted turns make no user calls
    assert runs["cost_usd"].notna().all()
