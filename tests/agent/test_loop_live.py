"""The reference agent on the embedded SmolLM2-135M, through litellm and the llama.cpp server.

These runs go over the real HTTP path. The model is weak and noisy, so the tests assert what must
hold whatever it samples: the run ends cleanly (an answer, or a recorded agent error) and the
trajectory is valid ATIF (N1 to N9).
"""

from __future__ import annotations

import pytest

from trajguard.agent import AgentConfig, ReferenceAgent
from trajguard.normative import check_normative

pytestmark = pytest.mark.live

QUESTION = "What is 17 * 23?"


def calculator(expression: str) -> str:
    """Evaluate an arithmetic expression such as 2 + 3 * 4."""
    if not expression or not set(expression) <= set("0123456789+-*/(). "):
        raise ValueError(f"cannot evaluate {expression!r}")
    return str(eval(expression, {"__builtins__": {}}))


def get_weather(city: str) -> str:
    """Get the current weather for a city."""
    return f"Sunny, 21 C in {city}"


@pytest.fixture
def model(local_model):
    from trajguard.capture import LiteLLMModel

    return LiteLLMModel("local/smollm2")


def _agent(mode, **options):
    config = AgentConfig(
        system_prompt="You are a helpful assistant.",
        tools=[calculator, get_weather],
        mode=mode,
        temperature=0.7,
        max_tokens=96,
        **options,
    )
    return ReferenceAgent(config)


def _assert_clean(result):
    trajectory = result.trajectory
    assert check_normative(trajectory) == []
    assert any(step.source == "agent" for step in trajectory.steps)
    assert not (trajectory.extra or {}).get("crashed")
    if result.status == "ok":
        assert result.final_answer is not None
    else:
        assert result.error_type in {"max_steps", "context_overflow", "model_request_error"}
        assert trajectory.extra["agent_error"]["reason"] == result.error_type
    for step in trajectory.steps:
        if step.source == "agent":
            assert step.llm_call_count == 1
            assert step.metrics.prompt_tokens > 0
    final = trajectory.final_metrics
    assert final.total_prompt_tokens == sum(
        s.metrics.prompt_tokens for s in trajectory.steps if s.metrics
    )


@pytest.mark.parametrize("seed", [1, 2])
async def test_json_mode_runs_cleanly_on_the_embedded_model(model, seed):
    result = await _agent("json", max_steps=5, tool_budget=2).run(model, QUESTION, seed=seed)
    _assert_clean(result)
    assert result.trajectory.agent.model_name == "local/smollm2"
    assert result.trajectory.steps[2].model_name  # what the server reported


async def test_native_mode_runs_cleanly_on_the_embedded_model(model):
    # SmolLM2 calls a tool on every native turn; the step cap or the budget must end the run.
    result = await _agent("native", max_steps=3).run(model, QUESTION, seed=3)
    _assert_clean(result)
    assert any(step.tool_calls for step in result.trajectory.steps)


async def test_native_mode_with_a_budget_asks_for_an_answer(model):
    result = await _agent("native", max_steps=4, tool_budget=1).run(model, QUESTION, seed=4)
    _assert_clean(result)
    assert result.status == "ok"
