"""The model layer: retries, error mapping, what goes on the wire, and the real embedded model.

Error paths use a patched ``litellm.acompletion`` or a stub OpenAI-compatible HTTP server on
127.0.0.1 (real transport, scripted answers). Tests marked ``live`` call the embedded SmolLM2
through ``LiteLLMModel("local/smollm2")`` over HTTP.
"""

from __future__ import annotations

import json
import os
import random
import signal
import socket
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from trajguard.capture import ChatModel, LiteLLMModel, LLMResponse, ToolCallRequest, backoff_delay
from trajguard.capture import _llm as llm
from trajguard.errors import ModelRequestError, ModelUnavailable

litellm = llm._litellm()

# pydantic warns (UserWarning) when litellm's response types build their schema on first use:
# "Items ... on TypedDict class '_DeviceCode' are using the `ReadOnly` qualifier".
pytestmark = pytest.mark.filterwarnings("ignore:Items? .* the `ReadOnly` qualifier:UserWarning")

MODEL = "openai/test-model"
API_BASE = "http://127.0.0.1:9/v1"
HELLO = [{"role": "user", "content": "hello"}]
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Get the current weather for a city",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "calculator",
            "description": "Evaluate an arithmetic expression",
            "parameters": {
                "type": "object",
                "properties": {"expression": {"type": "string"}},
                "required": ["expression"],
            },
        },
    },
]


def _globals_snapshot() -> dict[str, Any]:
    names = [
        "drop_params",
        "callbacks",
        "success_callback",
        "failure_callback",
        "input_callback",
        "_async_success_callback",
        "_async_failure_callback",
        "num_retries",
        "suppress_debug_info",
        "set_verbose",
        "api_base",
        "api_key",
        "request_timeout",
        "modify_params",
    ]
    return {name: repr(getattr(litellm, name, None)) for name in names}


