"""Model (provider) faults at the wire endpoint, through a real OpenAI client over HTTP on
127.0.0.1: a 429 with Retry-After and a 503 that never reach the model, a truncated answer and a
malformed tool call that do, each recorded on the call (and so in the trajectory)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import openai
import pytest

from trajguard.capture import LLMResponse, ToolCallRequest, Usage
from trajguard.capture.wire import WireRequest, WireServer
from trajguard.capture.zerocode import build_trajectory
from trajguard.faults import FAULTS_KEY, FaultSpec, ToolFaults, plan_faults

CALL = ToolCallRequest("call_x1", "calculator", '{"expression": "17 * 23"}')
ASK: list[Any] = [{"role": "user", "content": "What is 17 * 23?"}]


class Forward:
    """Answers every request with ``reply``; counts the requests that reached it."""

    def __init__(self, reply: LLMResponse) -> None:
        self.reply = reply
        self.requests = 0

    async def __call__(self, request: WireRequest) -> LLMResponse:
        self.requests += 1
        return self.reply


@pytest.fixture
def wire() -> Iterator[WireServer]:
    with WireServer() as server:
        yield server


def faults(**spec: Any) -> ToolFaults:
    plan = plan_faults([FaultSpec(**spec)], batch_seed=1, scenario="s", run_index=0)
    return ToolFaults(plan=plan)


def records(wire: WireServer, session: Any) -> list[Any]:
    asyncio.run(wire.close(session))
    return session.records


@pytest.mark.parametrize(
    ("kind", "status", "code"),
    [
        ("provider_rate_limited", 429, "rate_limit_exceeded"),
        ("provider_error", 503, "server_error"),
    ],
)
def test_a_failing_model_fault_answers_an_error_without_calling_the_model(
    wire: WireServer,
    client_for: Callable[..., openai.OpenAI],
    kind: str,
    status: int,
    code: str,
) -> None:
    forward = Forward(LLMResponse(content="391", usage=Usage(10, 2)))
    session = wire.open(
        forward=forward, model="m", embedded=False, faults=faults(kind=kind, at_call=1, seconds=3)
    )
    answer = httpx.post(
        f"{session.base_url}/chat/completions",
        json={"model": "m", "messages": ASK},
        timeout=20,
    )
    assert answer.status_code == status
    assert answer.json()["error"]["code"] == code
    if status == 429:
        assert answer.headers["Retry-After"] == "3"
    else:
        assert "Retry-After" not in answer.headers
    assert forward.requests == 0
    client = client_for(session.base_url)
    second = client.chat.completions.create(model="m", messages=ASK)
    assert second.choices[0].message.content == "391" and forward.requests == 1
    first, _ = made = records(wire, session)
    assert first.error[0] == "InjectedFault" and first.notes[FAULTS_KEY][0]["kind"] == kind
    assert session.upstream_errors == 0, "an injected fault is not the model's failure"
    trajectory = build_trajectory(made, agent_name="a", agent_version="0")
    (error,) = (trajectory.extra or {})["llm_errors"]
    assert (error["fault"], error["after_step"]) == (kind, 1)
    assert [s.source for s in trajectory.steps] == ["user", "agent"]


def test_the_openai_sdk_waits_the_retry_after_and_retries_by_itself(
    wire: WireServer, client_for: Callable[..., openai.OpenAI]
) -> None:
    forward = Forward(LLMResponse(content="391", usage=Usage(10, 2)))
    spec = faults(kind="provider_rate_limited", at_call=1, seconds=0)
    session = wire.open(forward=forward, model="m", embedded=False, faults=spec)
    client = client_for(session.base_url, max_retries=2)
    reply = client.chat.completions.create(model="m", messages=ASK)
    assert reply.choices[0].message.content == "391"
    assert [r.error[0] if r.error else "ok" for r in records(wire, session)] == [
        "InjectedFault",
        "ok",
    ]


def test_a_truncated_answer_is_cut_and_ends_for_length(
    wire: WireServer, client_for: Callable[..., openai.OpenAI]
) -> None:
    forward = Forward(LLMResponse(content="The answer is 391.", tool_calls=(CALL,)))
    spec = faults(kind="truncated_output", probability=1.0)
    session = wire.open(forward=forward, model="m", embedded=False, faults=spec)
    client = client_for(session.base_url)
    choice = client.chat.completions.create(model="m", messages=ASK).choices[0]
    assert (choice.message.content, choice.finish_reason) == ("The answe", "length")
    assert not choice.message.tool_calls
    trajectory = build_trajectory(records(wire, session), agent_name="a", agent_version="0")
    agent = trajectory.steps[-1]
    assert agent.extra is not None
    assert agent.extra[FAULTS_KEY] == [
        {"tool_call_id": None, "tool": "<model>", "kind": "truncated_output", "model_call": 1}
    ]


def test_a_malformed_tool_call_arrives_with_broken_arguments(
    wire: WireServer, client_for: Callable[..., openai.OpenAI]
) -> None:
    forward = Forward(LLMResponse(content=None, tool_calls=(CALL,)))
    spec = faults(kind="malformed_tool_call", at_call=2)
    session = wire.open(forward=forward, model="m", embedded=False, faults=spec)
    client = client_for(session.base_url)
    calls = [
        client.chat.completions.create(model="m", messages=ASK).choices[0].message.tool_calls
        for _ in range(2)
    ]
    arguments = [c[0].function.arguments for c in calls if c]
    assert arguments == ['{"expression": "17 * 23"}', '{"expression']
    trajectory = build_trajectory(records(wire, session), agent_name="a", agent_version="0")
    faulted = [s.extra.get(FAULTS_KEY) for s in trajectory.steps if s.extra]
    assert [f[0]["kind"] for f in faulted if f] == ["malformed_tool_call"]
