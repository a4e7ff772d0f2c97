"""The wire endpoint in front of the embedded SmolLM2 (llama.cpp over HTTP): a standard client
with content parts, ``content: null`` and ``tool_choice: "required"`` is served; a call the
server fails keeps the server's log in the run set; a run cut off by its timeout ends with the
call it had in flight recorded, and the batch does not wait for it."""

from __future__ import annotations

import json
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest

from trajguard import store
from trajguard.runner import SERVER_LOG, BatchOptions, execute
from trajguard.suite import load_suite

pytestmark = pytest.mark.live

AGENTS = """
import openai

TOOLS = [{"type": "function", "function": {"name": "calculator", "description": "Arithmetic.",
    "parameters": {"type": "object", "properties": {"expression": {"type": "string"}},
                   "required": ["expression"]}}}]


def _client(ctx):
    return openai.OpenAI(base_url=ctx.base_url, api_key=ctx.api_key, max_retries=0)


def standard_shapes(ctx):
    with _client(ctx) as client:
        messages = [
            {"role": "system", "content": [{"type": "text", "text": ctx.system_prompt}]},
            {"role": "user", "content": [{"type": "text", "text": ctx.input}]},
        ]
        first = client.chat.completions.create(model=ctx.model_name, messages=messages,
                                               tools=TOOLS, tool_choice="required")
        reply = first.choices[0].message
        messages.append({"role": "assistant", "content": None,
                         "tool_calls": [c.model_dump() for c in reply.tool_calls or ()]})
        for call in reply.tool_calls or ():
            messages.append({"role": "tool", "tool_call_id": call.id, "content": "391"})
        if not reply.tool_calls:
            messages.append({"role": "user", "content": "Go on."})
        client.chat.completions.create(model=ctx.model_name, messages=messages, tools=TOOLS,
                                       max_tokens=16)


def overflows(ctx):
    with _client(ctx) as client:
        client.chat.completions.create(
            model=ctx.model_name, messages=[{"role": "user", "content": "word " * 6000}])


def long_answer(ctx):
    with _client(ctx) as client:
        client.chat.completions.create(
            model=ctx.model_name, max_tokens=3000, temperature=1.0,
            messages=[{"role": "user", "content": "Write a very long story about ships."}])
"""


def _run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, function: str, **options: Any) -> Any:
    monkeypatch.syspath_prepend(str(tmp_path))
    name = f"live_wire_{uuid.uuid4().hex[:8]}"
    (tmp_path / f"{name}.py").write_text(AGENTS)
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        "name: wire-live\ndefaults: {runs: 1, max_tokens: 48}\nscenarios:\n"
        f"  - id: s\n    agent: {{kind: callable, function: '{name}:{function}', "
        "system_prompt: Use the calculator.}\n    input: What is 17 * 23?\n"
    )
    runset = tmp_path / "runs"
    try:
        result = execute(load_suite(suite), runset, BatchOptions(seed=3, **options))
    finally:
        sys.modules.pop(name, None)
    (row,) = store.read_runs(runset).to_dict("records")
    return result, row


def test_standard_client_shapes_reach_the_embedded_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, local_model: Any
) -> None:
    result, row = _run(tmp_path, monkeypatch, "standard_shapes")
    assert row["status"] == "ok", row["error_message"]
    assert row["llm_calls"] == 2
    trajectory = json.loads(row["trajectory"])
    rewrites = [s["extra"]["wire_rewrites"] for s in trajectory["steps"] if s["source"] == "agent"]
    assert any("tool_choice required sent as auto" in " ".join(r) for r in rewrites)
    assert all("joined content parts" in r for r in rewrites)
    assert result.server_log is None, "no call failed: no log kept"


def test_a_call_the_server_fails_keeps_its_log_in_the_run_set(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, local_model: Any
) -> None:
    result, row = _run(tmp_path, monkeypatch, "overflows")
    assert (row["status"], row["error_type"]) == ("crash", "BadRequestError")
    errors = json.loads(row["trajectory"])["extra"]["llm_errors"]
    assert errors[0]["type"] == "ModelRequestError"
    assert "context" in errors[0]["message"].lower()
    assert result.server_log == tmp_path / "runs" / SERVER_LOG
    assert result.server_log.read_text().strip(), "the server's own log, kept"
    assert result.errors["s/base"][0].error_type == "BadRequestError"


def test_a_timeout_cancels_the_call_in_flight_and_keeps_it_recorded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, local_model: Any
) -> None:
    result, row = _run(tmp_path, monkeypatch, "long_answer", timeout_s=2.0)
    assert result.counts == {"timeout": 1}
    errors = json.loads(row["trajectory"])["extra"]["llm_errors"]
    assert [e["type"] for e in errors] == ["Cancelled"]
