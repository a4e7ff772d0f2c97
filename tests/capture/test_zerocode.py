"""Zero-code capture: unmodified agents calling litellm themselves, recorded through callbacks.

Most tests drive litellm's real OpenAI transport against a scripted OpenAI-compatible server on
127.0.0.1 (so pre-call, success and failure events come from litellm's own machinery, threads
and logging tasks); a few use ``mock_response`` (also through the real callback path). The
conversion itself is unit-tested on hand-built call records. The ``live`` test drives the
embedded SmolLM2.
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import json
import os
import threading
import time
import warnings
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from trajguard.atif import Trajectory, trajectory_to_dict
from trajguard.capture import LLMResponse, ToolCallRequest, Usage
from trajguard.capture.zerocode import capture_litellm
from trajguard.capture.zerocode._build import CallRecord, build_trajectory
from trajguard.local_model import get_local_server
from trajguard.normative import check_normative

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
import litellm  # after the environment variable above

pytestmark = pytest.mark.filterwarnings("ignore:Items? .* the `ReadOnly` qualifier:UserWarning")

LISTS = (
    "callbacks",
    "input_callback",
    "success_callback",
    "failure_callback",
    "service_callback",
    "_async_input_callback",
    "_async_success_callback",
    "_async_failure_callback",
)
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
    }
]
SYSTEM = "You answer weather questions."


# --- a scripted OpenAI-compatible server ------------------------------------------------------


@dataclass
class FakeLLM:
    """The scripted server: what it saw, and an optional rendezvous for concurrency tests.

    Attributes:
        base_url: the OpenAI-compatible base URL.
        rendezvous: when set, every first request of a conversation (one whose last message is
            the user's) is held until all parties have arrived: the calls provably overlap.
    """

    base_url: str
    rendezvous: threading.Barrier | None = None


def _last_user(messages: list[dict[str, Any]]) -> str:
    return next((str(m.get("content")) for m in reversed(messages) if m["role"] == "user"), "")


def _answer(body: dict[str, Any], serial: int) -> tuple[int, dict[str, Any]]:
    messages = body["messages"]
    last = messages[-1]
    question = _last_user(messages)
    if "fail" in question:
        return 400, {"error": {"message": "scripted failure", "type": "invalid_request_error"}}
    if last["role"] == "user" and question.startswith("weather in "):
        city = question.removeprefix("weather in ")
        message: dict[str, Any] = {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": f"call_{city}_{serial}",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": json.dumps({"city": city})},
                }
            ],
        }
    elif last["role"] == "tool":
        message = {"role": "assistant", "content": f"It is {last['content']}."}
    else:
        message = {"role": "assistant", "content": f"echo: {question}"}
    return 200, {
        "id": f"chatcmpl-{serial}",
        "object": "chat.completion",
        "created": 1,
        "model": "fake-model",
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": "tool_calls" if message.get("tool_calls") else "stop",
            }
        ],
        "usage": {
            "prompt_tokens": 10 * len(messages),
            "completion_tokens": 5,
            "total_tokens": 10 * len(messages) + 5,
        },
    }


@pytest.fixture(scope="module")
def fake_llm() -> Iterator[FakeLLM]:
    lock = threading.Lock()
    counter = iter(range(1, 1_000_000))
    state = FakeLLM(base_url="")

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            with lock:
                serial = next(counter)
            if state.rendezvous is not None and body["messages"][-1]["role"] == "user":
                state.rendezvous.wait()
            time.sleep(0.05)  # the model's latency, so that concurrent runs interleave
            status, payload = _answer(body, serial)
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    state.base_url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    yield state
    server.shutdown()
    server.server_close()


@pytest.fixture(autouse=True)
def litellm_lists() -> Iterator[dict[str, list[Any]]]:
    """Restore litellm's callback lists in place after each test (they are process-global)."""
    saved = {name: list(getattr(litellm, name)) for name in LISTS}
    yield saved
    for name, items in saved.items():
        getattr(litellm, name)[:] = items


@pytest.fixture(autouse=True)
def close_litellm_sync_loop(request: pytest.FixtureRequest) -> Iterator[None]:
    """Close the main-thread event loop litellm's sync path leaves open.

    ``litellm.completion`` reaches ``asyncio.get_event_loop()`` (``_service_logger.py``), which
    creates a loop in the main thread and never closes it; garbage-collected during a later
    test, it would fail that test with a ResourceWarning. litellm copes with a closed loop.
    """
    yield
    if inspect.iscoroutinefunction(request.function):
        return  # pytest-asyncio owns the loop of async tests
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            loop = asyncio.get_event_loop_policy().get_event_loop()
        except RuntimeError:  # no current loop: nothing was left open
            return
    if not loop.is_running() and not loop.is_closed():
        loop.close()


# --- unmodified agents: they know nothing about trajguard ----------------------------------------


def _kwargs(base_url: str) -> dict[str, Any]:
    return {
        "model": "openai/fake",
        "api_base": base_url,
        "api_key": "sk-no-key",
        "tools": TOOLS,
        "tool_choice": "auto",
        "max_retries": 0,
    }


def _run_tools(message: Any) -> list[dict[str, Any]]:
    return [
        {
            "role": "tool",
            "tool_call_id": call.id,
            "content": f"sunny in {json.loads(call.function.arguments)['city']}",
        }
        for call in message.tool_calls or ()
    ]


def weather_agent_sync(base_url: str, city: str) -> str:
    messages: list[Any] = [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": f"weather in {city}"},
    ]
    first = litellm.completion(messages=messages, **_kwargs(base_url)).choices[0].message
    messages.append(first)
    messages.extend(_run_tools(first))
    second = litellm.completion(messages=messages, **_kwargs(base_url))
    return str(second.choices[0].message.content)


async def weather_agent(base_url: str, city: str) -> str:
    messages: list[Any] = [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": f"weather in {city}"},
    ]
    response = await litellm.acompletion(messages=messages, **_kwargs(base_url))
    first = response.choices[0].message
    messages.append(first)
    await asyncio.sleep(0)  # let a concurrent agent interleave
    messages.extend(_run_tools(first))
    second = await litellm.acompletion(messages=messages, **_kwargs(base_url))
    return str(second.choices[0].message.content)


def _shape(trajectory: Trajectory) -> list[tuple[str, str]]:
    return [(step.source, str(step.message)) for step in trajectory.steps]


def _assert_weather_run(trajectory: Trajectory, city: str) -> None:
    assert check_normative(trajectory) == []
    assert _shape(trajectory) == [
        ("system", SYSTEM),
        ("user", f"weather in {city}"),
        ("agent", ""),
        ("agent", f"It is sunny in {city}."),
    ]
    call_step = trajectory.steps[2]
    assert call_step.tool_calls is not None
    [call] = call_step.tool_calls
    assert call.function_name == "get_weather"
    assert call.arguments == {"city": city}
    assert call.tool_call_id.startswith(f"call_{city}_")
    assert call_step.observation is not None
    [result] = call_step.observation.results
    assert result.source_call_id == call.tool_call_id
    assert result.content == f"sunny in {city}"
    assert call_step.metrics is not None
    assert (call_step.metrics.prompt_tokens, call_step.metrics.completion_tokens) == (20, 5)
    assert call_step.model_name == "fake-model"
    assert trajectory.agent.model_name == "openai/fake"
    assert trajectory.agent.tool_definitions == TOOLS
    assert trajectory.final_metrics is not None
    assert trajectory.final_metrics.total_prompt_tokens == 20 + 40
    assert trajectory.final_metrics.total_completion_tokens == 10
    assert not (trajectory.extra or {}).get("crashed")


# --- capture of one run ---------------------------------------------------------------------


def test_sync_tool_conversation_is_captured(fake_llm: FakeLLM) -> None:
    with capture_litellm(agent_name="weather", agent_version="1.2") as cap:
        answer = weather_agent_sync(fake_llm.base_url, "Paris")
    assert answer == "It is sunny in Paris."
    _assert_weather_run(cap.trajectory, "Paris")
    assert (cap.trajectory.agent.name, cap.trajectory.agent.version) == ("weather", "1.2")


async def test_async_tool_conversation_is_captured(fake_llm: FakeLLM) -> None:
    async with capture_litellm() as cap:
        await weather_agent(fake_llm.base_url, "Lima")
    _assert_weather_run(cap.trajectory, "Lima")
    assert cap.trajectory.agent.name == "litellm-agent"


def test_calls_outside_the_block_are_not_recorded(fake_llm: FakeLLM) -> None:
    weather_agent_sync(fake_llm.base_url, "Before")
    with capture_litellm() as cap:
        weather_agent_sync(fake_llm.base_url, "Inside")
    weather_agent_sync(fake_llm.base_url, "After")
    _assert_weather_run(cap.trajectory, "Inside")


def test_trajectory_is_unavailable_inside_the_block(fake_llm: FakeLLM) -> None:
    with capture_litellm() as cap, pytest.raises(RuntimeError, match="still open"):
        _ = cap.trajectory


# --- concurrency: runs that overlap in time keep their own steps -------------------------------


async def test_two_concurrent_async_captures_are_kept_apart(fake_llm: FakeLLM) -> None:
    async def captured(city: str) -> Trajectory:
        async with capture_litellm(agent_name=city) as cap:
            await weather_agent(fake_llm.base_url, city)
        return cap.trajectory

    fake_llm.rendezvous = threading.Barrier(2, timeout=10)  # both first calls in flight at once
    try:
        oslo, rome = await asyncio.gather(captured("Oslo"), captured("Rome"))
    finally:
        fake_llm.rendezvous = None

    _assert_weather_run(oslo, "Oslo")
    _assert_weather_run(rome, "Rome")


async def test_many_concurrent_async_captures_are_kept_apart(fake_llm: FakeLLM) -> None:
    cities = [f"City{i}" for i in range(8)]

    async def captured(city: str) -> Trajectory:
        async with capture_litellm() as cap:
            await weather_agent(fake_llm.base_url, city)
        return cap.trajectory

    for city, trajectory in zip(cities, await asyncio.gather(*map(captured, cities)), strict=True):
        _assert_weather_run(trajectory, city)


def test_concurrent_captures_in_threads_are_kept_apart(fake_llm: FakeLLM) -> None:
    cities = ["Bern", "Kyiv", "Doha", "Suva"]

    def captured(city: str) -> Trajectory:
        with capture_litellm() as cap:
            weather_agent_sync(fake_llm.base_url, city)
        return cap.trajectory

    fake_llm.rendezvous = threading.Barrier(len(cities), timeout=10)
    try:
        with ThreadPoolExecutor(len(cities)) as pool:
            trajectories = list(pool.map(captured, cities))
    finally:
        fake_llm.rendezvous = None
    for city, trajectory in zip(cities, trajectories, strict=True):
        _assert_weather_run(trajectory, city)


async def test_tasks_spawned_inside_the_block_belong_to_it(fake_llm: FakeLLM) -> None:
    async with capture_litellm() as cap:
        await asyncio.gather(
            weather_agent(fake_llm.base_url, "Ulm"), weather_agent(fake_llm.base_url, "Ely")
        )
    trajectory = cap.trajectory
    assert check_normative(trajectory) == []
    agent_steps = [s for s in trajectory.steps if s.source == "agent"]
    assert len(agent_steps) == 4
    results = {r.content for s in agent_steps if s.observation for r in s.observation.results}
    assert results == {"sunny in Ulm", "sunny in Ely"}


def test_plain_threads_need_a_copied_context(fake_llm: FakeLLM) -> None:
    def call(city: str) -> None:
        litellm.completion(
            messages=[{"role": "user", "content": f"hello {city}"}], **_kwargs(fake_llm.base_url)
        )

    with capture_litellm() as cap:
        plain = threading.Thread(target=call, args=("plain",))
        plain.start()
        plain.join()
        copied = threading.Thread(target=contextvars.copy_context().run, args=(call, "copied"))
        copied.start()
        copied.join()
    assert _shape(cap.trajectory) == [("user", "hello copied"), ("agent", "echo: hello copied")]


async def test_plain_with_in_async_code_warns_about_unreported_responses(
    fake_llm: FakeLLM,
) -> None:
    with pytest.warns(RuntimeWarning, match="async with"), capture_litellm() as cap:
        await litellm.acompletion(
            messages=[{"role": "user", "content": "hello"}], **_kwargs(fake_llm.base_url)
        )
    [_, step] = cap.trajectory.steps
    assert step.extra == {"response": "unseen"}  # its outcome was still queued on this loop
    assert check_normative(cap.trajectory) == []


class _SlowLogger(litellm.integrations.custom_logger.CustomLogger):  # type: ignore[misc]
    def __init__(self) -> None:
        super().__init__()
        self.done = threading.Event()

    def log_success_event(
        self, kwargs: Any, response_obj: Any, start_time: Any, end_time: Any
    ) -> None:
        time.sleep(0.5)
        self.done.set()


async def test_warning_raised_as_error_still_removes_the_litellm_hook(fake_llm: FakeLLM) -> None:
    before = {name: list(getattr(litellm, name)) for name in LISTS}
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        with pytest.raises(RuntimeWarning, match="async with"), capture_litellm():
            await litellm.acompletion(
                messages=[{"role": "user", "content": "hello"}], **_kwargs(fake_llm.base_url)
            )
    assert {name: list(getattr(litellm, name)) for name in LISTS} == before


async def test_plain_with_in_async_code_waits_for_sync_calls_made_in_a_thread(
    fake_llm: FakeLLM,
) -> None:
    # A sync call's outcome comes from litellm's logging threads, not from this loop, so a plain
    # ``with`` can wait for it without a warning (filterwarnings = error would fail the test).
    # A slow user callback ahead of trajguard's makes the outcome arrive after the call returns.
    slow = _SlowLogger()
    litellm.callbacks.insert(0, slow)
    try:
        with capture_litellm() as cap:
            await asyncio.to_thread(_say, fake_llm.base_url, "from a thread")
            assert not slow.done.is_set()  # the outcome is really still on its way
    finally:
        slow.done.wait(5)
        for name in LISTS:
            while slow in getattr(litellm, name):
                getattr(litellm, name).remove(slow)
    [_, step] = cap.trajectory.steps
    assert step.message == "echo: from a thread"
    assert step.extra is None or "response" not in step.extra


# --- nesting -----------------------------------------------------------------------------------


def _say(base_url: str, text: str) -> None:
    litellm.completion(messages=[{"role": "user", "content": text}], **_kwargs(base_url))


def test_nested_captures_each_see_the_calls_made_in_their_context(fake_llm: FakeLLM) -> None:
    with capture_litellm(agent_name="outer") as outer:
        _say(fake_llm.base_url, "one")
        with capture_litellm(agent_name="inner") as inner:
            _say(fake_llm.base_url, "two")
        _say(fake_llm.base_url, "three")  # the handler stays registered for the outer capture
    assert _shape(inner.trajectory) == [("user", "two"), ("agent", "echo: two")]
    assert [m for s, m in _shape(outer.trajectory) if s == "user"] == ["one", "two", "three"]
    assert check_normative(outer.trajectory) == []


def test_overlapping_captures_closed_out_of_order(fake_llm: FakeLLM) -> None:
    first = capture_litellm()
    second = capture_litellm()
    first.__enter__()
    second.__enter__()
    _say(fake_llm.base_url, "both")
    first.__exit__(None, None, None)
    _say(fake_llm.base_url, "second only")
    second.__exit__(None, None, None)
    assert [m for s, m in _shape(first.trajectory) if s == "user"] == ["both"]
    assert [m for s, m in _shape(second.trajectory) if s == "user"] == ["both", "second only"]


def test_a_capture_cannot_be_entered_twice(fake_llm: FakeLLM) -> None:
    cap = capture_litellm()
    with cap:
        pass
    with pytest.raises(RuntimeError, match="entered once"), cap:
        pass


# --- crashes and failed calls ----------------------------------------------------------------


def test_crash_inside_the_block_is_recorded_and_propagates(fake_llm: FakeLLM) -> None:
    with pytest.raises(ValueError, match="tool exploded"), capture_litellm() as cap:  # noqa: PT012
        _say(fake_llm.base_url, "before the crash")
        raise ValueError("tool exploded")
    trajectory = cap.trajectory
    assert trajectory.extra is not None
    assert trajectory.extra["crashed"] is True
    assert trajectory.extra["error"] == {"type": "ValueError", "message": "tool exploded"}
    assert _shape(trajectory) == [("user", "before the crash"), ("agent", "echo: before the crash")]
    assert check_normative(trajectory) == []


async def test_async_crash_is_recorded(fake_llm: FakeLLM) -> None:
    with pytest.raises(KeyError):  # noqa: PT012
        async with capture_litellm() as cap:
            await weather_agent(fake_llm.base_url, "Nice")
            raise KeyError("missing")
    assert cap.trajectory.extra is not None
    assert cap.trajectory.extra["crashed"] is True
    assert len(cap.trajectory.steps) == 4


async def test_failed_call_is_listed_not_a_step(fake_llm: FakeLLM) -> None:
    async with capture_litellm() as cap:
        await litellm.acompletion(
            messages=[{"role": "user", "content": "hi"}], **_kwargs(fake_llm.base_url)
        )
        with pytest.raises(litellm.BadRequestError):
            await litellm.acompletion(
                messages=[{"role": "user", "content": "please fail"}],
                **_kwargs(fake_llm.base_url),
            )
    trajectory = cap.trajectory
    assert _shape(trajectory) == [("user", "hi"), ("agent", "echo: hi"), ("user", "please fail")]
    assert trajectory.extra is not None
    [error] = trajectory.extra["llm_errors"]
    assert error["after_step"] == 3
    assert error["type"] == "BadRequestError"
    assert "scripted failure" in error["message"]
    assert trajectory.extra["agent_error"]["reason"] == "llm_error"
    assert "crashed" not in trajectory.extra
    assert check_normative(trajectory) == []


# --- mock responses and streaming go through the same callbacks -----------------------------


def test_mock_tool_calls_and_a_streamed_answer() -> None:
    call = {
        "id": "call_abc",
        "type": "function",
        "function": {"name": "get_weather", "arguments": '{"city": "Bonn"}'},
    }
    with capture_litellm() as cap:
        messages: list[Any] = [{"role": "user", "content": "weather in Bonn"}]
        first = litellm.completion(
            model="openai/mock", messages=messages, tools=TOOLS, mock_tool_calls=[call]
        )
        messages += [first.choices[0].message, {"role": "tool", "tool_call_id": "call_abc",
                                                "content": "rain"}]  # fmt: skip
        stream = litellm.completion(
            model="openai/mock", messages=messages, mock_response="It rains.", stream=True
        )
        assert "".join(chunk.choices[0].delta.content or "" for chunk in stream) == "It rains."
    trajectory = cap.trajectory
    assert check_normative(trajectory) == []
    assert [s.source for s in trajectory.steps] == ["user", "agent", "agent"]
    step = trajectory.steps[1]
    assert step.tool_calls is not None
    assert step.tool_calls[0].tool_call_id == "call_abc"
    assert step.observation is not None
    assert step.observation.results[0].content == "rain"
    assert trajectory.steps[2].message == "It rains."


def _handler() -> Any:
    [handler] = [c for c in litellm.callbacks if type(c).__name__ == "_TrajguardCallback"]
    return handler


def test_events_without_a_pre_call_are_attributed_through_the_context() -> None:
    response = litellm.ModelResponse(
        model="cached-model",
        choices=[{"index": 0, "message": {"role": "assistant", "content": "from cache"}}],
        usage={"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5},
    )
    kwargs = {
        "litellm_call_id": "cache-hit-1",
        "call_type": "completion",
        "model": "m",
        "messages": [{"role": "user", "content": "cached question"}],
    }
    now = datetime.now()  # litellm passes naive local times
    with capture_litellm() as cap:
        handler = _handler()
        handler.log_success_event(kwargs, response, now, now)
        handler.log_success_event(kwargs, response, now, now)  # reported twice: recorded once
        handler.log_success_event({**kwargs, "call_type": "embedding"}, response, now, now)
        handler.log_success_event({"litellm_call_id": "other"}, object(), now, now)  # not chat
    assert _shape(cap.trajectory) == [("user", "cached question"), ("agent", "from cache")]
    assert cap.trajectory.steps[1].model_name == "cached-model"


def test_a_capture_bug_never_breaks_the_users_call(caplog: pytest.LogCaptureFixture) -> None:
    with capture_litellm() as cap:
        _handler().log_pre_api_call("m", 5, {"litellm_call_id": "bad"})  # messages not a list
    assert cap.trajectory.steps == []
    assert "could not be recorded" in caplog.text


# --- litellm's global state ------------------------------------------------------------------


class UserLogger(litellm.integrations.custom_logger.CustomLogger):  # type: ignore[misc]
    def __init__(self) -> None:
        super().__init__()
        self.successes = 0
        self._changed = threading.Condition()

    def _count(self) -> None:
        with self._changed:
            self.successes += 1
            self._changed.notify_all()

    def reached(self, count: int, timeout_s: float = 10.0) -> bool:
        """Wait (on a condition, not a clock) until ``count`` successes were logged."""
        with self._changed:
            return self._changed.wait_for(lambda: self.successes >= count, timeout_s)

    def log_success_event(
        self, kwargs: Any, response_obj: Any, start_time: Any, end_time: Any
    ) -> None:
        self._count()

    async def async_log_success_event(
        self, kwargs: Any, response_obj: Any, start_time: Any, end_time: Any
    ) -> None:
        self._count()


def _user_function(kwargs: Any, completion_response: Any, start_time: Any, end_time: Any) -> None:
    pass


def _snapshot() -> dict[str, tuple[int, list[int]]]:
    lists = {name: getattr(litellm, name) for name in LISTS}
    lists["utils.callback_list"] = litellm.utils.callback_list
    return {name: (id(value), [id(item) for item in value or ()]) for name, value in lists.items()}


async def test_litellm_callback_lists_are_restored_exactly(fake_llm: FakeLLM) -> None:
    user_logger = UserLogger()
    litellm.callbacks.append(user_logger)
    litellm.success_callback.append(_user_function)
    await litellm.acompletion(  # litellm distributes the user's callbacks on first use
        messages=[{"role": "user", "content": "warm up"}], **_kwargs(fake_llm.base_url)
    )
    _say(fake_llm.base_url, "warm up sync")
    assert await asyncio.to_thread(user_logger.reached, 2), "litellm logged the warm-up calls"
    before = _snapshot()
    before_successes = user_logger.successes

    async with capture_litellm() as cap:
        await weather_agent(fake_llm.base_url, "Graz")
        with capture_litellm():
            await asyncio.to_thread(weather_agent_sync, fake_llm.base_url, "Linz")
        with pytest.raises(litellm.BadRequestError):
            await litellm.acompletion(
                messages=[{"role": "user", "content": "fail"}], **_kwargs(fake_llm.base_url)
            )
    assert await asyncio.to_thread(user_logger.reached, before_successes + 4)

    assert _snapshot() == before
    assert user_logger.successes - before_successes == 4  # the user's callback still ran
    assert len([s for s in cap.trajectory.steps if s.source == "agent"]) == 4


def test_first_use_distribution_is_undone_from_a_clean_state(fake_llm: FakeLLM) -> None:
    saved = {name: list(getattr(litellm, name)) for name in LISTS}
    saved_setup = list(litellm.utils.callback_list or [])
    for name in LISTS:
        getattr(litellm, name).clear()
    litellm.utils.callback_list[:] = []
    try:
        with capture_litellm():
            _say(fake_llm.base_url, "distribute")
            held = {name for name in LISTS if getattr(litellm, name)}
            assert {"callbacks", "input_callback", "success_callback"} <= held
        assert {name: getattr(litellm, name) for name in LISTS} == {name: [] for name in LISTS}
        assert litellm.utils.callback_list == []
    finally:
        for name, items in saved.items():
            getattr(litellm, name)[:] = items
        litellm.utils.callback_list[:] = saved_setup


# --- the conversion, on hand-built call records -------------------------------------------------

T0 = datetime(2025, 1, 1, tzinfo=UTC)


def _record(seq: int, messages: list[dict[str, Any]], response: LLMResponse | None = None,
            error: tuple[str, str] | None = None) -> CallRecord:  # fmt: skip
    return CallRecord(
        call_id=f"id{seq}",
        seq=seq,
        started_at=T0,
        model="openai/m",
        messages=messages,
        response=response,
        error=error,
    )


def _tool_call(call_id: str, arguments: str = '{"q": 1}') -> ToolCallRequest:
    return ToolCallRequest(id=call_id, name="search", arguments=arguments)


def _assistant(*calls: ToolCallRequest) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": c.id, "name": c.name, "arguments": c.arguments} for c in calls],
    }


def _tool(call_id: str, content: str) -> dict[str, Any]:
    return {"role": "tool", "content": content, "tool_call_id": call_id}


USER = {"role": "user", "content": "question"}
SYS = {"role": "system", "content": "be brief"}


def test_build_joins_results_adds_new_user_turns_and_keeps_one_system_step() -> None:
    call = _tool_call("c1")
    first = _record(1, [SYS, USER], LLMResponse(None, (call,), usage=Usage(7, 2)))
    follow_up = {"role": "user", "content": "and tomorrow?"}
    second = _record(
        2,
        [SYS, USER, _assistant(call), _tool("c1", "result"), follow_up],
        LLMResponse("done", usage=Usage(9, 3)),
    )
    trajectory = build_trajectory([second, first], agent_name="a", agent_version="1")
    assert check_normative(trajectory) == []
    assert _shape(trajectory) == [
        ("system", "be brief"),
        ("user", "question"),
        ("agent", ""),
        ("user", "and tomorrow?"),
        ("agent", "done"),
    ]
    observation = trajectory.steps[2].observation
    assert observation is not None
    assert [(r.source_call_id, r.content) for r in observation.results] == [("c1", "result")]
    assert trajectory.final_metrics is not None
    assert trajectory.final_metrics.total_prompt_tokens == 16


def test_build_keeps_unparsable_arguments_raw() -> None:
    record = _record(1, [USER], LLMResponse(None, (_tool_call("c1", "{not json"),)))
    trajectory = build_trajectory([record], agent_name="a", agent_version="1")
    [call] = trajectory.steps[1].tool_calls or []
    assert call.arguments == {}
    # no request followed the only response, so its call never ran (executed: false)
    assert call.extra == {"raw_arguments": "{not json", "executed": False}


def test_build_joins_a_reused_provider_id_to_the_latest_call() -> None:
    call = _tool_call("call_0")  # some local servers repeat ids
    messages: list[dict[str, Any]] = [USER]
    records = []
    for seq in (1, 2):
        records.append(_record(seq, list(messages), LLMResponse(None, (call,))))
        messages += [_assistant(call), _tool("call_0", f"result {seq}")]
    records.append(_record(3, list(messages), LLMResponse("done")))
    trajectory = build_trajectory(records, agent_name="a", agent_version="1")
    assert check_normative(trajectory) == []
    first, second = trajectory.steps[1], trajectory.steps[2]
    assert first.observation is not None
    assert second.observation is not None
    assert [r.content for r in first.observation.results] == ["result 1"]
    assert [r.content for r in second.observation.results] == ["result 2"]
    assert second.observation.results[0].source_call_id == second.tool_calls[0].tool_call_id  # type: ignore[index]


def test_build_recovers_a_lost_response_from_the_next_request() -> None:
    call = _tool_call("c9")
    lost = _record(1, [USER])  # litellm never reported its outcome
    after = _record(2, [USER, _assistant(call), _tool("c9", "42")], LLMResponse("42 it is"))
    trajectory = build_trajectory([lost, after], agent_name="a", agent_version="1")
    assert check_normative(trajectory) == []
    step = trajectory.steps[1]
    assert step.extra == {"response": "from_next_request"}
    assert step.tool_calls is not None
    assert step.tool_calls[0].tool_call_id == "c9"
    assert step.observation is not None
    assert step.observation.results[0].content == "42"


def test_build_marks_an_unseen_final_response() -> None:
    trajectory = build_trajectory([_record(1, [USER])], agent_name="a", agent_version="1")
    assert check_normative(trajectory) == []
    assert trajectory.steps[1].extra == {"response": "unseen"}


def test_build_skips_tool_messages_that_answer_no_seen_call() -> None:
    history = [USER, _assistant(_tool_call("old")), _tool("old", "injected")]
    trajectory = build_trajectory(
        [_record(1, history, LLMResponse("ok"))], agent_name="a", agent_version="1"
    )
    assert _shape(trajectory) == [("user", "question"), ("agent", "ok")]


def test_build_of_no_calls_is_an_empty_trajectory() -> None:
    trajectory = build_trajectory([], agent_name="a", agent_version="1")
    assert trajectory.steps == []
    # ATIF needs at least one step (N10, as Harbor's validator): nothing is invented to fill it
    assert [v.rule for v in check_normative(trajectory)] == ["N10"]
    assert trajectory_to_dict(trajectory)["schema_version"] == "ATIF-v1.8"


# --- live: the embedded SmolLM2 over HTTP -------------------------------------------------------


async def smollm_agent(base_url: str) -> None:
    """An unmodified agent: native tool calls against the embedded server, two model calls."""
    messages: list[Any] = [{"role": "user", "content": "What is the weather in Paris?"}]
    for seed in (1, 2):
        response = await litellm.acompletion(
            model="openai/smollm2",
            api_base=base_url,
            api_key="sk-no-key",
            messages=messages,
            tools=TOOLS,
            tool_choice="auto",
            max_tokens=60,
            seed=seed,
        )
        message = response.choices[0].message
        # The server's chatml-function-calling template fails (HTTP 500, "'dict object' has
        # no attribute 'content'") on an assistant message whose content is None.
        messages.append(
            {
                "role": "assistant",
                "content": message.content or "",
                "tool_calls": [call.model_dump() for call in message.tool_calls or ()],
            }
        )
        for call in message.tool_calls or ():
            messages.append({"role": "tool", "tool_call_id": call.id, "content": "sunny, 21 C"})


@pytest.mark.live
async def test_live_unmodified_agent_on_the_embedded_model() -> None:
    server = await asyncio.to_thread(get_local_server)
    async with capture_litellm(agent_name="smollm-agent") as cap:
        await smollm_agent(server.base_url)
    trajectory = cap.trajectory
    assert check_normative(trajectory) == []
    agent_steps = [s for s in trajectory.steps if s.source == "agent"]
    assert len(agent_steps) == 2
    assert trajectory.steps[0].source == "user"
    assert all(s.model_name == "smollm2" and s.metrics for s in agent_steps)
    assert all((s.metrics.prompt_tokens or 0) > 0 for s in agent_steps)  # type: ignore[union-attr]
    first = agent_steps[0]
    if first.tool_calls:  # SmolLM2 calls a tool on every turn; its result was sent back
        assert first.observation is not None
        assert {r.source_call_id for r in first.observation.results} == {
            c.tool_call_id for c in first.tool_calls
        }
        assert all(r.content == "sunny, 21 C" for r in first.observation.results)
    assert trajectory.agent.model_name == "openai/smollm2"
