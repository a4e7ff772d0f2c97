"""What a wire capture marks about what the framework did: tool calls it never ran (the run
stopped after the model asked for them), requests that drop the run's history (a new context)
and completions that became neither text nor a tool call (their raw text kept). Real OpenAI
clients talk to the wire endpoint over HTTP on 127.0.0.1; the model behind it is a scripted
forwarder, or the real model layer (litellm) against a stub provider on 127.0.0.1, so the
exchanges are known exactly."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import openai
import pytest

from trajguard.capture import LiteLLMModel, LLMResponse, ToolCallRequest, TrajectoryRecorder, Usage
from trajguard.capture._redaction import REDACTED, Redactor, redact_response
from trajguard.capture.wire import WireRequest, WireServer
from trajguard.capture.zerocode import build_trajectory
from trajguard.core.normalize import normalize
from trajguard.core.shape import shape
from trajguard.normative import check_normative

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "calculator",
            "parameters": {"type": "object", "properties": {"expression": {"type": "string"}}},
        },
    }
]
SYSTEM = {"role": "system", "content": "Use the calculator."}
ASK = {"role": "user", "content": "What is 17 * 23?"}


def _calling(call_id: str, expression: str, prompt: int) -> LLMResponse:
    call = ToolCallRequest(call_id, "calculator", f'{{"expression": "{expression}"}}')
    return LLMResponse(content=None, tool_calls=(call,), usage=Usage(prompt, 6), model="m")


class Script:
    """A forwarder answering from a list."""

    def __init__(self, *replies: LLMResponse) -> None:
        self.replies = list(replies)

    async def __call__(self, request: WireRequest) -> LLMResponse:
        return self.replies.pop(0)


@pytest.fixture
def wire() -> Iterator[WireServer]:
    with WireServer() as server:
        yield server


def _trajectory(wire: WireServer, session: Any) -> Any:
    asyncio.run(wire.close(session))
    trajectory = build_trajectory(session.records, agent_name="a", agent_version="0")
    assert check_normative(trajectory) == []
    return trajectory


def _ask(client: openai.OpenAI, messages: list[Any]) -> Any:
    return client.chat.completions.create(model="m", messages=messages, tools=TOOLS)


def test_calls_of_the_last_response_that_no_request_answered_are_not_executed(
    wire: WireServer, client_for: Callable[..., openai.OpenAI]
) -> None:
    script = Script(_calling("call_a", "17 * 23", 30), _calling("call_b", "391 + 1", 45))
    session = wire.open(forward=script, model="m", embedded=False)
    client = client_for(session.base_url)
    messages: list[Any] = [SYSTEM, ASK]
    first = _ask(client, messages).choices[0].message
    messages += [
        first.model_dump(exclude_none=True),
        {"role": "tool", "tool_call_id": "call_a", "content": "391"},
    ]
    second = _ask(client, messages).choices[0].message
    # the framework's cap: it asked twice and stops without running call_b
    assert second.tool_calls is not None and second.tool_calls[0].id == "call_b"
    trajectory = _trajectory(wire, session)
    ran, stopped = (s for s in trajectory.steps if s.source == "agent")
    assert ran.tool_calls[0].extra is None, "call_a's result came back: it ran"
    assert ran.observation is not None and ran.observation.results[0].content == "391"
    assert stopped.tool_calls[0].extra == {"executed": False}
    assert stopped.observation is None
    s = shape(trajectory)
    assert (s.tool_calls, s.tool_counts) == (("calculator",), {"calculator": 1})
    assert s.llm_calls == 2, "the model was still called twice"
    assert all("new_context" not in (step.extra or {}) for step in trajectory.steps)


def test_a_run_that_ends_on_an_answer_marks_no_call(
    wire: WireServer, client_for: Callable[..., openai.OpenAI]
) -> None:
    answer = LLMResponse(content="391", finish_reason="stop", usage=Usage(40, 2), model="m")
    session = wire.open(
        forward=Script(_calling("call_a", "17 * 23", 30), answer), model="m", embedded=False
    )
    client = client_for(session.base_url)
    messages: list[Any] = [SYSTEM, ASK]
    first = _ask(client, messages).choices[0].message
    messages += [
        first.model_dump(exclude_none=True),
        {"role": "tool", "tool_call_id": "call_a", "content": "391"},
    ]
    assert _ask(client, messages).choices[0].message.content == "391"
    trajectory = _trajectory(wire, session)
    assert trajectory.steps[2].tool_calls[0].extra is None
    assert shape(trajectory).tool_calls == ("calculator",)


def test_a_request_that_drops_the_tool_history_starts_a_new_context(
    wire: WireServer, client_for: Callable[..., openai.OpenAI]
) -> None:
    answer = LLMResponse(content="It is 391.", usage=Usage(20, 4), model="m")
    script = Script(_calling("call_a", "17 * 23", 30), _calling("call_b", "17 * 23", 45), answer)
    session = wire.open(forward=script, model="m", embedded=False)
    client = client_for(session.base_url)
    messages: list[Any] = [SYSTEM, ASK]
    first = _ask(client, messages).choices[0].message
    messages += [
        first.model_dump(exclude_none=True),
        {"role": "tool", "tool_call_id": "call_a", "content": "391"},
    ]
    second = _ask(client, messages).choices[0].message
    messages += [
        second.model_dump(exclude_none=True),
        {"role": "tool", "tool_call_id": "call_b", "content": "391"},
    ]
    # the framework drops the tool history and starts over with a summary of it
    fresh = [SYSTEM, {"role": "user", "content": "17 * 23 was computed as 391. Answer."}]
    assert _ask(client, fresh).choices[0].message.content == "It is 391."
    trajectory = _trajectory(wire, session)
    agents = [s for s in trajectory.steps if s.source == "agent"]
    assert [bool((s.extra or {}).get("new_context")) for s in agents] == [False, False, True]
    assert agents[2].extra == {
        "new_context": True,
        "new_context_reason": "2 messages where the previous request had 4",
    }
    # the fresh request's user turn is recorded as a user step before the answer
    assert trajectory.steps[-2].source == "user"
    assert shape(trajectory).llm_calls == 3


def test_a_rewritten_earlier_message_is_named_in_the_reason(
    wire: WireServer, client_for: Callable[..., openai.OpenAI]
) -> None:
    answer = LLMResponse(content="391", usage=Usage(20, 4), model="m")
    session = wire.open(
        forward=Script(_calling("call_a", "17 * 23", 30), answer), model="m", embedded=False
    )
    client = client_for(session.base_url)
    first = _ask(client, [SYSTEM, ASK]).choices[0].message
    rewritten = {"role": "user", "content": "What is 17 * 23? (step 2 of 10)"}
    _ask(
        client,
        [
            SYSTEM,
            rewritten,
            first.model_dump(exclude_none=True),
            {"role": "tool", "tool_call_id": "call_a", "content": "391"},
        ],
    )
    agents = [s for s in _trajectory(wire, session).steps if s.source == "agent"]
    assert (agents[1].extra or {}).get("new_context_reason") == (
        "messages[1] differs from the previous request's"
    )


def test_a_new_user_turn_without_the_previous_answer_starts_a_new_context(
    wire: WireServer, client_for: Callable[..., openai.OpenAI]
) -> None:
    replies = (LLMResponse(content="391", usage=Usage(20, 4), model="m"),) * 2
    session = wire.open(forward=Script(*replies), model="m", embedded=False)
    client = client_for(session.base_url)
    _ask(client, [SYSTEM, ASK])
    _ask(client, [SYSTEM, ASK, {"role": "user", "content": "And 18 * 23?"}])
    agents = [s for s in _trajectory(wire, session).steps if s.source == "agent"]
    assert (agents[1].extra or {}).get("new_context_reason") == (
        "messages[2] is not the previous response"
    )


# --- a completion no parser could read: the real model layer against a stub provider ---------


@pytest.fixture
def provider() -> Iterator[dict[str, Any]]:
    """An OpenAI-compatible provider on 127.0.0.1 answering ``state["body"]`` to every call."""
    state: dict[str, Any] = {"body": {}}

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers["Content-Length"]))
            payload = json.dumps(state["body"]).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    state["api_base"] = f"http://127.0.0.1:{server.server_address[1]}/v1"
    yield state
    server.shutdown()
    server.server_close()


def _empty_completion(completion_tokens: int, **message: Any) -> dict[str, Any]:
    return {
        "id": "cmpl-1",
        "object": "chat.completion",
        "created": 1,
        "model": "served",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": "", **message},
                "finish_reason": "stop",
            }
        ],
        "usage": {
            "prompt_tokens": 30,
            "completion_tokens": completion_tokens,
            "total_tokens": 30 + completion_tokens,
        },
    }


def _through_the_wire(
    wire: WireServer, provider: dict[str, Any], client_for: Callable[..., openai.OpenAI]
) -> Any:
    model = LiteLLMModel("openai/served", api_base=provider["api_base"], api_key="sk-test")

    async def forward(request: WireRequest) -> LLMResponse:
        return await model.complete(request.messages, tools=request.tools)

    session = wire.open(forward=forward, model="openai/served", embedded=False)
    reply = _ask(client_for(session.base_url), [SYSTEM, ASK]).choices[0].message
    assert not reply.content and not reply.tool_calls, "the client got the empty message"
    return _trajectory(wire, session)


def test_an_unparsed_completion_keeps_the_text_the_provider_returned(
    wire: WireServer, provider: dict[str, Any], client_for: Callable[..., openai.OpenAI]
) -> None:
    raw = '<tool_call>{"name": "calculator", "arguments": {"expression": "17 * 23"'
    provider["body"] = _empty_completion(19, reasoning_content=raw)
    trajectory = _through_the_wire(wire, provider, client_for)
    (agent,) = (s for s in trajectory.steps if s.source == "agent")
    assert agent.message == "" and agent.tool_calls is None
    assert agent.extra == {"completion_unparsed": True, "raw_completion": raw}
    assert agent.metrics is not None and agent.metrics.completion_tokens == 19


def test_an_unparsed_completion_without_any_text_is_still_marked(
    wire: WireServer, provider: dict[str, Any], client_for: Callable[..., openai.OpenAI]
) -> None:
    provider["body"] = _empty_completion(7)
    (agent,) = (
        s for s in _through_the_wire(wire, provider, client_for).steps if s.source == "agent"
    )
    assert agent.extra == {"completion_unparsed": True}


def test_an_empty_completion_of_no_tokens_is_not_marked(
    wire: WireServer, provider: dict[str, Any], client_for: Callable[..., openai.OpenAI]
) -> None:
    provider["body"] = _empty_completion(0, reasoning_content="ignored: no token was produced")
    (agent,) = (
        s for s in _through_the_wire(wire, provider, client_for).steps if s.source == "agent"
    )
    assert agent.extra is None


def test_the_raw_completion_is_redacted_in_cassettes_and_stored_rows() -> None:
    secret = "sk-proj-" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6"
    response = LLMResponse(
        content="", usage=Usage(10, 5), raw_completion=f"use the key {secret} to call"
    )
    redactor = Redactor()
    stored = redact_response(response, redactor)
    assert stored.raw_completion is not None and secret not in stored.raw_completion
    assert REDACTED in stored.raw_completion
    recorder = TrajectoryRecorder(agent_name="a", agent_version="0", model_name="m")
    recorder.user("hi")
    recorder.agent_step(response)
    normalized = redactor.value(normalize(recorder.finish()))
    assert secret not in json.dumps(normalized)
    assert REDACTED in normalized["steps"][1]["extra"]["raw_completion"]
