"""Chaos in a batch, on a scripted model: each agent kind meets its faults (builtin: its tools;
callable: the tools it wraps with ``ctx.faults.wrap``; command: model faults at the wire
endpoint), the trajectory and the fault columns record them, and two variants with the same
faults meet them at the same run index."""

from __future__ import annotations

import json
import math
import sys
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from trajguard_testkit.scripted import Scripted

from trajguard import store
from trajguard.capture import LLMResponse, Message, ToolCallRequest, Usage
from trajguard.faults import FAULTS_KEY
from trajguard.runner import BatchOptions, run_batch
from trajguard.store import RUN_SCHEMA
from trajguard.suite import Suite, load_suite

CALL = ToolCallRequest("call_a1", "calculator", '{"expression": "17 * 23"}')
FAULT_COLUMNS = RUN_SCHEMA.names[RUN_SCHEMA.names.index("faults_injected") :]
TOOLS = "[trajguard.examples.demo_tools:calculator]"


def retries_until_answered(messages: Sequence[Message], _: object = None) -> LLMResponse:
    """Calls the calculator until a tool result is not an error, then answers."""
    results = [str(m.get("content")) for m in messages if m["role"] == "tool"]
    if results and "Error" not in results[-1]:
        return LLMResponse(content="17 * 23 = 391", usage=Usage(50, 6))
    return LLMResponse(content=None, tool_calls=(CALL,), usage=Usage(40, 4))


def gives_up(messages: Sequence[Message], _: object = None) -> LLMResponse:
    """Calls the calculator once, then answers whatever it got."""
    if any(m["role"] == "tool" for m in messages):
        return LLMResponse(content="It is 391.", usage=Usage(50, 6))
    return LLMResponse(content=None, tool_calls=(CALL,), usage=Usage(40, 4))


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


def suite(root: Path, scenarios: str, *, defaults: str = "runs: 2") -> Suite:
    path = root / f"suite_{uuid.uuid4().hex[:6]}.yaml"
    path.write_text(f"name: chaos\ndefaults:\n  {defaults}\nscenarios:\n{scenarios}")
    return load_suite(path)


async def batch(suite_: Suite, root: Path, model: Scripted, **options: Any) -> list[dict[str, Any]]:
    runset = root / f"rs_{uuid.uuid4().hex[:6]}"
    await run_batch(suite_, runset, BatchOptions(**options), make_model=lambda _: model)
    runs = store.read_runs(runset).sort_values("run_id", ignore_index=True)
    return runs.to_dict("records")


