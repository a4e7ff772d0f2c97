"""What a cassette stores: redaction of every string (keys too), and which request params count."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from trajguard.capture import (
    REDACTED,
    UNSTORED_PARAMS,
    Cassette,
    LLMResponse,
    Redactor,
    ReplayModel,
    fingerprint,
    make_request,
    stored_params,
)
from trajguard.errors import RequestDrift

SECRET = "acme-internal-7731"
REDACT = Redactor([r"acme-internal-\d+"])


def _request(*, redactor: Redactor = REDACT, **kwargs):
    defaults = {
        "tools": None,
        "response_format": None,
        "temperature": None,
        "max_tokens": None,
        "seed": None,
    }
    messages = kwargs.pop("messages", [{"role": "user", "content": "hi"}])
    return make_request(messages, redactor=redactor, **{**defaults, **kwargs})


# --- redaction of keys and of the model name ------------------------------------------------


def test_redactor_redacts_dict_keys():
    value = {SECRET: {"nested " + SECRET: 1}, "plain": [{SECRET: "x"}]}
    assert REDACT.value(value) == {
        REDACTED: {f"nested {REDACTED}": 1},
        "plain": [{REDACTED: "x"}],
    }


def test_message_and_tool_schema_keys_are_redacted():
    tools = [
        {
            "type": "function",
            "function": {
                "name": "lookup",
                "parameters": {"type": "object", "properties": {SECRET: {"type": "string"}}},
            },
        }
    ]
    request = _request(
        messages=[{"role": "user", "content": "hi", f"x-{SECRET}": "v"}],
        tools=tools,
        extra_params={"extra_body": {SECRET: 1}},
    )
    text = json.dumps(request)
    assert SECRET not in text
    assert request["messages"][0][f"x-{REDACTED}"] == "v"
    assert request["tools"][0]["function"]["parameters"]["properties"] == {
        REDACTED: {"type": "string"}
    }
    assert request["params"]["extra_body"] == {REDACTED: 1}


def test_model_name_is_stored_redacted(tmp_path):
    path = tmp_path / "c.json"
    Cassette(path, model_name=f"openai/{SECRET}", redactor=REDACT).save()
    assert SECRET not in path.read_text()
    assert Cassette.load(path).model_name == f"openai/{REDACTED}"


# --- which request params are stored ---------------------------------------------------------


def test_behavioural_params_are_stored_and_the_rest_is_not():
    params = {
        "top_p": 0.9,
        "stop": ["\n\n"],
        "parallel_tool_calls": False,
        "max_completion_tokens": 50,
        "extra_body": {"top_k": 20},
        # never stored: endpoint, transport, bookkeeping, credentials
        "api_key": "sk-live-key-abcdefghijklmnop",
        "api_base": "http://10.0.0.7:8000",
        "timeout": 30,
        "num_retries": 2,
        "metadata": {"run": "x"},
        "extra_headers": {"X-Api-Key": "k"},
        "aws_secret_access_key": "s",
        "aws_access_key_id": "AKIA",
        "aws_session_token": "t",
        "azure_ad_token": "t",
        "vertex_credentials": "{}",
    }
    assert stored_params(params) == {
        "top_p": 0.9,
        "stop": ["\n\n"],
        "parallel_tool_calls": False,
        "max_completion_tokens": 50,
        "extra_body": {"top_k": 20},
    }
    assert {"api_key", "api_base", "timeout", "metadata"} <= UNSTORED_PARAMS


def test_extra_params_are_part_of_the_request_and_its_fingerprint():
    plain = _request(temperature=0.2)
    assert plain["params"] == {
        "max_tokens": None,
        "response_format": None,
        "seed": None,
        "temperature": 0.2,
    }
    top_p = _request(temperature=0.2, extra_params={"top_p": 0.9})
    assert top_p["params"]["top_p"] == 0.9
    assert fingerprint(top_p) != fingerprint(plain)
    assert fingerprint(top_p) != fingerprint(_request(temperature=0.2, extra_params={"top_p": 1}))
    # params that do not change the answer leave the fingerprint alone
    assert fingerprint(_request(temperature=0.2, extra_params={"timeout": 5})) == fingerprint(plain)


def test_explicit_arguments_win_over_extra_params_as_in_litellm_model():
    request = _request(temperature=0.2, extra_params={"temperature": 0.9, "max_tokens": 10})
    assert request["params"]["temperature"] == 0.2
    assert request["params"]["max_tokens"] == 10  # not given explicitly: the extra one is sent


def test_params_json_cannot_hold_are_stored_as_their_repr():
    class Grammar:
        def __repr__(self) -> str:
            return "Grammar('root')"

    assert _request(extra_params={"grammar": Grammar()})["params"]["grammar"] == "Grammar('root')"


# --- cassettes written before extra params were stored -----------------------------------------


def _old_cassette(path: Path) -> None:
    """A cassette as the first release wrote it: the four params only."""
    request = {
        "messages": [{"content": "hi", "role": "user"}],
        "params": {"max_tokens": None, "response_format": None, "seed": 3, "temperature": 0.7},
        "tools": None,
    }
    data = {
        "format": "trajguard-cassette",
        "version": 1,
        "model_name": "local/smollm2",
        "interactions": [
            {
                "fingerprint": fingerprint(request),
                "request": request,
                "response": {
                    "content": "hello",
                    "finish_reason": "stop",
                    "model": "m",
                    "tool_calls": [],
                    "usage": {"cached_tokens": 0, "completion_tokens": 1, "prompt_tokens": 2},
                },
            }
        ],
    }
    path.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")


async def test_an_old_cassette_still_replays(tmp_path):
    path = tmp_path / "c.json"
    _old_cassette(path)
    replay = ReplayModel(Cassette.load(path), params={"timeout": 5, "api_key": "k"})
    response = await replay.complete([{"role": "user", "content": "hi"}], temperature=0.7, seed=9)
    assert response == LLMResponse(
        content="hello", finish_reason="stop", usage=response.usage, model="m"
    )


async def test_an_old_cassette_with_a_new_param_fails_naming_it(tmp_path):
    path = tmp_path / "c.json"
    _old_cassette(path)
    replay = ReplayModel(Cassette.load(path), params={"top_p": 0.9}, rerecord_hint="re-record")
    with pytest.raises(RequestDrift) as caught:
        await replay.complete([{"role": "user", "content": "hi"}], temperature=0.7)
    assert "params: top_p (not in the recording) -> 0.9" in str(caught.value)
    assert caught.value.path == "$.interactions[0].request.params.top_p"
    assert "re-record" in str(caught.value)
