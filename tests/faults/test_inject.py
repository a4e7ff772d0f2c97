"""Each fault kind on a tool call, the plan as a pure function, and the reference agent's record."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from trajguard.faults import (
    FAULT_KINDS,
    FAULTS_KEY,
    MODEL_CALLS,
    FaultPlan,
    FaultSpec,
    ToolFault,
    ToolFaults,
    plan_faults,
)


def always(kind: str, **fields: Any) -> ToolFaults:
    return ToolFaults(
        plan=FaultPlan(seed=1, specs=(FaultSpec(kind=kind, probability=1.0, **fields),))
    )


async def lookup(city: str) -> dict[str, Any]:
    return {"city": city, "population": 1234}


def run(faults: ToolFaults, city: str = "Graz") -> Any:
    return asyncio.run(faults.apply("lookup", lambda: lookup(city)))


@pytest.mark.parametrize(
    ("kind", "message"),
    [
        ("timeout", "did not answer within 30 s"),
        ("rate_limited", "rate limited: too many requests, retry after 30 s"),
        ("exception", "the service behind the tool failed"),
    ],
)
def test_failing_kinds_raise_with_their_message(kind: str, message: str) -> None:
    faults = always(kind, seconds=30)
    with pytest.raises(ToolFault, match=message):
        run(faults)
    assert [(e.tool, e.call, e.kind) for e in faults.events] == [("lookup", 1, kind)]


def test_a_custom_message_replaces_the_default() -> None:
    with pytest.raises(ToolFault, match=r"^quota exhausted$"):
        run(always("exception", message="quota exhausted"))


def test_corrupt_json_is_cut_short() -> None:
    text = run(always("corrupt_json"))
    assert isinstance(text, str) and text.startswith('{"city": "Graz"')
    with pytest.raises(json.JSONDecodeError):
        json.loads(text)


def test_empty_result() -> None:
    assert run(always("empty_result")) == ""


def test_contradictory_results_disagree_with_the_truth() -> None:
    assert run(always("contradictory_results")) == '{"city": "Graz", "population": 6789}'
    faults = ToolFaults(
        plan=FaultPlan(seed=1, specs=(FaultSpec(kind="contradictory_results", at_call=2),))
    )
    first, second = run(faults), run(faults)
    assert first == {"city": "Graz", "population": 1234} and second != json.dumps(first)


def test_slow_adds_real_latency_and_keeps_the_result() -> None:
    started = time.monotonic()
    assert run(always("slow", seconds=0.2)) == {"city": "Graz", "population": 1234}
    assert time.monotonic() - started >= 0.2


def test_at_call_hits_only_that_call_of_matching_tools() -> None:
    faults = ToolFaults(
        plan=FaultPlan(seed=1, specs=(FaultSpec(kind="exception", at_call=2, tools=["lookup"]),))
    )
    assert faults.next_fault("other") is None and faults.next_fault("other") is None
    assert faults.next_fault("lookup") is None
    assert faults.next_fault("lookup") is not None
    assert faults.next_fault("lookup") is None
    assert faults.counts() == {"exception": 1}


def test_wrap_keeps_name_signature_and_sync_nature() -> None:
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    faults = ToolFaults(plan=FaultPlan(seed=1, specs=(FaultSpec(kind="empty_result", at_call=2),)))
    wrapped = faults.wrap(add)
    assert wrapped.__name__ == "add" and wrapped.__doc__ == "Add two numbers."
    assert wrapped(1, 2) == 3 and wrapped(1, 2) == ""
    assert not asyncio.iscoroutinefunction(wrapped)
    assert asyncio.iscoroutinefunction(faults.wrap(lookup))


@pytest.mark.parametrize(
    ("fields", "fragment"),
    [
        ({"kind": "meteor"}, "kind"),
        ({"kind": "timeout", "probability": 1.5}, "less than or equal to 1"),
        ({"kind": "timeout", "probability": -0.1}, "greater than or equal to 0"),
        ({"kind": "timeout"}, "exactly one of probability"),
        ({"kind": "timeout", "probability": 0.5, "at_call": 1}, "exactly one of probability"),
        ({"kind": "timeout", "at_call": 0}, "greater than or equal to 1"),
    ],
)
def test_bad_specs_are_refused(fields: dict[str, Any], fragment: str) -> None:
    with pytest.raises(ValidationError, match=fragment):
        FaultSpec(**fields)


def test_every_kind_has_an_entry_and_failing_kinds_a_message() -> None:
    names = [k.name for k in FAULT_KINDS]
    assert len(names) == len(set(names)) == 11
    assert all(k.message for k in FAULT_KINDS if k.fails)
    assert [k.name for k in FAULT_KINDS if k.target == "model"] == [
        "provider_rate_limited",
        "provider_error",
        "truncated_output",
        "malformed_tool_call",
    ]


def test_model_faults_hit_model_calls_only_and_name_no_tools() -> None:
    spec = FaultSpec(kind="provider_rate_limited", at_call=1)
    assert spec.hits(MODEL_CALLS) and not spec.hits("search")
    assert not FaultSpec(kind="timeout", at_call=1).hits(MODEL_CALLS)
    with pytest.raises(ValidationError, match="hits model calls, not tools"):
        FaultSpec(kind="provider_error", at_call=1, tools=["search"])


specs_strategy = st.lists(
    st.builds(
        FaultSpec,
        kind=st.sampled_from([k.name for k in FAULT_KINDS if k.target == "tool"]),
        probability=st.floats(0, 1),
        tools=st.sampled_from(["*", ["a"], ["a", "b"]]),
    ),
    min_size=1,
    max_size=3,
)


@given(
    specs=specs_strategy,
    batch_seed=st.integers(0, 2**31),
    run_index=st.integers(0, 50),
    scenario=st.sampled_from(["x", "y"]),
)
def test_the_plan_is_a_pure_function_of_batch_seed_run_and_config(
    specs: list[FaultSpec], batch_seed: int, run_index: int, scenario: str
) -> None:
    def decisions(plan: FaultPlan) -> list[str | None]:
        return [
            (spec.kind if (spec := plan.fault_for(tool, call)) else None)
            for tool in ("a", "b")
            for call in range(1, 8)
        ]

    first = plan_faults(specs, batch_seed=batch_seed, scenario=scenario, run_index=run_index)
    again = plan_faults(
        [FaultSpec(**s.model_dump()) for s in specs],
        batch_seed=batch_seed,
        scenario=scenario,
        run_index=run_index,
    )
    assert first == again and decisions(first) == decisions(again)


@given(
    probability=st.floats(0.2, 0.8),
    batch_seed=st.integers(0, 2**31),
    run_index=st.integers(0, 50),
)
def test_another_batch_seed_draws_other_faults(
    probability: float, batch_seed: int, run_index: int
) -> None:
    specs = [FaultSpec(kind="timeout", probability=probability, tools="*")]

    def decisions(seed: int) -> tuple[bool, ...]:
        plan = plan_faults(specs, batch_seed=seed, scenario="x", run_index=run_index)
        return tuple(plan.fault_for("a", call) is not None for call in range(1, 8))

    others = {decisions(seed) for seed in range(batch_seed, batch_seed + 40)}
    # 40 seeds of 7 calls at p in [0.2, 0.8]: all alike has probability below 1e-200
    assert len(others) > 1


def test_probability_is_honoured_over_many_calls() -> None:
    plan = plan_faults(
        [FaultSpec(kind="exception", probability=0.2)], batch_seed=3, scenario="s", run_index=0
    )
    hits = sum(plan.fault_for("t", call) is not None for call in range(1, 5001))
    assert 900 < hits < 1100


def test_the_reference_agent_records_the_fault_on_the_step() -> None:
    from trajguard.agent import AgentConfig, ReferenceAgent
    from trajguard.capture import LLMResponse

    replies = iter(
        [
            '{"tool": "lookup", "arguments": {"city": "Graz"}}',
            '{"tool": "lookup", "arguments": {"city": "Graz"}}',
            '{"tool": "final_answer", "answer": "Graz has 1234 people"}',
        ]
    )

    class Scripted:
        model_name = "scripted"

        async def complete(self, messages: Any, **kwargs: Any) -> LLMResponse:
            return LLMResponse(content=next(replies), finish_reason="stop", model="scripted")

    faults = ToolFaults(plan=FaultPlan(seed=1, specs=(FaultSpec(kind="rate_limited", at_call=1),)))
    agent = ReferenceAgent(AgentConfig(tools=[lookup], mode="json", faults=faults))
    result = asyncio.run(agent.run(Scripted(), "How many people live in Graz?"))
    steps = [s for s in result.trajectory.steps if s.tool_calls]
    first, second = steps
    assert (first.extra or {})[FAULTS_KEY] == [
        {"tool_call_id": first.tool_calls[0].tool_call_id, "tool": "lookup", "kind": "rate_limited"}
    ]
    observation = first.observation.results[0]
    assert "ToolFault: rate limited" in str(observation.content)
    assert observation.extra == {"error": "tool_error", "fault": "rate_limited"}
    assert FAULTS_KEY not in (second.extra or {})
    assert "1234" in str(second.observation.results[0].content)
