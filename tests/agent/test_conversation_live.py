"""A conversation on the embedded SmolLM2-135M over HTTP, both sides (issue 37): the agent and
a simulated user on the same model. The same run seed gives the same conversation, twice; the
seed is what fixes it (other seeds give other conversations)."""

from __future__ import annotations

import pytest

from trajguard.agent import AgentConfig, ReferenceAgent, SimulatedUser, converse, user_seed
from trajguard.core import normalize
from trajguard.normative import check_normative

pytestmark = pytest.mark.live


def lookup_order(order_id: str) -> str:
    """Look up an order by its number."""
    return f"Order {order_id}: one blue kettle, delivered, refundable."


@pytest.fixture
def model(local_model):
    from trajguard.capture import LiteLLMModel

    return LiteLLMModel("local/smollm2")


async def _conversation(model, seed: int):
    agent = ReferenceAgent(
        AgentConfig(
            system_prompt="You are a support agent. Ask for the order number, look it up, "
            "then say whether it can be refunded.",
            tools=[lookup_order],
            mode="json",
            temperature=0.7,
            max_tokens=64,
            max_steps=3,
        )
    )
    user = SimulatedUser(
        model=model,
        goal="get a refund for your kettle",
        persona="a polite customer",
        facts="- order number: 1234",
        max_turns=3,
        seed=seed,
        max_tokens=48,
    )
    return await converse(agent, model, user, seed=seed)


async def test_the_same_seed_gives_the_same_conversation(model) -> None:
    first = await _conversation(model, seed=20261204)
    again = await _conversation(model, seed=20261204)
    assert check_normative(first.trajectory) == []
    assert first.stop_reason in ("user_done", "max_turns", "agent_ended")
    assert 1 <= first.user_turns <= 3
    assert normalize(first.trajectory) == normalize(again.trajectory)
    users = [s for s in first.trajectory.steps if s.source == "user"]
    seeds = [(s.extra or {}).get("simulated_user", {}).get("seed") for s in users]
    assert seeds == [user_seed(20261204, i) for i in range(len(users))]
    # the user's calls are not the agent's: no metrics on user steps
    assert all(s.metrics is None for s in users)
    # the seed is what fixes it: another seed (of three tried) gives another conversation
    for seed in (1, 2, 3):
        other = await _conversation(model, seed=seed)
        if normalize(other.trajectory) != normalize(first.trajectory):
            break
    else:
        pytest.fail("seeds 1, 2 and 3 gave the conversation of seed 20261204")
