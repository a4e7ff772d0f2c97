"""Callable and command agents reaching their model through the batch's wire endpoint, on a
scripted model: what the context hands over, params and prompts per variant, what a returned
value means, declared framework errors, and what a crash or a timeout keeps."""

from __future__ import annotations

import asyncio
import json
import sys
import uuid
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from trajguard_testkit.scripted import PING, Scripted

from trajguard import store
from trajguard.capture import LLMResponse, Message, ToolCallRequest, Usage
from trajguard.runner import BatchOptions, BatchResult, run_batch
from trajguard.suite import Suite, load_suite

CALL = ToolCallRequest("call_a1", "calculator", '{"expression": "17 * 23"}')
FINAL = ToolCallRequest("call_f1", "final_answer", '{"answer": "391"}')


def tool_then_answer(messages: Sequence[Message], _: object = None) -> LLMResponse:
    if any(m["role"] == "tool" for m in messages):
        return LLMResponse(content="17 * 23 = 391", usage=Usage(50, 6))
    return LLMResponse(content=None, tool_calls=(CALL,), usage=Usage(40, 4))


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.syspath_prepend(str(tmp_path))
    names: list[str] = []
    yield tmp_path
    for name in names:
        sys.modules.pop(name, None)


def module(root: Path, source: str) -> str:
    name = f"wire_agents_{uuid.uuid4().hex[:10]}"
    (root / f"{name}.py").write_text(source)
    return name


def suite(root: Path, scenarios: str, *, defaults: str = "runs: 2") -> Suite:
    path = root / f"suite_{uuid.uuid4().hex[:6]}.yaml"
    path.write_text(f"name: wire\ndefaults:\n  {defaults}\nscenarios:\n{scenarios}")
    return load_suite(path)


async def batch(
    suite_: Suite, root: Path, model: Scripted, **options: Any
) -> tuple[BatchResult, list[dict[str, Any]]]:
    runset = root / f"rs_{uuid.uuid4().hex[:6]}"
    result = await run_batch(suite_, runset, BatchOptions(**options), make_model=lambda _: model)
    runs = store.read_runs(runset).sort_values("run_id", ignore_index=True)
    return result, runs.to_dict("records")


AGENTS = """
import json
import threading
import openai
import litellm

HOLD = threading.Event()  # never set while the batch runs: an agent waiting on it hangs

OPENAI_TOOLS = [{"type": "function", "function": {"name": "calculator",
    "parameters": {"type": "object", "properties": {"expression": {"type": "string"}}}}}]


def _loop(ctx, client):
    messages = [{"role": "system", "content": ctx.system_prompt or ""},
                {"role": "user", "content": ctx.input}]
    while True:
        reply = client.chat.completions.create(model=ctx.model_name, messages=messages,
                                               tools=OPENAI_TOOLS).choices[0].message
        if not reply.tool_calls:
            return reply.content
        messages.append(reply.model_dump(exclude_none=True))
        for call in reply.tool_calls:
            messages.append({"role": "tool", "tool_call_id": call.id, "content": "391"})


def with_openai(ctx):
    client = openai.OpenAI(base_url=ctx.base_url, api_key=ctx.api_key, max_retries=0)
    with client:
        _loop(ctx, client)
    return None


def describe(ctx):
    client = openai.OpenAI(base_url=ctx.base_url, api_key=ctx.api_key, max_retries=0)
    with client:
        _loop(ctx, client)
    facts = {"params": dict(ctx.params), "prompt": ctx.system_prompt, "model": ctx.model_name,
             "litellm": ctx.litellm_model, "key": ctx.api_key, "max_tokens": ctx.max_tokens,
             "temperature": ctx.temperature, "base": ctx.base_url.split("/runs/")[0]}
    return json.dumps(facts, sort_keys=True)


def final_by_tool(ctx):
    client = openai.OpenAI(base_url=ctx.base_url, api_key=ctx.api_key, max_retries=0)
    with client:
        client.chat.completions.create(model="m", messages=[{"role": "user", "content": ctx.input}],
                                       tools=OPENAI_TOOLS)


def with_litellm(ctx):
    litellm.completion(model=ctx.litellm_model, api_base=ctx.base_url, api_key=ctx.api_key,
                       messages=[{"role": "user", "content": ctx.input}], max_retries=0)


class MaxTurns(Exception):
    pass


def raises_declared(ctx):
    client = openai.OpenAI(base_url=ctx.base_url, api_key=ctx.api_key, max_retries=0)
    with client:
        client.chat.completions.create(model="m", messages=[{"role": "user", "content": ctx.input}])
    raise MaxTurns("no answer after 1 turn")


def raises_undeclared(ctx):
    client = openai.OpenAI(base_url=ctx.base_url, api_key=ctx.api_key, max_retries=0)
    with client:
        client.chat.completions.create(model="m", messages=[{"role": "user", "content": ctx.input}])
    raise KeyError("tool table")


def declares_max_steps(ctx):
    client = openai.OpenAI(base_url=ctx.base_url, api_key=ctx.api_key, max_retries=0)
    with client:
        client.chat.completions.create(model="m", messages=[{"role": "user", "content": ctx.input}])
    ctx.agent_error("max_steps", "stopped after 1 step")
    return "a guess"


def calls_then_hangs(ctx):
    client = openai.OpenAI(base_url=ctx.base_url, api_key=ctx.api_key, max_retries=0)
    with client:
        client.chat.completions.create(model="m", messages=[{"role": "user", "content": ctx.input}])
    HOLD.wait()


def sends_an_image(ctx):
    client = openai.OpenAI(base_url=ctx.base_url, api_key=ctx.api_key, max_retries=0)
    parts = [{"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}]
    with client:
        client.chat.completions.create(model="m", messages=[{"role": "user", "content": parts}])
"""