@pytest.fixture
def sleeps(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """Record the backoff waits instead of sleeping."""
    recorded: list[float] = []

    async def fake_sleep(delay: float) -> None:
        recorded.append(delay)

    monkeypatch.setattr(llm, "_sleep", fake_sleep)
    return recorded


@dataclass
class Script:
    """A scripted ``acompletion``: raises the queued errors, then answers; records the calls."""

    errors: list[Exception] = field(default_factory=list)
    calls: list[dict[str, Any]] = field(default_factory=list)

    async def __call__(self, **kwargs: Any) -> Any:
        self.calls.append(kwargs)
        if self.errors:
            raise self.errors.pop(0)
        return litellm.ModelResponse(
            model="served-name",
            choices=[
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": "hi"},
                    "finish_reason": "stop",
                }
            ],
            usage={"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4},
        )


@pytest.fixture
def script(monkeypatch: pytest.MonkeyPatch) -> Script:
    fake = Script()
    monkeypatch.setattr(litellm, "acompletion", fake)
    return fake


TRANSIENT = {
    "connection refused": lambda: litellm.APIConnectionError(
        message="Connection refused", llm_provider="openai", model=MODEL
    ),
    "timeout": lambda: litellm.Timeout(message="timed out", model=MODEL, llm_provider="openai"),
    "429": lambda: litellm.RateLimitError(message="slow down", llm_provider="openai", model=MODEL),
    "503": lambda: litellm.ServiceUnavailableError(
        message="busy", llm_provider="openai", model=MODEL
    ),
    "500": lambda: litellm.InternalServerError(message="oops", llm_provider="openai", model=MODEL),
    "502": lambda: litellm.BadGatewayError(message="bad gw", llm_provider="openai", model=MODEL),
    "504 as APIError": lambda: litellm.APIError(
        status_code=504, message="gateway timeout", llm_provider="openai", model=MODEL
    ),
}


# --- retries and error mapping (patched acompletion) -------------------------------------------


SPENT = {
    "connection refused": ("unreachable", "unreachable after 4 attempts"),
    "timeout": ("unreachable", "unreachable after 4 attempts"),
    "429": ("rate_limited", "still rate limited after 4 attempts"),
    "503": ("server_error", "failed with server errors in 4 attempts"),
    "500": ("server_error", "failed with server errors in 4 attempts"),
    "502": ("server_error", "failed with server errors in 4 attempts"),
    "504 as APIError": ("server_error", "failed with server errors in 4 attempts"),
}


@pytest.mark.parametrize("name", TRANSIENT)
async def test_transient_errors_are_retried_then_unavailable(
    script: Script, sleeps: list[float], name: str
) -> None:
    make_error = TRANSIENT[name]
    script.errors = [make_error() for _ in range(10)]
    model = LiteLLMModel(MODEL, api_base=API_BASE, max_retries=3, backoff_s=0.5)
    with pytest.raises(ModelUnavailable) as info:
        await model.complete(HELLO)
    assert len(script.calls) == 4
    assert len(sleeps) == 3
    message = str(info.value)
    reason, said = SPENT[name]
    assert info.value.reason == reason
    assert f"model {MODEL} at {API_BASE} {said}" in message
    assert type(make_error()).__name__ in message
    assert info.value.hint
    assert info.value.exit_code == 3


async def test_backoff_doubles_with_jitter(script: Script, sleeps: list[float]) -> None:
    script.errors = [TRANSIENT["503"]() for _ in range(10)]
    model = LiteLLMModel(MODEL, api_base=API_BASE, max_retries=4, backoff_s=1.0)
    with pytest.raises(ModelUnavailable):
        await model.complete(HELLO)
    assert len(sleeps) == 4
    for attempt, delay in enumerate(sleeps, start=1):
        assert 0.5 * 2 ** (attempt - 1) <= delay <= 2 ** (attempt - 1)


def test_backoff_delay_is_capped() -> None:
    rng = random.Random(0)
    assert backoff_delay(30, base_s=1.0, rng=rng) <= 30.0
    assert backoff_delay(1, base_s=0.0, rng=rng) == 0.0


async def test_recovers_after_transient_errors(script: Script, sleeps: list[float]) -> None:
    script.errors = [TRANSIENT["connection refused"](), TRANSIENT["429"]()]
    model = LiteLLMModel(MODEL, api_base=API_BASE, max_retries=3, backoff_s=0.0)
    response = await model.complete(HELLO)
    assert response.content == "hi"
    assert len(script.calls) == 3
    assert len(sleeps) == 2


async def test_zero_retries_means_one_attempt(script: Script, sleeps: list[float]) -> None:
    script.errors = [TRANSIENT["503"]()]
    with pytest.raises(ModelUnavailable, match="in 1 attempt:"):
        await LiteLLMModel(MODEL, api_base=API_BASE, max_retries=0).complete(HELLO)
    assert len(script.calls) == 1
    assert sleeps == []


@pytest.mark.parametrize(
    ("error", "overflow"),
    [
        (
            lambda: litellm.BadRequestError(
                message="unknown field", model=MODEL, llm_provider="openai"
            ),
            False,
        ),
        (
            lambda: litellm.ContextWindowExceededError(
                message="too long", model=MODEL, llm_provider="openai"
            ),
            True,
        ),
        (
            lambda: litellm.BadRequestError(
                message="This model's maximum context length is 4096 tokens",
                model=MODEL,
                llm_provider="openai",
            ),
            True,
        ),
    ],
    ids=["bad request", "context window", "context in message"],
)
async def test_rejected_requests_are_not_retried(
    script: Script, sleeps: list[float], error: Any, overflow: bool
) -> None:
    script.errors = [error()]
    with pytest.raises(ModelRequestError) as info:
        await LiteLLMModel(MODEL, api_base=API_BASE).complete(HELLO)
    assert len(script.calls) == 1
    assert sleeps == []
    assert info.value.context_overflow is overflow
    assert MODEL in str(info.value)
    assert info.value.exit_code == 2


async def test_authentication_error_is_unavailable_and_never_shows_the_key(
    script: Script, sleeps: list[float]
) -> None:
    secret = "sk-very-secret-1234"
    script.errors = [
        litellm.AuthenticationError(message="invalid api key", llm_provider="openai", model=MODEL)
    ]
    model = LiteLLMModel(MODEL, api_base=API_BASE, api_key=secret)
    with pytest.raises(ModelUnavailable) as info:
        await model.complete(HELLO)
    assert len(script.calls) == 1
    assert sleeps == []
    assert "refused the credentials" in str(info.value)
    assert "API key" in (info.value.hint or "")
    assert secret not in str(info.value)
    assert secret not in repr(model)
    assert script.calls[0]["api_key"] == secret  # used for the call, nowhere else


async def test_not_found_is_unavailable_without_retry(script: Script, sleeps: list[float]) -> None:
    script.errors = [litellm.NotFoundError(message="no such model", model=MODEL, llm_provider="x")]
    with pytest.raises(ModelUnavailable, match="was not found"):
        await LiteLLMModel(MODEL, api_base=API_BASE).complete(HELLO)
    assert len(script.calls) == 1


# --- what is sent --------------------------------------------------------------------------------


async def test_tools_are_sent_with_tool_choice_auto_and_drop_params(script: Script) -> None:
    model = LiteLLMModel(MODEL, api_base=API_BASE, timeout_s=7.0)
    await model.complete(HELLO, tools=TOOLS, seed=5, temperature=0.3, max_tokens=9)
    (call,) = script.calls
    assert call["tools"] == TOOLS
    assert call["tool_choice"] == "auto"
    assert call["drop_params"] is True
    assert call["max_retries"] == 0  # the OpenAI SDK must not retry behind our back
    assert call["timeout"] == 7.0
    assert call["model"] == MODEL
    assert call["api_base"] == API_BASE
    assert (call["seed"], call["temperature"], call["max_tokens"]) == (5, 0.3, 9)


async def test_unset_options_are_not_sent(script: Script) -> None:
    await LiteLLMModel(MODEL, api_base=API_BASE, extra_params={"tool_choice": "none"}).complete(
        HELLO
    )
    (call,) = script.calls
    for key in ("tools", "tool_choice", "seed", "temperature", "max_tokens", "response_format"):
        assert key not in call
    assert call["drop_params"] is True


async def test_extra_params_are_sent_and_arguments_win(script: Script) -> None:
    model = LiteLLMModel(
        MODEL,
        api_base=API_BASE,
        extra_params={"parallel_tool_calls": False, "temperature": 1.0, "tool_choice": "required"},
    )
    await model.complete(HELLO, tools=TOOLS, temperature=0.0)
    (call,) = script.calls
    assert call["parallel_tool_calls"] is False
    assert call["temperature"] == 0.0
    assert call["tool_choice"] == "required"


def test_invalid_configuration() -> None:
    with pytest.raises(ValueError, match="extra_params may not set"):
        LiteLLMModel(MODEL, extra_params={"api_key": "x"})
    with pytest.raises(ValueError, match="runs its own server"):
        LiteLLMModel("local/smollm2", api_base="http://127.0.0.1:1/v1")
    with pytest.raises(ValueError, match="non-empty"):
        LiteLLMModel(" ")


def test_is_a_chat_model() -> None:
    model = LiteLLMModel()
    assert isinstance(model, ChatModel)
    assert model.model_name == "local/smollm2"
    assert model.is_local
    assert not LiteLLMModel("ollama_chat/qwen2.5:1.5b").is_local


async def test_litellm_globals_are_untouched(script: Script, sleeps: list[float]) -> None:
    before = _globals_snapshot()
    model = LiteLLMModel(MODEL, api_base=API_BASE, max_retries=1)
    await model.complete(HELLO, tools=TOOLS)
    script.errors = [TRANSIENT["503"](), TRANSIENT["503"]()]
    with pytest.raises(ModelUnavailable):
        await model.complete(HELLO)
    assert _globals_snapshot() == before


def test_import_is_cheap_and_sets_the_local_cost_map() -> None:
    code = textwrap.dedent(
        """
        import os, sys
        os.environ.pop("LITELLM_LOCAL_MODEL_COST_MAP", None)
        import trajguard.capture._llm
        print("litellm" in sys.modules, os.environ.get("LITELLM_LOCAL_MODEL_COST_MAP"))
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.split()
    assert out == ["False", "True"]


# --- a stub OpenAI-compatible server: the real HTTP path, scripted answers ----------------------


@dataclass
class Stub:
    """What the stub server answers, and the request bodies it saw."""

    status: int = 200
    body: dict[str, Any] = field(default_factory=dict)
    requests: list[dict[str, Any]] = field(default_factory=list)
    api_base: str = ""


@pytest.fixture
def stub() -> Iterator[Stub]:
    state = Stub()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers["Content-Length"])
            state.requests.append(json.loads(self.rfile.read(length)))
            payload = json.dumps(state.body).encode()
            self.send_response(state.status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    state.api_base = f"http://127.0.0.1:{server.server_address[1]}/v1"
    yield state
    server.shutdown()
    server.server_close()


def _completion(message: dict[str, Any], finish_reason: str, **usage: Any) -> dict[str, Any]:
    return {
        "id": "cmpl-1",
        "object": "chat.completion",
        "created": 1,
        "model": "served-name",
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
        "usage": {"prompt_tokens": 30, "completion_tokens": 12, "total_tokens": 42, **usage},
    }


async def test_wire_body_and_response_conversion(stub: Stub) -> None:
    stub.body = _completion(
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{ "city": "Paris" } '},
                }
            ],
        },
        "tool_calls",
        prompt_tokens_details={"cached_tokens": 20},
    )
    schema = {"type": "object", "properties": {"action": {"enum": ["a", "b"]}}}
    model = LiteLLMModel(
        "openai/served-name",
        api_base=stub.api_base,
        api_key="sk-test",
        extra_params={"parallel_tool_calls": False},
    )
    response = await model.complete(
        HELLO, tools=TOOLS, response_format={"type": "json_object", "schema": schema}, seed=3
    )
    (sent,) = stub.requests
    assert sent["tool_choice"] == "auto"
    assert sent["tools"] == TOOLS
    assert sent["response_format"] == {"type": "json_object", "schema": schema}  # kept intact
    assert sent["seed"] == 3
    assert sent["parallel_tool_calls"] is False
    assert response.tool_calls == (
        ToolCallRequest(id="call_1", name="get_weather", arguments='{ "city": "Paris" } '),
    )
    assert response.content is None
    assert response.finish_reason == "tool_calls"
    assert (response.usage.prompt_tokens, response.usage.completion_tokens) == (30, 12)
    assert response.usage.cached_tokens == 20
    assert response.model == "served-name"
    assert response.latency_s > 0


async def test_http_503_is_retried_by_us_only(stub: Stub, sleeps: list[float]) -> None:
    stub.status = 503
    stub.body = {"error": {"message": "busy"}}
    model = LiteLLMModel("openai/x", api_base=stub.api_base, api_key="k", max_retries=2)
    with pytest.raises(ModelUnavailable, match="failed with server errors in 3 attempts"):
        await model.complete(HELLO)
    assert len(stub.requests) == 3  # without max_retries=0 the OpenAI SDK would make it 9


async def test_llama_cpp_validation_500_is_a_request_error(stub: Stub, sleeps: list[float]) -> None:
    # What llama_cpp.server answers to response_format {"type": "json_schema", ...}.
    stub.status = 500
    stub.body = {
        "error": {
            "message": "1 validation error:\n  {'type': 'literal_error', 'loc': ('body', "
            "'response_format', 'type'), 'msg': \"Input should be 'text' or 'json_object'\"}",
            "type": "internal_server_error",
        }
    }
    model = LiteLLMModel("openai/x", api_base=stub.api_base, api_key="k")
    with pytest.raises(ModelRequestError, match="request rejected"):
        await model.complete(HELLO)
    assert len(stub.requests) == 1
    assert sleeps == []


async def test_connection_refused_names_model_and_endpoint(sleeps: list[float]) -> None:
    with socket.socket() as sock:  # a port that was free a moment ago: nothing listens there
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    api_base = f"http://127.0.0.1:{port}/v1"
    model = LiteLLMModel("openai/x", api_base=api_base, api_key="k", max_retries=2)
    with pytest.raises(ModelUnavailable) as info:
        await model.complete(HELLO)
    assert f"model openai/x at {api_base} unreachable after 3 attempts" in str(info.value)
    assert len(sleeps) == 2


# --- live: the embedded SmolLM2 over HTTP -----------------------------------------------------


@pytest.fixture(scope="module")
def local(local_model: Any) -> LiteLLMModel:
    assert local_model.running
    return LiteLLMModel("local/smollm2")


@pytest.mark.live
async def test_live_plain_chat(local: LiteLLMModel) -> None:
    response = await local.complete(
        [{"role": "user", "content": "Say hello in one short sentence."}], max_tokens=30, seed=1
    )
    assert isinstance(response, LLMResponse)
    assert isinstance(response.content, str)
    assert response.content.strip()
    assert response.tool_calls == ()
    assert response.finish_reason in {"stop", "length"}
    assert response.usage.prompt_tokens > 0
    assert response.usage.completion_tokens > 0
    assert response.model == "smollm2"
    assert local.model_name == "local/smollm2"


@pytest.mark.live
async def test_live_tool_call(local: LiteLLMModel) -> None:
    response = await local.complete(
        [{"role": "user", "content": "What is the weather in Paris?"}],
        tools=TOOLS,
        seed=5,
        max_tokens=60,
    )
    assert response.finish_reason == "tool_calls"
    assert response.tool_calls
    call = response.tool_calls[0]
    assert call.name in {"get_weather", "calculator"}
    assert call.id
    assert isinstance(call.arguments, str)


@pytest.mark.live
async def test_live_json_mode_is_parseable(local: LiteLLMModel) -> None:
    # llama.cpp's grammar lets a JSON string hold raw newlines and run on until max_tokens:
    # maxLength bounds it, and strict=False accepts the control characters.
    actions = ["get_weather", "calculator", "final_answer"]
    schema = {
        "type": "object",
        "properties": {
            "action": {"type": "string", "enum": actions},
            "input": {"type": "string", "maxLength": 40},
        },
        "required": ["action", "input"],
    }
    messages = [
        {"role": "system", "content": "Reply with a JSON action."},
        {"role": "user", "content": "What is 17 * 23?"},
    ]
    for seed in (1, 2):
        response = await local.complete(
            messages,
            response_format={"type": "json_object", "schema": schema},
            seed=seed,
            max_tokens=80,
        )
        assert response.finish_reason == "stop"
        assert response.content is not None
        assert json.loads(response.content, strict=False)["action"] in actions


@pytest.mark.live
async def test_live_same_seed_same_content(local: LiteLLMModel) -> None:
    story = [{"role": "user", "content": "Tell me a story about a cat."}]

    async def sample(seed: int) -> str | None:
        response = await local.complete(story, seed=seed, temperature=1.0, max_tokens=30)
        return response.content

    # The server's first evaluation of a prompt runs it as one batch; later ones reuse the
    # cached prefix, whose logits differ in the last bits, enough to change a sample at
    # temperature 1 (measured: the cold call differs, every warm call agrees). Warm it first.
    await sample(42)
    first = await sample(42)
    other = await sample(43)
    again = await sample(42)
    assert first == again
    assert first != other


@pytest.mark.live
async def test_live_context_overflow(local: LiteLLMModel) -> None:
    with pytest.raises(ModelRequestError) as info:
        await local.complete([{"role": "user", "content": "word " * 5000}], max_tokens=10)
    assert info.value.context_overflow


@pytest.mark.live
async def test_live_openai_json_schema_form_is_rejected_without_retry(
    local: LiteLLMModel, sleeps: list[float]
) -> None:
    with pytest.raises(ModelRequestError):
        await local.complete(
            HELLO,
            response_format={"type": "json_schema", "json_schema": {"name": "a", "schema": {}}},
        )
    assert sleeps == []


@pytest.mark.live
async def test_live_crashed_server_is_restarted(monkeypatch: pytest.MonkeyPatch) -> None:
    from trajguard import local_model

    monkeypatch.setattr("trajguard.local_model._pool._servers", {})  # a private singleton here
    try:
        model = LiteLLMModel("local/smollm2", backoff_s=0.0)
        await model.complete(HELLO, max_tokens=5, seed=1)
        server = local_model.running_local_server()
        assert server is not None
        old_pid = server.pid
        assert old_pid is not None
        os.kill(old_pid, signal.SIGKILL)
        response = await model.complete(HELLO, max_tokens=5, seed=1)
        assert response.content is not None
        assert server.running
        assert server.pid != old_pid
    finally:
        local_model.stop_local_server()
