"""The wire endpoint: requests checked and rewritten for the embedded server, answered in the
OpenAI format (streaming included) through real OpenAI clients over HTTP on 127.0.0.1, refused
with an error naming the field, and recorded per run. The model behind it is a scripted
forwarder here; tests/run and tests/frameworks drive the real one."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import openai
import pytest

from trajguard.capture import LLMResponse, ToolCallRequest, Usage
from trajguard.capture.wire import RequestShapeError, WireRequest, WireServer, parse_request
from trajguard.capture.zerocode import build_trajectory
from trajguard.errors import ModelRequestError, ModelUnavailable
from trajguard.normative import check_normative

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "calculator",
            "parameters": {"type": "object", "properties": {"expression": {"type": "string"}}},
            "strict": True,
        },
    }
]
CALL = ToolCallRequest("call_x1", "calculator", '{"expression": "17 * 23"}')


# --- request shapes ---------------------------------------------------------------------------


def test_shapes_the_embedded_server_cannot_take_are_rewritten_and_noted() -> None:
    request = parse_request(
        {
            "model": "anything",
            "messages": [
                {"role": "developer", "content": [{"type": "text", "text": "Be brief."}]},
                {
                    "role": "user",
                    "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
                },
                {
                    "role": "assistant",
                    "content": None,
                    "refusal": None,
                    "tool_calls": [
                        {
                            "id": "c1",
                            "type": "function",
                            "function": {"name": "calculator", "arguments": {"x": 1}},
                        }
                    ],
                },
                {"role": "tool", "tool_call_id": "c1", "content": "391"},
            ],
            "tools": TOOLS,
            "tool_choice": "required",
            "max_completion_tokens": 64,
            "parallel_tool_calls": False,
            "store": False,
            "temperature": 0.2,
            "frobnicate": 1,
        },
        embedded=True,
    )
    assert request.messages == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "a\nb"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "calculator", "arguments": '{"x": 1}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "391"},
    ]
    assert request.options == {"temperature": 0.2, "max_tokens": 64, "tool_choice": "auto"}
    assert request.tools is not None and "strict" not in request.tools[0]["function"]
    assert request.client_messages[0]["role"] == "developer", "the client's own messages are kept"
    assert request.requested_model == "anything"
    notes = " | ".join(request.notes)
    for expected in (
        "joined content parts",
        "dropped frobnicate",
        "dropped parallel_tool_calls",
        "tool_choice required sent as auto",
    ):
        assert expected in notes


def test_tool_choice_none_sends_no_tools_and_a_named_function_becomes_auto() -> None:
    base = {"messages": [{"role": "user", "content": "hi"}], "tools": TOOLS}
    none = parse_request({**base, "tool_choice": "none"}, embedded=True)
    assert none.tools is None and "tool_choice" not in none.options
    assert none.client_tools == TOOLS, "the trajectory still lists what the client offered"
    named = {"type": "function", "function": {"name": "calculator"}}
    forced = parse_request({**base, "tool_choice": named}, embedded=True)
    assert forced.options["tool_choice"] == "auto"
    assert any("cannot be forced" in note for note in forced.notes)


def test_another_model_gets_the_request_as_the_client_sent_it() -> None:
    parts = [{"type": "text", "text": "hi"}, {"type": "image_url", "image_url": {"url": "x"}}]
    request = parse_request(
        {
            "messages": [{"role": "user", "content": parts}],
            "tools": TOOLS,
            "tool_choice": "required",
            "parallel_tool_calls": False,
            "user": "someone",
        },
        embedded=False,
    )
    assert request.messages == [{"role": "user", "content": parts}]
    assert request.options == {"tool_choice": "required", "parallel_tool_calls": False}
    assert request.notes == []


@pytest.mark.parametrize(
    ("body", "param", "fragment"),
    [
        ({"messages": []}, "messages", "non-empty list"),
        (
            {"messages": [{"role": "robot", "content": "x"}]},
            "messages[0].role",
            "unknown role 'robot'",
        ),
        (
            {"messages": [{"role": "tool", "content": "x"}]},
            "messages[0].tool_call_id",
            "name its call",
        ),
        (
            {"messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {}}]}]},
            "messages[0].content[0].type",
            "'image_url' parts are not supported: the embedded model reads text only",
        ),
        ({"messages": [{"role": "user", "content": "x"}], "n": 2}, "n", "only one choice"),
        (
            {"messages": [{"role": "user", "content": "x"}], "logprobs": True},
            "logprobs",
            "not served",
        ),
        (
            {"messages": [{"role": "user", "content": "x"}], "functions": []},
            "functions",
            "use tools",
        ),
        (
            {"messages": [{"role": "user", "content": "x"}], "tools": [{"type": "web_search"}]},
            "tools[0].type",
            "only function tools",
        ),
        (
            {"messages": [{"role": "user", "content": "x"}], "stream": "yes"},
            "stream",
            "true or false",
        ),
        ([1, 2], "body", "JSON object"),
    ],
)
def test_an_unsupported_request_names_its_field(body: Any, param: str, fragment: str) -> None:
    with pytest.raises(RequestShapeError) as caught:
        parse_request(body, embedded=True)
    assert caught.value.param == param
    assert fragment in caught.value.message


# --- the endpoint -----------------------------------------------------------------------------


class Script:
    """A forwarder answering from a list; records what it was sent."""

    def __init__(self, *replies: LLMResponse | BaseException) -> None:
        self.replies = list(replies)
        self.requests: list[WireRequest] = []

    async def __call__(self, request: WireRequest) -> LLMResponse:
        self.requests.append(request)
        reply = self.replies.pop(0)
        if isinstance(reply, BaseException):
            raise reply
        return reply


@pytest.fixture
def wire() -> Iterator[WireServer]:
    with WireServer() as server:
        yield server


def _records(wire: WireServer, session: Any) -> list[Any]:
    asyncio.run(wire.close(session))
    return session.records


def test_a_tool_calling_conversation_is_answered_and_recorded(
    wire: WireServer, client_for: Callable[..., openai.OpenAI]
) -> None:
    script = Script(
        LLMResponse(content=None, tool_calls=(CALL,), usage=Usage(30, 5), model="smollm2"),
        LLMResponse(content="391", finish_reason="stop", usage=Usage(40, 2), model="smollm2"),
    )
    session = wire.open(forward=script, model="local/smollm2", embedded=True)
    assert session.base_url.startswith(f"{wire.root_url}/runs/")
    client = client_for(session.base_url)
    messages: list[Any] = [
        {"role": "system", "content": "Use the calculator."},
        {"role": "user", "content": "What is 17 * 23?"},
    ]
    first = client.chat.completions.create(model="local/smollm2", messages=messages, tools=TOOLS)
    message = first.choices[0].message
    assert first.choices[0].finish_reason == "tool_calls"
    assert message.tool_calls is not None and message.tool_calls[0].id == "call_x1"
    assert first.usage is not None and (
        first.usage.prompt_tokens,
        first.usage.completion_tokens,
    ) == (30, 5)
    messages += [
        message.model_dump(exclude_none=True),
        {"role": "tool", "tool_call_id": "call_x1", "content": "391"},
    ]
    second = client.chat.completions.create(model="local/smollm2", messages=messages, tools=TOOLS)
    assert second.choices[0].message.content == "391"
    assert script.requests[1].messages[2]["content"] == "", "content None rewritten for the server"
    trajectory = build_trajectory(_records(wire, session), agent_name="a", agent_version="0")
    assert check_normative(trajectory) == []
    assert [s.source for s in trajectory.steps] == ["system", "user", "agent", "agent"]
    agent = trajectory.steps[2]
    assert agent.tool_calls is not None and agent.tool_calls[0].arguments == {
        "expression": "17 * 23"
    }
    assert agent.observation is not None
    assert agent.observation.results[0].source_call_id == "call_x1"
    assert trajectory.final_metrics is not None
    assert (
        trajectory.final_metrics.total_prompt_tokens,
        trajectory.final_metrics.total_completion_tokens,
    ) == (70, 7)


def test_a_streaming_request_gets_the_answer_as_server_sent_events(
    wire: WireServer, client_for: Callable[..., openai.OpenAI]
) -> None:
    script = Script(LLMResponse(content=None, tool_calls=(CALL,), usage=Usage(12, 3)))
    session = wire.open(forward=script, model="local/smollm2", embedded=True)
    stream = client_for(session.base_url).chat.completions.create(
        model="m",
        messages=[{"role": "user", "content": "hi"}],
        tools=TOOLS,
        stream=True,
        stream_options={"include_usage": True},
    )
    chunks = list(stream)
    deltas = [c.choices[0].delta for c in chunks if c.choices]
    calls = [call for d in deltas for call in d.tool_calls or ()]
    assert [(c.id, c.function.name, c.function.arguments) for c in calls if c.function] == [
        ("call_x1", "calculator", '{"expression": "17 * 23"}')
    ]
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "tool_calls"
    usage = chunks[-1].usage
    assert usage is not None and (usage.prompt_tokens, usage.completion_tokens) == (12, 3)
    (record,) = _records(wire, session)
    assert record.response is not None and record.response.usage.prompt_tokens == 12


def test_an_unsupported_request_gets_an_openai_error_and_the_run_records_it(
    wire: WireServer, client_for: Callable[..., openai.OpenAI]
) -> None:
    script = Script()
    session = wire.open(forward=script, model="local/smollm2", embedded=True)
    image = [{"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}]
    with pytest.raises(openai.BadRequestError) as caught:
        client_for(session.base_url).chat.completions.create(
            model="m", messages=[{"role": "user", "content": image}]
        )
    error = caught.value.body
    assert isinstance(error, dict)
    assert error["param"] == "messages[0].content[0].type"
    assert error["type"] == "invalid_request_error"
    assert error["message"] == (
        "messages[0].content[0].type: 'image_url' parts are not supported: "
        "the embedded model reads text only"
    )
    assert script.requests == [], "nothing reached the model"
    (record,) = _records(wire, session)
    assert record.error is not None and record.error[0] == "RequestShapeError"
    assert "messages[0].content[0].type" in record.error[1]
    trajectory = build_trajectory([record], agent_name="a", agent_version="0")
    assert trajectory.extra is not None
    assert trajectory.extra["llm_errors"][0]["type"] == "RequestShapeError"


def test_a_body_that_is_not_json_is_refused(wire: WireServer) -> None:
    session = wire.open(forward=Script(), model="m", embedded=False)
    response = httpx.post(f"{session.base_url}/chat/completions", content=b"{nope", timeout=10)
    assert response.status_code == 400
    assert response.json()["error"]["param"] == "body"


@pytest.mark.parametrize(
    ("failure", "status", "code"),
    [
        (ModelRequestError("too long", context_overflow=True), 400, "context_length_exceeded"),
        (ModelRequestError("bad"), 400, "model_rejected"),
        (ModelUnavailable("down"), 503, "model_unavailable"),
        (RuntimeError("boom"), 500, "wire_error"),
    ],
)
def test_model_failures_map_to_openai_errors(
    wire: WireServer, failure: Exception, status: int, code: str
) -> None:
    session = wire.open(forward=Script(failure), model="m", embedded=False)
    response = httpx.post(
        f"{session.base_url}/chat/completions",
        json={"messages": [{"role": "user", "content": "hi"}]},
        timeout=10,
    )
    assert response.status_code == status
    assert response.json()["error"]["code"] == code
    assert wire.upstream_errors == 1
    (record,) = _records(wire, session)
    assert record.error == (type(failure).__name__, str(failure))


def test_unknown_runs_and_paths_are_refused_with_a_way_out(wire: WireServer) -> None:
    session = wire.open(forward=Script(), model="m", embedded=False)
    unknown = httpx.post(f"{wire.root_url}/runs/nope/v1/chat/completions", json={}, timeout=10)
    assert (unknown.status_code, unknown.json()["error"]["code"]) == (404, "run_not_found")
    responses = httpx.post(f"{session.base_url}/responses", json={}, timeout=10)
    assert responses.status_code == 404
    assert "set_default_openai_api('chat_completions')" in responses.json()["error"]["message"]
    models = httpx.get(f"{session.base_url}/models", timeout=10).json()
    assert models["data"][0]["id"] == "m"
    asyncio.run(wire.close(session))
    closed = httpx.post(
        f"{session.base_url}/chat/completions",
        json={"messages": [{"role": "user", "content": "hi"}]},
        timeout=10,
    )
    assert closed.json()["error"]["code"] == "run_not_found", "a finished run takes no more calls"


def test_runs_are_recorded_apart(
    wire: WireServer, client_for: Callable[..., openai.OpenAI]
) -> None:
    sessions = [
        wire.open(forward=Script(LLMResponse(content=f"answer {i}")), model="m", embedded=False)
        for i in range(2)
    ]
    for i, session in enumerate(sessions):
        client_for(session.base_url).chat.completions.create(
            model="m", messages=[{"role": "user", "content": f"question {i}"}]
        )
    for i, session in enumerate(sessions):
        (record,) = _records(wire, session)
        assert record.messages[0]["content"] == f"question {i}"
        assert record.response is not None and record.response.content == f"answer {i}"


def test_closing_a_run_cancels_its_call_in_flight_and_records_it(
    wire: WireServer, client_for: Callable[..., openai.OpenAI]
) -> None:
    arrived = threading.Event()

    async def hangs(request: WireRequest) -> LLMResponse:
        arrived.set()
        await asyncio.Event().wait()  # never answers
        raise AssertionError("unreachable")

    session = wire.open(forward=hangs, model="m", embedded=False)
    outcome: list[BaseException] = []

    def call() -> None:
        try:
            client_for(session.base_url).chat.completions.create(
                model="m", messages=[{"role": "user", "content": "hi"}]
            )
        except BaseException as exc:  # handed to the test
            outcome.append(exc)

    caller = threading.Thread(target=call)
    caller.start()
    assert arrived.wait(10)
    (record,) = _records(wire, session)  # closes the session
    caller.join(20)
    assert not caller.is_alive(), "the client is not left hanging"
    assert outcome and isinstance(outcome[0], openai.APIError | openai.APIConnectionError)
    assert record.error == ("Cancelled", "the run ended before the model answered")
