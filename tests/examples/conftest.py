"""The example scenarios, shared by the frozen examples and the replay-stability test.

pytest runs with ``--import-mode=importlib``, so test modules cannot import each other; the
scenarios are a session fixture instead. They are deliberately small and stable: the agent
configuration and the question are the request a cassette was recorded from, and any edit here
is request drift (the frozen tests fail until their cassettes are re-recorded).
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from trajguard.agent import AgentConfig
from trajguard.examples.demo_tools import calculator, get_weather, lookup_country

SYSTEM_PROMPT = "You are a helpful assistant. Use a tool when it helps, then answer briefly."


@dataclass(frozen=True)
class Scenario:
    """One example run: the agent's configuration, the question and the run seed."""

    config: AgentConfig
    question: str
    seed: int


def _json_agent() -> AgentConfig:
    return AgentConfig(
        system_prompt=SYSTEM_PROMPT,
        tools=[calculator, lookup_country, get_weather],
        mode="json",
        max_steps=5,
        tool_budget=2,
        temperature=0.7,
        max_tokens=128,
    )


SCENARIOS = {
    "calculator": Scenario(_json_agent(), "What is 17 * 23?", seed=1723),
    "lookup": Scenario(_json_agent(), "What is the capital of Kenya?", seed=254),
    "weather": Scenario(
        AgentConfig(
            system_prompt=SYSTEM_PROMPT,
            tools=[get_weather, lookup_country],
            mode="json",
            max_steps=4,
            tool_budget=1,
            temperature=0.7,
            max_tokens=128,
        ),
        "What is the weather in Tokyo today?",
        seed=81,
    ),
}


@pytest.fixture(scope="session")
def example_scenarios() -> dict[str, Scenario]:
    """The example scenarios by name."""
    return SCENARIOS