def callable_agent(function: str, extra: str = "", agent_extra: str = "") -> str:
    return (
        f"  - id: c\n    agent:\n      kind: callable\n      function: {function}\n{agent_extra}"
        f"    input: What is 17 * 23?\n{extra}"
    )


async def test_a_framework_client_is_captured_at_the_wire(project: Path) -> None:
    name = module(project, AGENTS)
    model = Scripted(tool_then_answer)
    result, rows = await batch(
        suite(project, callable_agent(f"{name}:with_openai")), project, model
    )
    assert result.counts == {"ok": 2}
    for row in rows:
        assert (row["llm_calls"], list(row["tool_sequence"])) == (2, ["calculator"])
        assert (row["prompt_tokens"], row["completion_tokens"]) == (90, 10)
        assert row["final_output"] == "17 * 23 = 391"
        trajectory = json.loads(row["trajectory"])
        assert trajectory["extra"]["capture"] == "wire"
        agent = next(s for s in trajectory["steps"] if s["source"] == "agent")
        assert (
            agent["observation"]["results"][0]["source_call_id"]
            == agent["tool_calls"][0]["tool_call_id"]
        )
    # a request that sets none gets the run's temperature, max_tokens and a seed of its own
    options = [o for _, o in model.calls]
    assert {(o["temperature"], o["max_tokens"]) for o in options} == {(0.7, 256)}
    assert len({o["seed"] for o in options}) == 4, "each call of each run has its own seed"


async def test_the_context_carries_params_and_prompt_per_variant(project: Path) -> None:
    name = module(project, AGENTS)
    agent = "      system_prompt: Use the calculator.\n      params: {style: terse, retries: 2}\n"
    variants = (
        "    variants:\n      chatty: {system_prompt: Talk a lot., params: {style: chatty}}\n"
    )
    suite_ = suite(project, callable_agent(f"{name}:describe", variants, agent), defaults="runs: 1")
    result, rows = await batch(
        suite_, project, Scripted(tool_then_answer), variants=["base", "chatty"]
    )
    assert result.counts == {"ok": 2}
    facts = {row["variant"]: json.loads(row["final_output"]) for row in rows}
    assert facts["base"]["params"] == {"style": "terse", "retries": 2}
    assert facts["chatty"]["params"] == {"style": "chatty", "retries": 2}, "variant keys merge"
    assert (facts["base"]["prompt"], facts["chatty"]["prompt"]) == (
        "Use the calculator.",
        "Talk a lot.",
    )
    assert facts["base"]["model"] == "local/smollm2"
    assert facts["base"]["litellm"] == "openai/local/smollm2"
    assert (facts["base"]["max_tokens"], facts["base"]["temperature"]) == (256, 0.7)
    assert facts["base"]["base"].startswith("http://127.0.0.1:")
    hashes = {row["variant"]: row["config_hash"] for row in rows}
    assert hashes["base"] != hashes["chatty"], "prompt and params are in the config hash"
    # the prompt reached the model as the agent's system message
    trajectory = json.loads(next(r for r in rows if r["variant"] == "chatty")["trajectory"])
    assert trajectory["steps"][0] == {
        **trajectory["steps"][0],
        "source": "system",
        "message": "Talk a lot.",
    }


async def test_litellm_through_the_wire_is_counted_once(project: Path) -> None:
    name = module(project, AGENTS)
    model = Scripted(lambda *_: LLMResponse(content="391", usage=Usage(8, 1)))
    result, rows = await batch(
        suite(project, callable_agent(f"{name}:with_litellm"), defaults="runs: 1"), project, model
    )
    assert result.counts == {"ok": 1}
    (row,) = rows
    assert row["llm_calls"] == 1, "seen by zero-code capture and at the wire: one call"
    assert json.loads(row["trajectory"])["extra"]["capture"] == "wire"


