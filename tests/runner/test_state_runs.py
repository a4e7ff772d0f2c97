"""A scenario's shared state in a batch, on a scripted model: every run starts from its own copy
of ``state:`` however many run at once (builtin tools, ``ctx.state``, a command's files), its
final state is kept on the trajectory, and ``final_state`` criteria judge it."""

from __future__ import annotations

import asyncio
import json
import sys
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from trajguard_testkit.scripted import Scripted

from trajguard import store
from trajguard.capture import LLMResponse, Message, ToolCallRequest, Usage
from trajguard.runner import BatchOptions, run_batch
from trajguard.suite import Suite, load_suite

RUNS = 8
SEED = "{counter: 0, seen: [], tags: [seed]}"
AFTER_THREE = {"counter": 3, "seen": [0, 1, 2], "tags": ["seed", "t0", "t1", "t2"]}

TOOLS = '''
import asyncio


async def bump(tag: str, *, state: dict) -> str:
    """Count one more.

    Args:
        tag: a label.
    """
    before = state["counter"]
    await asyncio.sleep(0)  # let the other runs' tools run between the read and the write
    state["seen"].append(before)
    state["counter"] = before + 1
    state["tags"].append(tag)
    return str(state["counter"])


def paid(state):
    return state.get("counter") == 3
'''


def bumps_three_times(messages: Sequence[Message], _: object = None) -> LLMResponse:
    done = sum(1 for m in messages if m["role"] == "tool")
    if done == 3:
        return LLMResponse(content="counted", usage=Usage(20, 2))
    call = ToolCallRequest(f"c{done}", "bump", json.dumps({"tag": f"t{done}"}))
    return LLMResponse(content=None, tool_calls=(call,), usage=Usage(20, 2))


async def slowly(messages: Sequence[Message], options: Any) -> LLMResponse:
    await asyncio.sleep(0)  # a yield: the runs' turns interleave
    return bumps_three_times(messages)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, str]:
    monkeypatch.syspath_prepend(str(tmp_path))
    module = f"state_tools_{uuid.uuid4().hex[:8]}"
    (tmp_path / f"{module}.py").write_text(TOOLS)
    yield tmp_path, module
    sys.modules.pop(module, None)


def suite(root: Path, scenarios: str, *, concurrency: int = 4) -> Suite:
    path = root / f"suite_{uuid.uuid4().hex[:6]}.yaml"
    path.write_text(
        f"name: world\ndefaults:\n  runs: {RUNS}\n  concurrency: {concurrency}\n"
        f"scenarios:\n{scenarios}"
    )
    return load_suite(path)


async def batch(suite_: Suite, root: Path, model: Scripted) -> list[dict[str, Any]]:
    runset = root / f"rs_{uuid.uuid4().hex[:6]}"
    await run_batch(suite_, runset, BatchOptions(), make_model=lambda _: model)
    return store.read_runs(runset).sort_values("run_id", ignore_index=True).to_dict("records")


def final_state(row: dict[str, Any]) -> Any:
    return json.loads(row["trajectory"])["extra"]["final_state"]


async def test_concurrent_builtin_runs_each_see_only_their_own_seed(
    project: tuple[Path, str],
) -> None:
    root, module = project
    scenarios = (
        f"  - id: count\n    agent: {{kind: builtin, mode: native, tools: ['{module}:bump']}}\n"
        f"    input: count to three\n    state: {SEED}\n"
        f"    pass:\n      - final_state: {{expected: {json.dumps(AFTER_THREE)}}}\n"
        f"      - final_state: {{predicate: '{module}:paid'}}\n"
        "      - final_state: {expected: {counter: 2}, match: contains}\n"
    )
    loaded = suite(root, scenarios)
    model = Scripted(slowly)
    rows = await batch(loaded, root, model)
    assert len(rows) == RUNS and all(row["status"] == "ok" for row in rows)
    assert [final_state(row) for row in rows] == [AFTER_THREE] * RUNS
    for row in rows:
        held = [entry["held"] for entry in row["criteria"]]
        assert held == [True, True, False], row["criteria"]
        assert list(row["failed_criteria"]) == [
            "final_state: final state differs: state.counter: 3, expected 2"
        ]
    in_flight = _most_runs_between_their_first_and_last_call(model)
    assert in_flight > 1, "the runs did overlap"
    assert loaded.scenarios[0].state == {"counter": 0, "seen": [], "tags": ["seed"]}


def _most_runs_between_their_first_and_last_call(model: Scripted) -> int:
    """How many runs had begun and not finished at once (from the order of the model calls:
    a run's first call has no tool result yet, its last one has three)."""
    open_runs = most = 0
    for messages, _ in model.calls:
        done = sum(1 for m in messages if m["role"] == "tool")
        open_runs += 1 if done == 0 else -1 if done == 3 else 0
        most = max(most, open_runs)
    return most


