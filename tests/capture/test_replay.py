"""Cassettes: record, save, load, replay strictly; drift, exhaustion, model name, redaction."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from trajguard.capture import (
    REDACTED,
    Cassette,
    ChatModel,
    LLMResponse,
    RecordingModel,
    Redactor,
    ReplayModel,
    ToolCallRequest,
    Usage,
    cassette_path,
    describe_drift,
    fingerprint,
    make_request,
)
from trajguard.errors import CassetteError, ModelRequestError, RequestDrift, ScriptExhausted

SECRET_KEY = "sk-proj-abcdefghijklmnop1234567890"
SECRET_BEARER = "Bearer eyJhbGciOiJIUzI1NiJ9.payload.sig"
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "calculator",
            "description": "Evaluate an arithmetic expression.",
            "parameters": {
                "type": "object",
                "properties": {"expression": {"type": "string"}},
                "required": ["expression"],
            },
        },
    }
]


class ScriptedModel:
    """A fake ChatModel answering from a script, remembering what it was asked."""

    def __init__(self, responses: Sequence[LLMResponse | Exception], name: str = "fake/scripted"):
        self._responses = list(responses)
        self._name = name
        self.requests: list[dict[str, Any]] = []

    @property
    def model_name(self) -> str:
        return self._name

    async def complete(
        self,
        messages: Sequence[Mapping[str, Any]],
        *,
        tools: Sequence[Mapping[str, Any]] | None = None,
        response_format: Mapping[str, Any] | None = None,
        temperature: float | None = None,
        max_tokens: int | None = None,
        seed: int | None = None,
    ) -> LLMResponse:
        self.requests.append({"messages": list(messages), "tools": tools, "seed": seed})
        await asyncio.sleep(0)
        item = self._responses.pop(0)
        if isinstance(item, Exception):
            raise item
        return item


def _responses() -> list[LLMResponse]:
    return [
        LLMResponse(
            content=None,
            tool_calls=(ToolCallRequest("call_x7Yq", "calculator", '{"expression": "17*23"}'),),
            finish_reason="tool_calls",
            usage=Usage(prompt_tokens=120, completion_tokens=14, cached_tokens=3),
            model="smollm2-served",
            latency_s=0.31,
        ),
        LLMResponse(
            content="17 * 23 = 391",
            finish_reason="stop",
            usage=Usage(prompt_tokens=150, completion_tokens=9),
            model="smollm2-served",
            latency_s=0.12,
        ),
    ]


async def _agent(model: ChatModel, *, system: str = "You are a calculator.", seed: int = 1):
    """A tiny two-call agent: ask, run the tool call, ask again."""
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": system},
        {"role": "user", "content": "What is 17 * 23?"},
    ]
    out = []
    first = await model.complete(messages, tools=TOOLS, temperature=0.2, max_tokens=64, seed=seed)
    out.append(first)
    messages.append(first.to_assistant_message())
    for call in first.tool_calls:
        messages.append({"role": "tool", "tool_call_id": call.id, "content": "391"})
    second = await model.complete(
        messages, tools=TOOLS, temperature=0.2, max_tokens=64, seed=seed + 1
    )
    out.append(second)
    return out


async def _record(path: Path, responses=None, *, redact=(), **agent_kwargs) -> list[LLMResponse]:
    inner = ScriptedModel(responses or _responses(), name="local/smollm2")
    recorder = RecordingModel(inner, Cassette(path, redactor=Redactor(redact)))
    live = await _agent(recorder, **agent_kwargs)
    recorder.save()
    return live


def _replayed(live: list[LLMResponse]) -> list[LLMResponse]:
    """What a replay of ``live`` returns: the same responses, no latency (no model ran)."""
    return [replace(r, latency_s=0.0) for r in live]


def _replay(path: Path, *, redact=()) -> ReplayModel:
    return ReplayModel(Cassette.load(path, redactor=Redactor(redact)))


# --- round trip ---------------------------------------------------------------------------


async def test_record_save_load_replay_gives_identical_responses(tmp_path):
    path = tmp_path / "c.json"
    live = await _record(path)
    replay = _replay(path)
    replayed = await _agent(replay)
    # a replay takes no model time; everything else is what the live run got
    assert [r.latency_s for r in replayed] == [0.0, 0.0]
    assert replayed == _replayed(live)
    assert replay.calls == 2
    assert replay.unused == 0


async def test_an_unparsed_completions_raw_text_is_recorded_and_replayed(tmp_path):
    path = tmp_path / "c.json"
    unparsed = LLMResponse(
        content="",
        finish_reason="stop",
        usage=Usage(prompt_tokens=120, completion_tokens=14),
        model="smollm2-served",
        raw_completion='<tool_call>{"name": "calculator"',
    )
    live = await _record(path, [unparsed, _responses()[1]])
    stored = json.loads(path.read_text(encoding="utf-8"))["interactions"]
    assert stored[0]["response"]["raw_completion"] == '<tool_call>{"name": "calculator"'
    assert "raw_completion" not in stored[1]["response"], "kept only where there is one"
    replayed = await _agent(_replay(path))
    assert replayed == _replayed(live)
    assert replayed[0].raw_completion == '<tool_call>{"name": "calculator"'


async def test_file_is_sorted_key_json_with_two_space_indent(tmp_path):
    path = tmp_path / "c.json"
    await _record(path)
    text = path.read_text(encoding="utf-8")
    data = json.loads(text)
    assert text == json.dumps(data, sort_keys=True, indent=2, ensure_ascii=False) + "\n"
    assert data["format"] == "trajguard-cassette"
    assert data["version"] == 1
    assert data["model_name"] == "local/smollm2"
    first = data["interactions"][0]
    assert set(first) == {"fingerprint", "request", "response"}
    assert set(first["request"]) == {"messages", "params", "tools"}
    assert first["request"]["params"] == {
        "max_tokens": 64,
        "response_format": None,
        "seed": 1,
        "temperature": 0.2,
    }
    assert set(first["response"]) == {
        "content",
        "finish_reason",
        "model",
        "tool_calls",
        "usage",
    }


async def test_atomic_write_leaves_no_temp_file(tmp_path):
    path = tmp_path / "deep" / "dir" / "c.json"
    await _record(path)
    await _record(path)  # overwrite
    assert sorted(p.name for p in path.parent.iterdir()) == ["c.json"]


def test_failed_write_leaves_the_old_file_and_no_temp(tmp_path, monkeypatch):
    path = tmp_path / "c.json"
    Cassette(path, model_name="m").save()
    before = path.read_text()

    def boom(*args):
        raise OSError("disk full")

    monkeypatch.setattr("trajguard._files.os.replace", boom)
    with pytest.raises(OSError, match="disk full"):
        Cassette(path, model_name="other").save()
    assert path.read_text() == before
    assert [p.name for p in tmp_path.iterdir()] == ["c.json"]


# --- exhaustion --------------------------------------------------------------------------


async def test_one_call_more_than_recorded_raises_script_exhausted(tmp_path):
    path = tmp_path / "c.json"
    await _record(path)
    replay = _replay(path)
    await _agent(replay)
    with pytest.raises(ScriptExhausted) as caught:
        await replay.complete([{"role": "user", "content": "and 2+2?"}])
    message = str(caught.value)
    assert str(path) in message
    assert "call 3 of 2 recorded" in message
    assert "--llm-record-mode=all" in message
    assert replay.errors == [caught.value]


# --- drift -------------------------------------------------------------------------------


async def test_prompt_edit_is_drift_naming_the_message(tmp_path):
    path = tmp_path / "c.json"
    await _record(path)
    with pytest.raises(RequestDrift) as caught:
        await _agent(_replay(path), system="You are a careful calculator.")
    error = caught.value
    assert error.file == str(path)
    assert error.path == "$.interactions[0].request.messages[0].content"
    text = str(error)
    assert "call 1 of 2" in text
    assert "messages[0] (system) content differs" in text
    assert "recorded: 'You are a calculator.'" in text
    assert "now:      'You are a careful calculator.'" in text
    assert "if the change is intended" in text
    assert "--llm-record-mode=all" in text


async def test_drift_in_a_later_message_names_its_index_and_role(tmp_path):
    path = tmp_path / "c.json"
    await _record(path)
    replay = _replay(path)
    messages = [
        {"role": "system", "content": "You are a calculator."},
        {"role": "user", "content": "What is 17 * 23?"},
    ]
    await replay.complete(messages, tools=TOOLS, temperature=0.2, max_tokens=64)
    messages += [
        {"role": "assistant", "content": "", "tool_calls": []},
        {"role": "tool", "tool_call_id": "call_1", "content": "392"},
    ]
    with pytest.raises(RequestDrift) as caught:
        await replay.complete(messages, tools=TOOLS, temperature=0.2, max_tokens=64)
    assert "call 2 of 2" in str(caught.value)
    assert "messages[2] (assistant) tool_calls differs" in str(caught.value)


async def test_drift_in_tools(tmp_path):
    path = tmp_path / "c.json"
    await _record(path)
    replay = _replay(path)
    messages = [
        {"role": "system", "content": "You are a calculator."},
        {"role": "user", "content": "What is 17 * 23?"},
    ]
    extra = {"type": "function", "function": {"name": "get_weather", "parameters": {}}}
    with pytest.raises(RequestDrift) as caught:
        await replay.complete(messages, tools=[*TOOLS, extra], temperature=0.2, max_tokens=64)
    assert "tools: recorded ['calculator'], now ['calculator', 'get_weather']" in str(caught.value)
    assert caught.value.path == "$.interactions[0].request.tools"


async def test_dropping_the_tools_is_drift(tmp_path):
    path = tmp_path / "c.json"
    await _record(path)
    messages = [
        {"role": "system", "content": "You are a calculator."},
        {"role": "user", "content": "What is 17 * 23?"},
    ]
    with pytest.raises(RequestDrift, match="tools: 1 offered when recorded, 0 now"):
        await _replay(path).complete(messages, tools=None, temperature=0.2, max_tokens=64)


async def test_changed_tool_description_is_drift(tmp_path):
    path = tmp_path / "c.json"
    await _record(path)
    changed = json.loads(json.dumps(TOOLS))
    changed[0]["function"]["description"] = "Evaluate maths."
    messages = [
        {"role": "system", "content": "You are a calculator."},
        {"role": "user", "content": "What is 17 * 23?"},
    ]
    with pytest.raises(RequestDrift, match="definition of 'calculator' differs"):
        await _replay(path).complete(messages, tools=changed, temperature=0.2, max_tokens=64)


@pytest.mark.parametrize(
    ("params", "expected", "name"),
    [
        ({"temperature": 0.7, "max_tokens": 64}, "params: temperature 0.2 -> 0.7", "temperature"),
        ({"temperature": 0.2, "max_tokens": 32}, "params: max_tokens 64 -> 32", "max_tokens"),
        (
            {"temperature": 0.2, "max_tokens": 64, "response_format": {"type": "json_object"}},
            "params: response_format None -> {'type': 'json_object'}",
            "response_format",
        ),
    ],
)
async def test_drift_in_params(tmp_path, params, expected, name):
    path = tmp_path / "c.json"
    await _record(path)
    messages = [
        {"role": "system", "content": "You are a calculator."},
        {"role": "user", "content": "What is 17 * 23?"},
    ]
    with pytest.raises(RequestDrift) as caught:
        await _replay(path).complete(messages, tools=TOOLS, **params)
    assert expected in str(caught.value)
    assert caught.value.path == f"$.interactions[0].request.params.{name}"


async def test_a_different_seed_is_not_drift(tmp_path):
    path = tmp_path / "c.json"
    live = await _record(path, seed=1)
    assert await _agent(_replay(path), seed=987654) == _replayed(live)


def _module_level_tool():
    pass


async def test_different_object_addresses_are_not_drift(tmp_path):
    path = tmp_path / "c.json"
    live = await _record(path, system=f"Tools in scope: {_module_level_tool!r}")
    other = "Tools in scope: <function _module_level_tool at 0x7f00deadbeef>"
    assert await _agent(_replay(path), system=other) == _replayed(live)
    assert "_module_level_tool at 0xADDR>" in path.read_text()


async def test_addresses_of_nested_functions_are_not_drift(tmp_path):
    path = tmp_path / "c.json"

    def nested():
        pass

    live = await _record(path, system=f"Tools in scope: {nested!r}")
    other = f"Tools in scope: <function {nested.__qualname__} at 0x7f00deadbeef>"
    assert await _agent(_replay(path), system=other) == _replayed(live)


async def test_agent_minted_tool_call_ids_are_not_drift(tmp_path):
    """Ids are renumbered call_1, call_2 ... with the join kept; the values do not matter."""

    def request(call_id: str) -> dict[str, Any]:
        return make_request(
            [
                {"role": "assistant", "content": None, "tool_calls": [{"id": call_id}]},
                {"role": "tool", "tool_call_id": call_id, "content": "1"},
            ],
            tools=None,
            response_format=None,
            temperature=None,
            max_tokens=None,
            seed=None,
            redactor=Redactor(),
        )

    assert fingerprint(request("uuid-aaa")) == fingerprint(request("uuid-bbb"))
    assert request("x")["messages"][1]["tool_call_id"] == "call_1"


def test_describe_drift_reports_a_removed_message():
    recorded = {"messages": [{"role": "user", "content": "a"}, {"role": "user", "content": "b"}]}
    actual = {"messages": [{"role": "user", "content": "a"}]}
    assert describe_drift(recorded, actual) == (
        "messages[1] (user) is no longer sent",
        ".messages[1]",
    )


def test_describe_drift_shows_a_short_window_around_the_change():
    long = "x" * 500
    recorded = {"messages": [{"role": "system", "content": long + "A" + long}]}
    actual = {"messages": [{"role": "system", "content": long + "B" + long}]}
    text, _ = describe_drift(recorded, actual)
    assert len(text) < 300
    assert "recorded: '…" + "x" * 30 + "A" + "x" * 39 + "…'" in text
    assert "now:      '…" + "x" * 30 + "B" + "x" * 39 + "…'" in text


def test_describe_drift_mentions_other_differing_parts():
    recorded = {"messages": [{"role": "user", "content": "a"}], "tools": None, "params": {"t": 1}}
    actual = {"messages": [{"role": "user", "content": "b"}], "tools": None, "params": {"t": 2}}
    text, where = describe_drift(recorded, actual)
    assert where == ".messages[0].content"
    assert text.endswith("also differs: params.t")


# --- model name --------------------------------------------------------------------------


async def test_replay_carries_the_recorded_model_name_forward(tmp_path):
    path = tmp_path / "c.json"
    live = await _record(path)
    replay = _replay(path)
    assert replay.model_name == "local/smollm2"
    responses = await _agent(replay)
    assert [r.model for r in responses] == [r.model for r in live] == ["smollm2-served"] * 2
    assert isinstance(replay, ChatModel)


def test_recording_model_reports_the_inner_model_name(tmp_path):
    recorder = RecordingModel(ScriptedModel([], name="ollama_chat/qwen"), Cassette(tmp_path / "c"))
    assert recorder.model_name == "ollama_chat/qwen"
    assert recorder.cassette.model_name == "ollama_chat/qwen"
    assert isinstance(recorder, ChatModel)


def test_recording_model_reports_the_model_name_redacted(tmp_path):
    inner = ScriptedModel([], name="openai/acme-internal-7731")
    recorder = RecordingModel(inner, Cassette(tmp_path / "c", redactor=Redactor([r"acme-\S+"])))
    assert recorder.model_name == recorder.cassette.model_name == f"openai/{REDACTED}"


# --- the recording run sees what the replay returns -----------------------------------------


async def test_the_recording_run_is_handed_the_responses_as_replayed(tmp_path):
    """A recorded run and its replay give the same trajectory, redaction included."""
    path = tmp_path / "c.json"
    leaky = [
        LLMResponse(
            content="checking acme-internal-7731",
            tool_calls=(ToolCallRequest("c1", "calculator", '{"host": "acme-internal-7731"}'),),
            finish_reason="tool_calls",
            model="acme-internal-7731-served",
            latency_s=0.5,
        ),
        LLMResponse(content="host acme-internal-7731", finish_reason="stop", latency_s=0.25),
    ]
    live = await _record(path, leaky, redact=[r"acme-internal-\d+"])
    assert [r.content for r in live] == [f"checking {REDACTED}", f"host {REDACTED}"]
    assert live[0].tool_calls[0].arguments == f'{{"host": "{REDACTED}"}}'
    assert live[0].model == f"{REDACTED}-served"
    assert [r.latency_s for r in live] == [0.5, 0.25]  # the live timing, carried by no trajectory
    replayed = await _agent(_replay(path, redact=[r"acme-internal-\d+"]))
    assert replayed == _replayed(live)


async def test_a_model_request_error_is_raised_redacted_while_recording(tmp_path):
    path = tmp_path / "c.json"
    error = ModelRequestError("rejected by acme-internal-7731", hint="ask acme-internal-7731")
    recorder = RecordingModel(
        ScriptedModel([error]), Cassette(path, redactor=Redactor([r"acme-internal-\d+"]))
    )
    with pytest.raises(ModelRequestError) as live:
        await recorder.complete([{"role": "user", "content": "hi"}])
    assert "acme-internal" not in str(live.value)
    recorder.save()
    with pytest.raises(ModelRequestError) as replayed:
        await _replay(path, redact=[r"acme-internal-\d+"]).complete(
            [{"role": "user", "content": "hi"}]
        )
    assert str(replayed.value) == str(live.value)


# --- request params beyond the four arguments -------------------------------------------------


class _ModelWithExtraParams(ScriptedModel):
    """Like ``LiteLLMModel``: parameters sent with every call, besides the arguments."""

    def __init__(self, responses, extra_params):
        super().__init__(responses, name="local/smollm2")
        self.extra_params = extra_params


async def test_the_inner_models_extra_params_are_recorded_and_checked_on_replay(tmp_path):
    path = tmp_path / "c.json"
    extra = {"top_p": 0.9, "stop": ["END"], "api_key": SECRET_KEY, "timeout": 30}
    recorder = RecordingModel(_ModelWithExtraParams(_responses(), extra), Cassette(path))
    live = await _agent(recorder)
    recorder.save()
    data = json.loads(path.read_text())
    assert data["interactions"][0]["request"]["params"] == {
        "max_tokens": 64,
        "response_format": None,
        "seed": 1,
        "stop": ["END"],
        "temperature": 0.2,
        "top_p": 0.9,
    }
    assert SECRET_KEY not in path.read_text()

    # the same params (key and timeout aside) replay; another top_p is drift naming it
    same = {"top_p": 0.9, "stop": ["END"], "api_key": "other", "timeout": 5}
    assert await _agent(ReplayModel(Cassette.load(path), params=same)) == _replayed(live)
    for params, expected in [
        ({"top_p": 0.5, "stop": ["END"]}, "params: top_p 0.9 -> 0.5"),
        ({"top_p": 0.9}, "params: stop ['END'] -> (not sent)"),
        ({"top_p": 0.9, "stop": ["END"], "parallel_tool_calls": False}, "parallel_tool_calls"),
    ]:
        with pytest.raises(RequestDrift) as caught:
            await _agent(ReplayModel(Cassette.load(path), params=params))
        assert expected in str(caught.value)
        assert caught.value.path is not None
        assert caught.value.path.startswith("$.interactions[0].request.params.")


async def test_explicit_params_override_the_inner_models_extra_params(tmp_path):
    path = tmp_path / "c.json"
    inner = _ModelWithExtraParams(_responses(), {"top_p": 0.9})
    recorder = RecordingModel(inner, Cassette(path), params={"top_p": 0.3})
    await _agent(recorder)
    recorder.save()
    assert json.loads(path.read_text())["interactions"][0]["request"]["params"]["top_p"] == 0.3


# --- errors while recording --------------------------------------------------------------


async def test_recorded_model_request_error_is_raised_again(tmp_path):
    path = tmp_path / "c.json"
    error = ModelRequestError("context window exceeded", context_overflow=True, hint="shorten")
    inner = ScriptedModel([error], name="local/smollm2")
    recorder = RecordingModel(inner, Cassette(path))
    with pytest.raises(ModelRequestError) as live:
        await recorder.complete([{"role": "user", "content": "hi"}])
    recorder.save()
    with pytest.raises(ModelRequestError) as replayed:
        await _replay(path).complete([{"role": "user", "content": "hi"}])
    assert str(replayed.value) == str(live.value)
    assert replayed.value.context_overflow is True


async def test_unrecordable_failure_makes_the_recording_incomplete(tmp_path):
    path = tmp_path / "c.json"
    recorder = RecordingModel(ScriptedModel([ConnectionError("refused")]), Cassette(path))
    with pytest.raises(ConnectionError):
        await recorder.complete([{"role": "user", "content": "hi"}])
    with pytest.raises(CassetteError, match="call 1 raised ConnectionError"):
        recorder.save()
    assert not path.exists()


# --- concurrency -------------------------------------------------------------------------


async def test_concurrent_calls_replay_in_start_order(tmp_path):
    path = tmp_path / "c.json"
    answers = [LLMResponse(content=f"answer {i}", model="m") for i in range(5)]
    recorder = RecordingModel(ScriptedModel(answers), Cassette(path))
    questions = [[{"role": "user", "content": f"question {i}"}] for i in range(5)]
    live = await asyncio.gather(*(recorder.complete(q) for q in questions))
    recorder.save()
    replayed = await asyncio.gather(*(_replay(path).complete(q) for q in questions[:1]))
    assert replayed == live[:1]
    replay = _replay(path)
    assert await asyncio.gather(*(replay.complete(q) for q in questions)) == live


# --- redaction ---------------------------------------------------------------------------


async def test_secrets_are_redacted_in_requests_and_responses(tmp_path):
    path = tmp_path / "c.json"
    system = (
        f"Use key {SECRET_KEY}. Header: Authorization: {SECRET_BEARER}. "
        "Account ACME-4242-0001 is the customer's."
    )
    leaky = [
        LLMResponse(
            content=None,
            tool_calls=(
                ToolCallRequest("c1", "http_get", json.dumps({"api_key": "hunter2-plain"})),
            ),
            model="m",
        ),
        LLMResponse(
            content=f"Sent {SECRET_BEARER} with {SECRET_KEY} for ACME-4242-0001.",
            model="m",
        ),
    ]
    live = await _record(path, leaky, redact=[r"ACME-\d{4}-\d{4}"], system=system)
    text = path.read_text(encoding="utf-8")
    for secret in (SECRET_KEY, "eyJhbGciOiJIUzI1NiJ9", "hunter2-plain", "ACME-4242-0001"):
        assert secret not in text
    data = json.loads(text)
    stored_system = data["interactions"][0]["request"]["messages"][0]["content"]
    assert stored_system == (
        f"Use key {REDACTED}. Header: Authorization: {REDACTED}. "
        f"Account {REDACTED} is the customer's."
    )
    first, second = (i["response"] for i in data["interactions"])
    assert json.loads(first["tool_calls"][0]["arguments"]) == {"api_key": REDACTED}
    assert second["content"] == f"Sent Bearer {REDACTED} with {REDACTED} for {REDACTED}."
    # the recording run saw the responses as the replay returns them: redacted
    assert live[1].content == second["content"]
    # replay matches: fingerprints are computed on the redacted request
    replayed = await _agent(_replay(path, redact=[r"ACME-\d{4}-\d{4}"]), system=system)
    assert replayed == _replayed(live)


def test_redactor_masks_values_of_secret_named_keys_only():
    redactor = Redactor()
    value = {
        "api_key": "abc",
        "Authorization": "Basic Zm9vOmJhcg==",
        "x-api-key": "k",
        "password": "p",
        "token": "t",
        "max_tokens": 64,
        "prompt_tokens": "12",
        "properties": {"token": {"type": "string"}},
    }
    assert redactor.value(value) == {
        "api_key": REDACTED,
        "Authorization": REDACTED,
        "x-api-key": REDACTED,
        "password": REDACTED,
        "token": REDACTED,
        "max_tokens": 64,
        "prompt_tokens": "12",
        "properties": {"token": {"type": "string"}},
    }


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("key sk-abcdefghijklmnopqrstu end", f"key {REDACTED} end"),
        ("curl -H 'Authorization: Bearer abc.def'", f"curl -H 'Authorization: {REDACTED}'"),
        ("Bearer abc123", f"Bearer {REDACTED}"),
        ("api_key=abc123&q=1", f"api_key={REDACTED}&q=1"),
        ('{"password": "pw"}', f'{{"password": "{REDACTED}"}}'),
        ("What is 17 * 23? Use 4096 tokens.", "What is 17 * 23? Use 4096 tokens."),
        ("sk-short", "sk-short"),
    ],
)
def test_builtin_text_patterns(text, expected):
    redactor = Redactor()
    assert redactor.text(text) == expected
    assert redactor.text(expected) == expected  # idempotent


def test_invalid_user_pattern_is_named():
    with pytest.raises(ValueError, match=r"invalid redaction pattern '\('"):
        Redactor(["("])
    with pytest.raises(ValueError, match="matches the empty string"):
        Redactor(["a*"])


def test_recording_never_stores_headers_or_litellm_kwargs(tmp_path):
    request = make_request(
        [{"role": "user", "content": "hi"}],
        tools=None,
        response_format=None,
        temperature=None,
        max_tokens=None,
        seed=None,
        redactor=Redactor(),
    )
    assert set(request) == {"messages", "params", "tools"}
    assert set(request["params"]) == {"max_tokens", "response_format", "seed", "temperature"}


# --- loading -----------------------------------------------------------------------------


def test_loading_a_missing_or_broken_cassette_names_the_file(tmp_path):
    with pytest.raises(CassetteError, match="not found"):
        Cassette.load(tmp_path / "nope.json")
    broken = tmp_path / "broken.json"
    broken.write_text('{"format": "trajguard-cassette",\n<<<<<<< HEAD\n')
    with pytest.raises(CassetteError) as caught:
        Cassette.load(broken)
    assert caught.value.file == str(broken)
    assert caught.value.line == 2


async def test_hand_edited_request_is_rejected(tmp_path):
    path = tmp_path / "c.json"
    await _record(path)
    data = json.loads(path.read_text())
    data["interactions"][0]["request"]["messages"][1]["content"] = "What is 2 + 2?"
    path.write_text(json.dumps(data))
    with pytest.raises(CassetteError, match="does not match its fingerprint") as caught:
        Cassette.load(path)
    assert caught.value.path == "$.interactions[0].request"


def test_other_format_version_is_rejected(tmp_path):
    path = tmp_path / "c.json"
    path.write_text(json.dumps({"format": "trajguard-cassette", "version": 99}))
    with pytest.raises(CassetteError, match="version 99"):
        Cassette.load(path)


def test_cassette_path_layout():
    path = cassette_path(Path("/r/tests/test_x.py"), "test_a[b_c-1]", cassette_dir="cas")
    assert path == Path("/r/tests/cas/test_x/test_a_b_c-1.json")
    named = cassette_path(Path("/r/tests/test_x.py"), "test_a", name="judge")
    assert named == Path("/r/tests/cassettes/test_x/test_a.judge.json")
