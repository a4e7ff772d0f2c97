"""Grammar checks ordered by logit sample what the whole-vocabulary check sampled (issue 34):
the same requests and seeds give the same completions on a server with the fast path and on one
with llama-cpp-python's own chain (trajguard_testkit/plain_sampling_server.py)."""

from __future__ import annotations

import json
import sys
import urllib.request
from typing import Any

import pytest
import trajguard_testkit.plain_sampling_server as plain

from trajguard.local_model import LocalModelServer

pytestmark = pytest.mark.live

SCHEMA = {
    "type": "object",
    "properties": {
        "tool": {"type": "string", "enum": ["calculator", "final_answer"]},
        "arguments": {"type": "object"},
        "answer": {"type": "string"},
    },
    "required": ["tool"],
}
QUESTIONS = ["What is 17 * 23?", "Say hello to Maria.", "What is the capital of France?"]


def _complete(server: LocalModelServer, body: dict[str, Any]) -> str:
    request = urllib.request.Request(
        f"{server.base_url}/chat/completions",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=600) as reply:
        message = json.loads(reply.read())["choices"][0]["message"]
    calls = [call["function"] for call in message.get("tool_calls") or []]  # ids are random
    return json.dumps([message.get("content"), calls])


def _requests() -> list[dict[str, Any]]:
    json_mode = [
        {
            "messages": [
                {"role": "system", "content": "Answer with one JSON action."},
                {"role": "user", "content": question},
            ],
            "response_format": {"type": "json_object", "schema": SCHEMA},
            "temperature": temperature,
            "max_tokens": 32,
            "seed": seed,
        }
        for question in QUESTIONS
        for seed, temperature in ((1, 0.7), (2, 1.2))
    ]
    with_tools = [
        {
            "messages": [{"role": "user", "content": "What is 12 times 7? Use the calculator."}],
            "tools": [
                {
                    "type": "function",
                    "function": {
                        "name": "calculator",
                        "parameters": {
                            "type": "object",
                            "properties": {"expression": {"type": "string"}},
                            "required": ["expression"],
                        },
                    },
                }
            ],
            "tool_choice": "auto",
            "temperature": 0.7,
            "max_tokens": 32,
            "seed": seed,
        }
        for seed in (4,)
    ]
    return json_mode + with_tools


def test_the_fast_grammar_path_samples_the_same_completions() -> None:
    requests = _requests()
    with LocalModelServer(seed=7) as fast:
        ours = [_complete(fast, body) for body in requests]
        assert fast.counters()["grammar_fast"] > 0  # the fast path did the sampling
    with LocalModelServer(seed=7, program=(sys.executable, plain.__file__)) as reference:
        theirs = [_complete(reference, body) for body in requests]
        assert reference.counters()["grammar_fast"] == 0
    assert ours == theirs
    assert len(set(ours)) > 3  # the requests sample different things: the check can fail
