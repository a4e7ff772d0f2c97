"""``inject_faults``: the plan is active inside the block only, the reference agent and wrapped
tools use it, and a block that injected nothing fails."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from pydantic import ValidationError

from trajguard.faults import FaultsNotInjected, ToolFault, active_faults, inject_faults


def lookup(city: str) -> str:
    return f"{city}: 1234 people"


def test_the_faults_are_active_inside_the_block_only() -> None:
    assert active_faults() is None
    with inject_faults({"kind": "exception", "at_call": 1}) as faults:
        assert active_faults() is faults
        with pytest.raises(ToolFault):
            faults.wrap(lookup)("Graz")
    assert active_faults() is None
    assert [(e.tool, e.call, e.kind) for e in faults.events] == [("lookup", 1, "exception")]


def test_a_block_that_injected_nothing_fails_and_says_which_tools() -> None:
    with (
        pytest.raises(FaultsNotInjected, match="no matching call of search"),
        inject_faults({"kind": "timeout", "at_call": 1, "tools": ["search"]}) as faults,
    ):
        assert faults.wrap(lookup)("Graz") == "Graz: 1234 people"


def test_nothing_injected_is_allowed_when_asked() -> None:
    with inject_faults({"kind": "timeout", "at_call": 3}, require_injected=False) as faults:
        faults.wrap(lookup)("Graz")
    assert faults.events == []


def test_the_block_restores_the_outer_faults_even_on_error() -> None:
    with inject_faults({"kind": "slow", "at_call": 1, "seconds": 0}) as outer:
        with pytest.raises(RuntimeError), inject_faults({"kind": "exception", "at_call": 1}):
            raise RuntimeError("the test failed inside")
        assert active_faults() is outer
        outer.wrap(lookup)("Graz")


def test_bad_entries_are_refused_before_the_block_runs() -> None:
    with (
        pytest.raises(ValidationError, match="kind"),
        inject_faults({"kind": "gremlins", "at_call": 1}),
    ):
        pytest.fail("the block must not run")


def test_the_same_seed_gives_the_same_faults() -> None:
    def injected(seed: int) -> list[int]:
        with inject_faults(
            {"kind": "empty_result", "probability": 0.5}, seed=seed, require_injected=False
        ) as f:
            wrapped = f.wrap(lookup)
            for _ in range(30):
                wrapped("Graz")
        return [e.call for e in f.events]

    assert injected(7) == injected(7)
    assert injected(7) != injected(8)


def test_the_reference_agent_uses_the_active_faults() -> None:
    from trajguard.agent import AgentConfig, ReferenceAgent
    from trajguard.capture import LLMResponse

    replies = iter(
        [
            '{"tool": "lookup", "arguments": {"city": "Graz"}}',
            '{"tool": "final_answer", "answer": "done"}',
        ]
    )

    class Scripted:
        model_name = "scripted"

        async def complete(self, messages: Any, **kwargs: Any) -> LLMResponse:
            return LLMResponse(content=next(replies), finish_reason="stop", model="scripted")

    agent = ReferenceAgent(AgentConfig(tools=[lookup], mode="json"))
    with inject_faults({"kind": "empty_result", "at_call": 1}) as faults:
        result = asyncio.run(agent.run(Scripted(), "How many people live in Graz?"))
    (step,) = [s for s in result.trajectory.steps if s.tool_calls]
    assert step.observation.results[0].extra == {"fault": "empty_result"}
    assert faults.counts() == {"empty_result": 1}