async def test_a_final_answer_tool_call_is_the_final_output(project: Path) -> None:
    name = module(project, AGENTS)

    def answers_by_tool(messages: Sequence[Message], _: object = None) -> LLMResponse:
        return LLMResponse(content=None, tool_calls=(FINAL,), usage=Usage(5, 2))

    criteria = "    pass:\n      - final_output_contains: '391'\n"
    _result, rows = await batch(
        suite(project, callable_agent(f"{name}:final_by_tool", criteria), defaults="runs: 1"),
        project,
        Scripted(answers_by_tool),
    )
    (row,) = rows
    assert (row["status"], row["final_output"], row["passed"]) == ("ok", "391", True)


async def test_a_declared_framework_error_is_an_agent_error_with_its_reason(project: Path) -> None:
    name = module(project, AGENTS)
    declared = f"      agent_errors:\n        '{name}:MaxTurns': max_steps\n"
    model = Scripted(lambda *_: LLMResponse(content="thinking", usage=Usage(5, 1)))
    _result, rows = await batch(
        suite(
            project,
            callable_agent(f"{name}:raises_declared", agent_extra=declared),
            defaults="runs: 1",
        ),
        project,
        model,
    )
    (row,) = rows
    assert (row["status"], row["error_type"], row["crashed"]) == ("agent_error", "max_steps", True)
    assert row["error_message"] == "MaxTurns: no answer after 1 turn"
    assert row["llm_calls"] == 1, "what was captured before the stop is kept"


async def test_an_undeclared_exception_is_a_crash_that_keeps_its_calls(project: Path) -> None:
    name = module(project, AGENTS)
    model = Scripted(lambda *_: LLMResponse(content="thinking", usage=Usage(5, 1)))
    _, rows = await batch(
        suite(project, callable_agent(f"{name}:raises_undeclared"), defaults="runs: 1"),
        project,
        model,
    )
    (row,) = rows
    assert (row["status"], row["error_type"], row["crashed"]) == ("crash", "KeyError", True)
    line = AGENTS.splitlines().index('    raise KeyError("tool table")') + 1
    assert row["error_message"] == f"'tool table'\n  at {name}.py:{line}"
    assert (row["llm_calls"], row["prompt_tokens"]) == (1, 5)
    assert json.loads(row["trajectory"])["extra"]["crashed"] is True


async def test_the_agent_error_hook_ends_the_run_with_its_reason(project: Path) -> None:
    name = module(project, AGENTS)
    model = Scripted(lambda *_: LLMResponse(content="thinking", usage=Usage(5, 1)))
    _, rows = await batch(
        suite(project, callable_agent(f"{name}:declares_max_steps"), defaults="runs: 1"),
        project,
        model,
    )
    (row,) = rows
    assert (row["status"], row["error_type"], row["crashed"]) == ("agent_error", "max_steps", True)
    assert row["error_message"] == "stopped after 1 step"
    assert row["final_output"] == "a guess", "a returned string is the final answer"


async def test_a_timed_out_run_keeps_the_calls_made_before_it(project: Path) -> None:
    name = module(project, AGENTS)
    model = Scripted(lambda *_: LLMResponse(content="thinking", usage=Usage(5, 1)))
    result, rows = await batch(
        suite(
            project,
            callable_agent(f"{name}:calls_then_hangs"),
            defaults="runs: 1\n  timeout_s: 1.5",
        ),
        project,
        model,
    )
    try:
        # the agent's thread never returns; the batch returned all the same
        assert result.counts == {"timeout": 1}
        (row,) = rows
        assert (row["llm_calls"], row["prompt_tokens"]) == (1, 5)
        assert row["error_message"] == "run exceeded its 1.5 s timeout"
        assert row["crashed"] is True
    finally:
        sys.modules[name].HOLD.set()


async def test_a_timeout_is_flagged_crashed_with_steps_or_without(project: Path) -> None:
    name = module(project, "import asyncio\n\nasync def waits(ctx):\n    await asyncio.sleep(60)\n")
    result, rows = await batch(
        suite(project, callable_agent(f"{name}:waits"), defaults="runs: 1\n  timeout_s: 0.5"),
        project,
        Scripted(lambda *_: LLMResponse(content="never")),
    )
    assert result.counts == {"timeout": 1}
    (row,) = rows
    assert pd.isna(row["trajectory"]), "no step was made"
    assert row["crashed"] is True, "one rule: as a timeout that made calls"
    assert row["passed"] is False


