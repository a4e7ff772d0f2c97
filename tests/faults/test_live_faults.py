"""Faults injected into the reference agent's tools while it runs against the embedded SmolLM2
over HTTP (frozen mode's ``tool_faults`` fixture): the model meets the fault in its
conversation, the trajectory records it, and the resilience criteria read it."""

from __future__ import annotations

from typing import Any

import pytest

from trajguard.agent import AgentConfig, ReferenceAgent
from trajguard.core.normalize import normalize
from trajguard.faults import FAULTS_KEY, calls, retried_after_fault
from trajguard.normative import check_normative

pytestmark = pytest.mark.live


def calculator(expression: str) -> str:
    """Evaluate an arithmetic expression such as 2 + 3 * 4."""
    if not expression or not set(expression) <= set("0123456789+-*/(). "):
        raise ValueError(f"cannot evaluate {expression!r}")
    return str(eval(expression, {"__builtins__": {}}))


def get_weather(city: str) -> str:
    """Get the current weather for a city."""
    return f"Sunny, 21 C in {city}"


@pytest.fixture
def model(local_model: Any) -> Any:
    from trajguard.capture import LiteLLMModel

    return LiteLLMModel("local/smollm2")


async def test_a_rate_limited_first_call_reaches_the_model_and_the_record(
    model: Any, tool_faults: Any
) -> None:
    agent = ReferenceAgent(
        AgentConfig(
            system_prompt="You are a helpful assistant.",
            tools=[calculator, get_weather],
            mode="native",  # SmolLM2 calls a tool on every native turn
            max_steps=4,
            max_tokens=96,
        )
    )
    with tool_faults({"kind": "rate_limited", "at_call": 1, "seconds": 5}) as faults:
        result = await agent.run(model, "What is 17 * 23?", seed=11)

    trajectory = result.trajectory
    assert check_normative(trajectory) == []
    first = next(step for step in trajectory.steps if step.tool_calls)
    (call, *_) = first.tool_calls
    (event, *_) = faults.events
    assert (event.tool, event.call, event.kind) == (call.function_name, 1, "rate_limited")
    assert first.extra[FAULTS_KEY][0] == {
        "tool_call_id": call.tool_call_id,
        "tool": call.function_name,
        "kind": "rate_limited",
    }
    seen = first.observation.results[0]
    assert seen.content == "Error: ToolFault: rate limited: too many requests, retry after 5 s"
    assert seen.extra == {"error": "tool_error", "fault": "rate_limited"}

    made = calls(normalize(trajectory))
    assert sum(c.fault is not None for c in made) == len(faults.events)
    retried = any(c.tool == call.function_name for c in made[1:])
    assert retried_after_fault(normalize(trajectory))[0] is retried