def null(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def builtin(faults: str, variants: str = "") -> str:
    return (
        "  - id: calc\n    agent:\n      kind: builtin\n      mode: native\n"
        f"      tools: {TOOLS}\n    input: What is 17 * 23?\n    faults: {faults}\n{variants}"
    )


async def test_a_builtin_agent_meets_its_tool_faults_and_the_columns_judge_it(
    project: Path,
) -> None:
    first_call_fails = "[{kind: rate_limited, tools: [calculator], at_call: 1}]"
    variants = "    variants:\n      calm: {faults: []}\n"
    scenario = builtin(first_call_fails, variants)
    for reply, retried in ((retries_until_answered, True), (gives_up, False)):
        rows = await batch(
            suite(project, scenario, defaults="runs: 1"),
            project,
            Scripted(reply),
            variants=["base", "calm"],
        )
        by_variant = {row["variant"]: row for row in rows}
        chaos, calm = by_variant["base"], by_variant["calm"]
        assert chaos["faults_injected"] == 1
        assert dict(chaos["fault_kinds"]) == {"rate_limited": 1}
        assert chaos["retried_after_fault"] is retried
        assert chaos["recovered_or_escalated"] is retried  # "It is 391." escalates nothing
        assert chaos["no_fabricated_result"] is None  # the scenario does not check it
        steps = json.loads(chaos["trajectory"])["steps"]
        assert [r["kind"] for s in steps for r in (s.get("extra") or {}).get(FAULTS_KEY, [])] == [
            "rate_limited"
        ]
        assert all(null(calm[c]) for c in FAULT_COLUMNS), calm
        assert calm["config_hash"] != chaos["config_hash"]


async def test_variants_with_the_same_faults_meet_them_at_the_same_run_index(
    project: Path,
) -> None:
    half = "[{kind: exception, tools: '*', probability: 0.5}]"
    variants = f"    variants:\n      other_prompt: {{system_prompt: Be brief., faults: {half}}}\n"
    rows = await batch(
        suite(project, builtin(half, variants), defaults="runs: 12"),
        project,
        Scripted(gives_up),
        variants=["base", "other_prompt"],
        seed=5,
    )
    met = {(r["variant"], r["run_index"]): r["faults_injected"] for r in rows}
    assert {met[("base", i)] for i in range(12)} == {0, 1}, "both outcomes occur"
    assert [met[("base", i)] for i in range(12)] == [met[("other_prompt", i)] for i in range(12)]


CALLABLE = """
import openai

TOOLS = [{"type": "function", "function": {"name": "calculator",
    "parameters": {"type": "object", "properties": {"expression": {"type": "string"}}}}}]


def calculator(expression):
    return "391"


def agent(ctx):
    tool = ctx.faults.wrap(calculator)
    client = openai.OpenAI(base_url=ctx.base_url, api_key=ctx.api_key, max_retries=0)
    messages = [{"role": "user", "content": ctx.input}]
    with client:
        for _ in range(4):
            reply = client.chat.completions.create(model=ctx.model_name, messages=messages,
                                                   tools=TOOLS).choices[0].message
            if not reply.tool_calls:
                return reply.content
            messages.append(reply.model_dump(exclude_none=True))
            for call in reply.tool_calls:
                try:
                    result = tool(**__import__("json").loads(call.function.arguments))
                except Exception as exc:
                    result = f"Error: {exc}"
                messages.append({"role": "tool", "tool_call_id": call.id, "content": result})
    return "I could not finish"
"""


async def test_a_callable_agent_meets_the_faults_of_the_tools_it_wraps(project: Path) -> None:
    name = f"chaos_agents_{uuid.uuid4().hex[:8]}"
    (project / f"{name}.py").write_text(CALLABLE)
    scenario = (
        f"  - id: wrapped\n    agent: {{kind: callable, function: '{name}:agent'}}\n"
        "    input: What is 17 * 23?\n"
        "    faults: [{kind: timeout, tools: [calculator], at_call: 1}]\n"
    )
    try:
        rows = await batch(
            suite(project, scenario, defaults="runs: 1"),
            project,
            Scripted(retries_until_answered),
        )
    finally:
        sys.modules.pop(name, None)
    (row,) = rows
    assert row["status"] == "ok", row["error_message"]
    assert (row["faults_injected"], dict(row["fault_kinds"])) == (1, {"timeout": 1})
    assert row["retried_after_fault"] is True and row["recovered_or_escalated"] is True
    steps = [s for s in json.loads(row["trajectory"])["steps"] if s.get("tool_calls")]
    first = steps[0]
    assert first["extra"][FAULTS_KEY][0]["kind"] == "timeout"
    assert first["observation"]["results"][0]["extra"] == {
        "error": "tool_error",
        "fault": "timeout",
    }
    assert FAULTS_KEY not in (steps[1].get("extra") or {})


COMMAND = r"""
import os, sys
import openai

env = os.environ
client = openai.OpenAI(base_url=env["TRAJGUARD_API_BASE"], api_key="sk-any",
                       max_retries=int(sys.argv[1]))
reply = client.chat.completions.create(
    model=env["TRAJGUARD_MODEL"], messages=[{"role": "user", "content": "What is 17 * 23?"}])
print(reply.choices[0].message.content)
"""


@pytest.mark.parametrize(("retries", "status"), [(2, "ok"), (0, "crash")])
async def test_a_command_agent_meets_a_429_with_retry_after_at_the_wire(
    project: Path, retries: int, status: str
) -> None:
    (project / "agent.py").write_text(COMMAND)
    argv = json.dumps([sys.executable, "agent.py", str(retries)])
    scenario = (
        f"  - id: cmd\n    agent: {{kind: command, argv: {argv}}}\n    input: x\n"
        "    faults: [{kind: provider_rate_limited, at_call: 1, seconds: 0}]\n"
    )
    rows = await batch(
        suite(project, scenario, defaults="runs: 1"),
        project,
        Scripted(lambda *_: LLMResponse(content="391", usage=Usage(11, 2))),
    )
    (row,) = rows
    assert row["status"] == status, row["error_message"]
    assert (row["faults_injected"], dict(row["fault_kinds"])) == (1, {"provider_rate_limited": 1})
    trajectory = json.loads(row["trajectory"])
    (error,) = trajectory["extra"]["llm_errors"]
    assert error["fault"] == "provider_rate_limited" and error["type"] == "InjectedFault"
    answered = [s for s in trajectory["steps"] if s["source"] == "agent"]
    assert len(answered) == (1 if retries else 0)
    assert row["retried_after_fault"] is bool(retries)
    assert row["recovered_or_escalated"] is bool(retries)