async def test_an_unsupported_request_is_refused_naming_the_field_and_recorded(
    project: Path,
) -> None:
    name = module(project, AGENTS)
    model = Scripted(lambda *_: LLMResponse(content="never"))
    result, rows = await batch(
        suite(project, callable_agent(f"{name}:sends_an_image"), defaults="runs: 1"), project, model
    )
    (row,) = rows
    assert (row["status"], row["error_type"]) == ("crash", "BadRequestError")
    assert "messages[0].content[0].type" in row["error_message"]
    llm_errors = json.loads(row["trajectory"])["extra"]["llm_errors"]
    assert llm_errors[0]["type"] == "RequestShapeError"
    assert "the embedded model reads text only" in llm_errors[0]["message"]
    assert model.calls == []
    assert result.errors == {
        "c/base": (
            result.errors["c/base"][0].__class__(
                error_type="BadRequestError",
                message=row["error_message"].splitlines()[0][:160],
                runs=1,
                example_run=row["run_id"],
                whole=row["error_message"],
            ),
        )
    }


COMMAND = r"""
import json, os, sys, urllib.request

env = os.environ
def ask(messages):
    body = json.dumps({"model": env["TRAJGUARD_MODEL"], "messages": messages}).encode()
    request = urllib.request.Request(env["TRAJGUARD_API_BASE"] + "/chat/completions", body,
                                     {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.load(response)["choices"][0]["message"]

messages = [{"role": "system", "content": env["TRAJGUARD_SYSTEM_PROMPT"]},
            {"role": "user", "content": sys.argv[1] + " " + sys.argv[2]}]
reply = ask(messages)
if sys.argv[3] == "give-up":
    with open(env["TRAJGUARD_AGENT_ERROR"], "w") as out:
        json.dump({"reason": "max_steps", "message": "gave up"}, out)
"""


async def test_a_command_that_writes_no_atif_is_captured_at_the_wire(project: Path) -> None:
    (project / "agent.py").write_text(COMMAND)
    argv = json.dumps([sys.executable, "agent.py", "{params.style}", "{input}", "{params.mode}"])
    scenarios = (
        f"  - id: cmd\n    agent:\n      kind: command\n      argv: {argv}\n"
        "      system_prompt: Be exact.\n      params: {style: terse, mode: answer}\n"
        "    input: What is 17 * 23?\n"
        "    variants:\n      quits: {params: {mode: give-up}}\n"
    )
    model = Scripted(lambda *_: LLMResponse(content="391", usage=Usage(11, 2)))
    result, rows = await batch(
        suite(project, scenarios, defaults="runs: 1"), project, model, variants=["base", "quits"]
    )
    assert result.counts == {"ok": 1, "agent_error": 1}
    by_variant = {row["variant"]: row for row in rows}
    base = by_variant["base"]
    assert (base["llm_calls"], base["prompt_tokens"], base["final_output"]) == (1, 11, "391")
    trajectory = json.loads(base["trajectory"])
    assert trajectory["extra"]["capture"] == "wire"
    assert [(s["source"], s["message"]) for s in trajectory["steps"][:2]] == [
        ("system", "Be exact."),
        ("user", "terse What is 17 * 23?"),
    ], "the prompt and {params.NAME} reached the process"
    quits = by_variant["quits"]
    assert (quits["status"], quits["error_type"], quits["error_message"]) == (
        "agent_error",
        "max_steps",
        "gave up",
    )


class NeverAnswers(Scripted):
    """A model whose every call waits for an answer that never comes; notes its cancellation."""

    def __init__(self) -> None:
        super().__init__(lambda *_: LLMResponse(content="never"))
        self.cancelled = 0

    async def complete(self, messages: Sequence[Message], **options: Any) -> LLMResponse:
        if list(messages) == PING:
            return LLMResponse(content="pong")
        self.calls.append((list(messages), options))
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            self.cancelled += 1
            raise
        raise AssertionError("unreachable: the event is never set")


async def test_a_command_waiting_on_the_wire_is_cut_off_at_its_timeout(project: Path) -> None:
    (project / "agent.py").write_text(COMMAND)
    argv = json.dumps([sys.executable, "agent.py", "{params.style}", "{input}", "answer"])
    scenarios = (
        f"  - id: cmd\n    agent:\n      kind: command\n      argv: {argv}\n"
        "      system_prompt: Be exact.\n      params: {style: terse}\n"
        "    input: What is 17 * 23?\n"
    )
    model = NeverAnswers()
    result, rows = await batch(
        suite(project, scenarios, defaults="runs: 1\n  timeout_s: 2"), project, model
    )
    assert result.counts == {"timeout": 1}
    (row,) = rows
    assert row["error_message"] == "run exceeded its 2 s timeout"
    assert len(model.calls) == 1, "the command's call reached the model"
    assert model.cancelled == 1, "the call in flight was cancelled with the run"
    trajectory = json.loads(row["trajectory"])
    assert trajectory["extra"]["capture"] == "wire"
    assert [e["type"] for e in trajectory["extra"]["llm_errors"]] == ["Cancelled"]