CALLABLE = """
def agent(ctx):
    for index in range(3):
        before = ctx.state["counter"]
        ctx.state["seen"].append(before)
        ctx.state["counter"] = before + 1
        ctx.state["tags"].append(f"t{index}")
    reply = ctx_model_reply(ctx)
    return f"counted {reply}"


def ctx_model_reply(ctx):
    import openai

    client = openai.OpenAI(base_url=ctx.base_url, api_key=ctx.api_key, max_retries=0)
    with client:
        return client.chat.completions.create(
            model=ctx.model_name, messages=[{"role": "user", "content": ctx.input}]
        ).choices[0].message.content
"""


async def test_concurrent_callable_runs_each_get_their_own_ctx_state(
    project: tuple[Path, str],
) -> None:
    root, _ = project
    name = f"state_agent_{uuid.uuid4().hex[:8]}"
    (root / f"{name}.py").write_text(CALLABLE)
    scenarios = (
        f"  - id: count\n    agent: {{kind: callable, function: '{name}:agent'}}\n"
        f"    input: count\n    state: {SEED}\n"
    )
    try:
        rows = await batch(suite(root, scenarios), root, Scripted(lambda *_: "three"))
    finally:
        sys.modules.pop(name, None)
    assert all(row["status"] == "ok" for row in rows), rows[0]["error_message"]
    assert [final_state(row) for row in rows] == [AFTER_THREE] * RUNS


COMMAND = r"""
import json, os, sys

with open(os.environ["TRAJGUARD_STATE"]) as f:
    state = json.load(f)
state["counter"] += 1
state["seen"].append(state["counter"] - 1)
state["tags"].append(sys.argv[1])
if sys.argv[2] == "write":
    with open(sys.argv[3], "w") as f:
        json.dump(state, f)
with open(os.environ["TRAJGUARD_OUTPUT"], "w") as f:
    json.dump({"schema_version": "ATIF-v1.6", "session_id": "s",
               "agent": {"name": "cmd", "version": "1"},
               "steps": [{"step_id": 1, "source": "user", "message": "count"},
                         {"step_id": 2, "source": "agent", "message": "counted"}]}, f)
"""


@pytest.mark.parametrize("writes", [True, False])
async def test_a_command_gets_the_seed_and_writes_its_final_state_back(
    project: tuple[Path, str], writes: bool
) -> None:
    root, _ = project
    (root / "agent.py").write_text(COMMAND)
    argv = [sys.executable, "agent.py", "cmd", "write" if writes else "keep", "{final_state}"]
    scenarios = (
        "  - id: count\n    agent: {kind: command, uses_model: false, "
        f"argv: {json.dumps(argv)}}}\n    input: count\n    state: {SEED}\n"
        "    pass:\n      - final_state: {expected: {counter: 1}, match: contains}\n"
    )
    rows = await batch(suite(root, scenarios, concurrency=2), root, Scripted(lambda *_: "x"))
    assert all(row["status"] == "ok" for row in rows), rows[0]["error_message"]
    expected = {"counter": 1, "seen": [0], "tags": ["seed", "cmd"]}
    seed = {"counter": 0, "seen": [], "tags": ["seed"]}
    assert [final_state(row) for row in rows] == [expected if writes else seed] * RUNS
    assert [row["passed"] for row in rows] == [writes] * RUNS


async def test_a_command_that_writes_no_object_crashes_saying_so(
    project: tuple[Path, str],
) -> None:
    root, _ = project
    (root / "bad.py").write_text("import sys\nopen(sys.argv[1], 'w').write('[1, 2]')\n")
    argv = [sys.executable, "bad.py", "{final_state}"]
    scenarios = (
        "  - id: bad\n    agent: {kind: command, uses_model: false, "
        f"argv: {json.dumps(argv)}}}\n"
        "    input: x\n    runs: 1\n"
    )
    (row,) = await batch(suite(root, scenarios), root, Scripted(lambda *_: "x"))
    assert row["status"] == "crash"
    assert "the {final_state} file must hold a JSON object, got [1, 2]" in row["error_message"]


async def test_without_state_or_final_state_criteria_nothing_is_recorded(
    project: tuple[Path, str],
) -> None:
    root, module = project
    scenarios = (
        f"  - id: count\n    agent: {{kind: builtin, mode: native, tools: ['{module}:bump']}}\n"
        "    input: count\n    runs: 1\n"
    )
    (row,) = await batch(suite(root, scenarios), root, Scripted(bumps_three_times))
    # the tool got an empty state of its own and failed on it: an error the model read
    trajectory = json.loads(row["trajectory"])
    assert "final_state" not in (trajectory.get("extra") or {})
    results = [
        r for s in trajectory["steps"] for r in (s.get("observation") or {}).get("results", [])
    ]
    assert "KeyError" in results[0]["content"]
