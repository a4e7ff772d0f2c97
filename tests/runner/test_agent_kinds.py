"""Every agent kind through ``run_batch`` on a scripted fake model, into a temporary run set:
what each kind's success and each way of failing look like as rows; per-run timeouts, harness
errors, the interleaved plan, and per-run seeds."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import uuid
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from trajguard_testkit.scripted import Scripted

from trajguard import store
from trajguard.agent import derive_seed as call_seed
from trajguard.atif import load_trajectory
from trajguard.capture import ChatModel, LLMResponse, Message
from trajguard.errors import ModelUnavailable, SuiteError
from trajguard.normative import check_normative
from trajguard.outcome import classify
from trajguard.runner import BatchOptions, BatchResult, derive_seed, plan_batch, run_batch
from trajguard.suite import Suite, load_suite

TOOLS = ["trajguard.examples.demo_tools:calculator", "trajguard.examples.demo_tools:get_weather"]


def turn(messages: Sequence[Message]) -> int:
    """How many model replies the conversation already holds."""
    return sum(1 for m in messages if m["role"] == "assistant")


def calculator_then_answer(messages: Sequence[Message], _: dict[str, Any]) -> str:
    if turn(messages) == 0:
        return json.dumps({"tool": "calculator", "arguments": {"expression": "17 * 23"}})
    return json.dumps({"tool": "final_answer", "answer": "17 * 23 = 391"})


def atif(final: str, *, tool: str | None = None) -> dict[str, Any]:
    """A small valid ATIF v1.7 run as a dict."""
    steps: list[dict[str, Any]] = [{"step_id": 1, "source": "user", "message": "question"}]
    if tool is not None:
        steps.append(
            {
                "step_id": 2,
                "source": "agent",
                "message": "",
                "tool_calls": [
                    {"tool_call_id": "c1", "function_name": tool, "arguments": {"q": 1}}
                ],
                "observation": {"results": [{"source_call_id": "c1", "content": "42"}]},
                "metrics": {"prompt_tokens": 11, "completion_tokens": 2},
            }
        )
    steps.append(
        {
            "step_id": len(steps) + 1,
            "source": "agent",
            "message": final,
            "metrics": {"prompt_tokens": 13, "completion_tokens": 3},
        }
    )
    return {
        "schema_version": "ATIF-v1.7",
        "session_id": "s",
        "agent": {"name": "external", "version": "1"},
        "steps": steps,
    }


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Project]:
    monkeypatch.syspath_prepend(str(tmp_path))
    made = Project(tmp_path)
    yield made
    for name in made.modules:
        sys.modules.pop(name, None)


class Project:
    """A temporary directory holding a suite file, agent modules and scripts."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.modules: list[str] = []

    def module(self, source: str) -> str:
        """Write an importable module; returns its (unique) name."""
        name = f"agents_{uuid.uuid4().hex[:10]}"
        (self.root / f"{name}.py").write_text(source)
        self.modules.append(name)
        return name

    def script(self, name: str, source: str) -> str:
        (self.root / name).write_text(source)
        return name

    def suite(self, scenarios: str, *, defaults: str = "runs: 2\n  concurrency: 2") -> Suite:
        path = self.root / f"suite_{uuid.uuid4().hex[:6]}.yaml"
        path.write_text(f"name: kinds\ndefaults:\n  {defaults}\nscenarios:\n{scenarios}")
        return load_suite(path)

    def runset(self) -> Path:
        return self.root / f"rs_{uuid.uuid4().hex[:6]}"


async def batch(
    suite: Suite, runset: Path, model: ChatModel, **options: Any
) -> tuple[BatchResult, pd.DataFrame]:
    result = await run_batch(suite, runset, BatchOptions(**options), make_model=lambda _: model)
    runs = store.read_runs(runset).sort_values("run_id", ignore_index=True)
    return result, runs


def callable_scenario(function: str, *, input_text: str = "hello", extra: str = "") -> str:
    return (
        f'  - id: c\n    agent: {{kind: callable, function: "{function}"}}\n'
        f"    input: {json.dumps(input_text)}\n{extra}"
    )


def command_scenario(
    script: str, *, extra_args: Sequence[str] = (), uses_model: bool = True
) -> str:
    argv = json.dumps([sys.executable, script, "{output}", *extra_args])
    own = "" if uses_model else "uses_model: false, "
    return f"  - id: cmd\n    agent: {{kind: command, {own}argv: {argv}}}\n    input: hello there\n"


def valid_trajectory(row: Mapping[str, Any]) -> None:
    trajectory = load_trajectory(row["trajectory"])
    assert check_normative(trajectory) == []


# --- builtin ----------------------------------------------------------------------------------

BUILTIN = f"""  - id: multiply
    agent:
      kind: builtin
      mode: json
      system_prompt: Use the calculator.
      tools: {json.dumps(TOOLS)}
    input: What is 17 * 23?
    pass:
      - tool_called: calculator
      - final_output_contains: "391"
  - id: weather
    agent: {{kind: builtin, mode: json, tools: {json.dumps(TOOLS)}}}
    input: Weather in Paris?
    pass:
      - tool_called: get_weather
"""


async def test_builtin_agent_in_json_mode(project: Project) -> None:
    model = Scripted(calculator_then_answer)
    result, runs = await batch(project.suite(BUILTIN), project.runset(), model, seed=11)
    assert len(runs) == 4
    assert (result.planned, result.counts, result.passed) == (4, {"ok": 4}, 2)
    assert (runs["status"] == "ok").all()
    assert runs["model"].unique().tolist() == ["local/smollm2"], "the suite's model string"
    multiply = runs[runs["scenario"] == "multiply"]
    for _, row in multiply.iterrows():
        assert row["passed"]
        assert list(row["tool_sequence"]) == ["calculator"]
        assert row["tool_counts"] == {"calculator": 1}
        assert (row["llm_calls"], row["agent_steps"], row["step_count"]) == (2, 2, 4)
        assert (row["prompt_tokens"], row["completion_tokens"], row["total_tokens"]) == (80, 16, 96)
        assert row["final_output"] == "17 * 23 = 391"
        assert list(row["failed_criteria"]) == []
        assert not row["crashed"]
        assert row["atif_schema_version"] == "ATIF-v1.8"
        valid_trajectory(row)
    weather = runs[runs["scenario"] == "weather"]
    assert not weather["passed"].any()
    assert [list(f) for f in weather["failed_criteria"]] == [
        ["tool_called: get_weather called 0 times, expected 1..∞"]
    ] * 2
    # json mode: every tool call is constrained by the action schema, and each call of a run
    # carries a seed derived from the run's seed and the call index
    first = model.calls[0][1]["response_format"]
    assert first["type"] == "json_object"
    actions = {branch["properties"]["tool"]["const"] for branch in first["schema"]["anyOf"]}
    assert actions == {"calculator", "get_weather", "final_answer"}
    sent = sorted(options["seed"] for _, options in model.calls)
    expected = sorted(call_seed(int(seed), i) for seed in runs["seed"] for i in (0, 1))
    assert sent == expected


async def test_builtin_step_cap_is_an_agent_error(project: Project) -> None:
    def always_a_tool(messages: Sequence[Message], _: dict[str, Any]) -> str:
        return json.dumps({"tool": "calculator", "arguments": {"expression": "1 + 1"}})

    suite = project.suite(
        f"""  - id: loop
    agent: {{kind: builtin, mode: json, tools: {json.dumps(TOOLS)}}}
    input: add
    max_steps: 3
    pass:
      - tool_called: calculator
""",
        defaults="runs: 1",
    )
    _, runs = await batch(suite, project.runset(), Scripted(always_a_tool))
    (row,) = runs.to_dict("records")
    assert row["status"] == "agent_error"
    assert list(row["tool_sequence"]) == ["calculator"] * 3
    assert row["passed"] is False, "the criterion holds, but a run cut off has not passed"
    assert list(row["failed_criteria"]) == [
        "no crash: the run ended as agent_error (max_steps: " + row["error_message"][:200] + ")"
    ]
    assert row["crashed"] is True, "crashed says what the crash rate counts: a run cut off"
    extra = json.loads(row["trajectory"])["extra"]["agent_error"]
    assert extra["reason"] == "max_steps"
    assert row["error_type"] == "max_steps", "the row says why the run ended without an answer"
    assert "max_steps" in row["error_message"]


async def test_builtin_timeout_keeps_the_partial_trajectory(project: Project) -> None:
    async def hang(messages: Sequence[Message], _: dict[str, Any]) -> str:
        await asyncio.sleep(60)
        return "never"

    suite = project.suite(BUILTIN, defaults="runs: 1")
    result, runs = await batch(
        suite, project.runset(), Scripted(hang), timeout_s=0.2, scenarios=["multiply"]
    )
    assert result.counts == {"timeout": 1}
    (row,) = runs.to_dict("records")
    assert row["status"] == "timeout"
    assert row["error_type"] == "TimeoutError"
    assert row["error_message"] == "run exceeded its 0.2 s timeout"
    assert row["passed"] is False, "a timed-out run has not passed"
    assert next(iter(row["failed_criteria"])) == (
        "no crash: the run ended as timeout (TimeoutError: run exceeded its 0.2 s timeout)"
    ), "the reason comes first; the criteria the partial run failed follow"
    # the runner kept what the agent had recorded before the cut: system and user steps
    assert row["step_count"] == 2
    assert row["llm_calls"] == 0
    trajectory = json.loads(row["trajectory"])
    assert [s["source"] for s in trajectory["steps"]] == ["system", "user"]
    assert trajectory["steps"][1]["message"] == "What is 17 * 23?"
    valid_trajectory(row)


async def test_model_failure_mid_run_is_a_harness_error(project: Project) -> None:
    def breaks_on_second_call(messages: Sequence[Message], options: dict[str, Any]) -> str:
        if turn(messages) >= 1:
            raise RuntimeError("connection reset by the model server")
        return calculator_then_answer(messages, options)

    suite = project.suite(BUILTIN, defaults="runs: 1")
    result, runs = await batch(
        suite, project.runset(), Scripted(breaks_on_second_call), scenarios=["multiply"]
    )
    assert result.counts == {"harness_error": 1}
    (row,) = runs.to_dict("records")
    assert row["status"] == "harness_error"
    assert row["error_type"] == "RuntimeError"
    assert row["error_message"] == "connection reset by the model server"
    assert pd.isna(row["passed"]), "a harness error is not judged"
    # the partial run rides along: one tool step made before the failure
    assert list(row["tool_sequence"]) == ["calculator"]
    assert row["llm_calls"] == 1
    assert json.loads(row["trajectory"])["extra"]["crashed"] is True
    valid_trajectory(row)


# --- callable ---------------------------------------------------------------------------------

CALLABLE_AGENTS = """
import json
from trajguard.atif import load_trajectory
from trajguard.capture import TrajectoryRecorder
from trajguard.capture import LLMResponse, Usage


def _atif(ctx, answer):
    return {
        "schema_version": "ATIF-v1.7",
        "agent": {"name": "mine", "version": "1"},
        "steps": [
            {"step_id": 1, "source": "user", "message": ctx.input},
            {
                "step_id": 2,
                "source": "agent",
                "message": answer,
                "metrics": {"prompt_tokens": 5, "completion_tokens": 1},
            },
        ],
    }


def _describe(ctx):
    return f"{ctx.scenario}/{ctx.variant} seed={ctx.seed} input={ctx.input} steps={ctx.max_steps}"


def sync_trajectory(ctx):
    return load_trajectory(_atif(ctx, "sync " + _describe(ctx)))


async def async_dict(ctx):
    return _atif(ctx, "async " + _describe(ctx))


def sync_answer_via_wire(ctx):
    from openai import OpenAI

    with OpenAI(base_url=ctx.base_url, api_key=ctx.api_key, max_retries=0) as client:
        client.chat.completions.create(
            model=ctx.model_name, messages=[{"role": "user", "content": ctx.input}]
        )
    return "text " + _describe(ctx)


def sync_recorder(ctx):
    ctx.recorder.user(ctx.input)
    ctx.recorder.agent_step(LLMResponse(content="recorded " + _describe(ctx), usage=Usage(7, 2)))


async def async_recorder_with_model(ctx):
    ctx.recorder.user(ctx.input)
    response = await ctx.model.complete([{"role": "user", "content": ctx.input}], seed=ctx.seed)
    ctx.recorder.agent_step(response)


def raises_after_recording(ctx):
    ctx.recorder.user(ctx.input)
    raise ValueError("the agent tripped over " + ctx.input)


async def raises_at_once(ctx):
    raise LookupError("no such thing")


def does_nothing(ctx):
    return None
"""


@pytest.mark.parametrize(
    ("function", "prefix", "tokens"),
    [
        ("sync_trajectory", "sync", 6),
        ("async_dict", "async", 6),
        ("sync_answer_via_wire", "text", 48),
        ("sync_recorder", "recorded", 9),
    ],
)
async def test_callable_agent_outputs(
    project: Project, function: str, prefix: str, tokens: int
) -> None:
    module = project.module(CALLABLE_AGENTS)
    criteria = "    pass:\n      - final_output_contains: seed=\n"
    suite = project.suite(callable_scenario(f"{module}:{function}", extra=criteria))
    result, runs = await batch(suite, project.runset(), Scripted(calculator_then_answer))
    assert result.counts == {"ok": 2}
    for _, row in runs.iterrows():
        assert row["status"] == "ok"
        assert row["passed"]
        assert row["final_output"] == (f"{prefix} c/base seed={row['seed']} input=hello steps=8"), (
            "the context carries the run's scenario, variant, seed, input and step cap"
        )
        assert row["total_tokens"] == tokens
        assert pd.isna(row["error_type"])
        valid_trajectory(row)


async def test_callable_agent_calls_the_injected_model(project: Project) -> None:
    module = project.module(CALLABLE_AGENTS)
    suite = project.suite(callable_scenario(f"{module}:async_recorder_with_model"))
    model = Scripted(lambda messages, _: f"echo: {messages[-1]['content']}")
    _, runs = await batch(suite, project.runset(), model)
    assert (runs["status"] == "ok").all()
    assert runs["final_output"].tolist() == ["echo: hello"] * 2
    assert runs["total_tokens"].tolist() == [48, 48]
    assert sorted(options["seed"] for _, options in model.calls) == sorted(runs["seed"])


async def test_callable_agent_that_raises_is_a_crash_with_where_it_raised(
    project: Project,
) -> None:
    module = project.module(CALLABLE_AGENTS)
    line = CALLABLE_AGENTS.splitlines().index(
        '    raise ValueError("the agent tripped over " + ctx.input)'
    )
    suite = project.suite(
        callable_scenario(
            f"{module}:raises_after_recording", extra="    pass:\n      - max_steps: 5\n"
        )
    )
    result, runs = await batch(suite, project.runset(), Scripted(calculator_then_answer))
    assert result.counts == {"crash": 2}
    assert result.crashed == 2
    for _, row in runs.iterrows():
        assert row["status"] == "crash", "agent_error is kept for an agent that gave up"
        assert row["crashed"]
        assert row["error_type"] == "ValueError"
        # the agent's own frame, relative to the suite's directory: no absolute path kept
        where = f"{module}.py:{line + 1}"
        assert row["error_message"] == f"the agent tripped over hello\n  at {where}"
        assert str(project.root) not in row["error_message"]
        assert row["passed"] is False, "a crashed run fails, though max_steps holds"
        assert list(row["failed_criteria"]) == [
            "no crash: the run ended as crash (ValueError: the agent tripped over hello\n"
            f"  at {where})"
        ]
        assert row["step_count"] == 1
        extra = json.loads(row["trajectory"])["extra"]
        assert extra["crashed"] is True
        assert extra["error"] == {"type": "ValueError", "message": "the agent tripped over hello"}
        valid_trajectory(row)


async def test_callable_agent_that_raises_before_recording(project: Project) -> None:
    module = project.module(CALLABLE_AGENTS)
    suite = project.suite(callable_scenario(f"{module}:raises_at_once"))
    result, runs = await batch(suite, project.runset(), Scripted(calculator_then_answer))
    assert result.counts == {"crash": 2}
    for _, row in runs.iterrows():
        assert row["status"] == "crash"
        assert row["error_type"] == "LookupError"
        line = CALLABLE_AGENTS.splitlines().index('    raise LookupError("no such thing")')
        assert row["error_message"] == f"no such thing\n  at {module}.py:{line + 1}"
        assert row["crashed"], "the agent raised: a crash even without a trajectory"
        assert row["passed"] is False
        assert pd.isna(row["trajectory"])
    assert result.crashed == 2


async def test_callable_agent_that_does_nothing_is_a_crash(project: Project) -> None:
    module = project.module(CALLABLE_AGENTS)
    suite = project.suite(callable_scenario(f"{module}:does_nothing"))
    result, runs = await batch(suite, project.runset(), Scripted(calculator_then_answer))
    assert result.counts == {"crash": 2}
    for _, row in runs.iterrows():
        assert row["status"] == "crash"
        assert row["error_message"].startswith(
            f"{module}:does_nothing made no model call trajguard could see and fed no recorder"
        )
        assert "ctx.base_url" in row["error_message"], "the message says how to be captured"
        assert row["passed"] is False, "a crash is not a pass"
        assert row["crashed"] is True, "crashed says what the crash rate counts"


# --- command ----------------------------------------------------------------------------------

WRITES_ATIF = f"""
import json, os, sys
trajectory = {json.dumps(atif("PLACEHOLDER", tool="lookup"))}
trajectory["steps"][-1]["message"] = (
    f"{{os.environ['TRAJGUARD_INPUT']}} seed={{os.environ['TRAJGUARD_SEED']}} argv={{sys.argv[2]}}"
)
with open(sys.argv[1], "w") as out:
    json.dump(trajectory, out)
"""

FAILS = """
import sys
sys.stderr.write("x" * 3000 + "\\n")
sys.stderr.write("Traceback: the real cause is at the end\\n")
sys.exit(3)
"""

WRITES_NOT_JSON = """
import sys
open(sys.argv[1], "w").write('{"schema_version": "ATIF-v1.7", "steps": [')
"""

WRITES_NOTHING = """
import sys
print("I forgot the file", file=sys.stderr)
"""

HANGS = """
import os, subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
with open("pids.txt", "w") as out:
    out.write(f"{os.getpid()} {child.pid}")
time.sleep(120)
"""


async def test_command_agent_writes_atif(project: Project) -> None:
    suite = project.suite(
        command_scenario(project.script("agent.py", WRITES_ATIF), extra_args=["{seed}"])
    )
    result, runs = await batch(suite, project.runset(), Scripted(calculator_then_answer))
    assert result.counts == {"ok": 2}
    for _, row in runs.iterrows():
        assert row["final_output"] == f"hello there seed={row['seed']} argv={row['seed']}"
        assert list(row["tool_sequence"]) == ["lookup"]
        assert row["total_tokens"] == 29
        assert row["passed"], "no criteria: a finished run passes"
        valid_trajectory(row)


async def test_command_agent_exiting_non_zero(project: Project) -> None:
    suite = project.suite(command_scenario(project.script("agent.py", FAILS)))
    result, runs = await batch(suite, project.runset(), Scripted(calculator_then_answer))
    assert result.counts == {"crash": 2}
    for _, row in runs.iterrows():
        message = row["error_message"]
        assert message.startswith("command exited with status 3: ")
        assert message.endswith("Traceback: the real cause is at the end")
        assert len(message) < 1100, "only the tail of stderr is kept"
        assert row["passed"] is False, "no criteria, but a failed command has not passed"


async def test_command_agent_writing_invalid_json(project: Project) -> None:
    suite = project.suite(command_scenario(project.script("agent.py", WRITES_NOT_JSON)))
    _, runs = await batch(suite, project.runset(), Scripted(calculator_then_answer))
    for _, row in runs.iterrows():
        assert row["status"] == "crash"
        assert row["error_message"].startswith("command wrote an invalid trajectory: ")
        assert "not valid JSON" in row["error_message"]


async def test_command_agent_writing_no_file(project: Project) -> None:
    suite = project.suite(command_scenario(project.script("agent.py", WRITES_NOTHING)))
    _, runs = await batch(suite, project.runset(), Scripted(calculator_then_answer))
    for _, row in runs.iterrows():
        assert row["status"] == "crash"
        assert row["error_message"] == (
            "command exited 0 but wrote no ATIF file to {output} and made no model call through "
            "{api_base}: I forgot the file"
        )


def _gone(pid: int) -> bool:
    """Whether the process no longer runs (reaped, or a zombie waiting for its reaper)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return True
    return state in ("Z", "X")


async def test_command_agent_timeout_kills_the_process_group(project: Project) -> None:
    suite = project.suite(command_scenario(project.script("agent.py", HANGS)), defaults="runs: 1")
    runset = project.runset()
    pids_file = project.root / "pids.txt"

    result, runs = await batch(suite, runset, Scripted(calculator_then_answer), timeout_s=4)
    assert result.counts == {"timeout": 1}
    (row,) = runs.to_dict("records")
    assert row["status"] == "timeout"
    assert row["error_message"] == "run exceeded its 4 s timeout"
    assert pd.isna(row["trajectory"])
    assert row["passed"] is False
    assert pids_file.exists(), "the script ran before it was cut off"
    agent_pid, grandchild_pid = map(int, pids_file.read_text().split())
    for _ in range(200):  # the kill is sent before run_batch returns; allow the reaper a moment
        if _gone(agent_pid) and _gone(grandchild_pid):
            break
        await asyncio.sleep(0.05)
    assert _gone(agent_pid), "the agent process outlived its timeout"
    assert _gone(grandchild_pid), "a process the agent started outlived the timeout"


# --- the plan and seeds -----------------------------------------------------------------------

PLANNED = """  - id: alpha
    agent: {kind: callable, function: "trajguard.examples.predicates:answered_with_a_number"}
    input: a
    runs: 3
    variants:
      terse: {temperature: 0.1}
  - id: beta
    agent: {kind: callable, function: "trajguard.examples.predicates:answered_with_a_number"}
    input: b
    runs: 1
    variants:
      terse: {temperature: 0.2}
"""


def test_plan_interleaves_scenarios_and_variants(project: Project) -> None:
    suite = project.suite(PLANNED)
    plan = plan_batch(suite, BatchOptions(variants=("base", "terse")), batch_seed=5)
    assert [spec.run_id for spec, _ in plan] == [
        "alpha/base/0",
        "alpha/terse/0",
        "beta/base/0",
        "beta/terse/0",
        "alpha/base/1",
        "alpha/terse/1",
        "alpha/base/2",
        "alpha/terse/2",
    ]
    assert all(spec.seed == derive_seed(5, spec.run_id) for spec, _ in plan)
    assert len({spec.seed for spec, _ in plan}) == len(plan)
    hashes = {(spec.scenario, spec.variant): spec.config_hash for spec, _ in plan}
    assert len(set(hashes.values())) == 4, "each scenario x variant has its own definition"
    assert {arm.temperature for spec, arm in plan if spec.variant == "terse"} == {0.1, 0.2}
    # --runs overrides every scenario's count; the interleaving stays round-robin
    even = plan_batch(suite, BatchOptions(runs=2, scenarios=["beta", "alpha"]), batch_seed=5)
    assert [spec.run_id for spec, _ in even] == [
        "beta/base/0",
        "alpha/base/0",
        "beta/base/1",
        "alpha/base/1",
    ]


async def test_runs_start_in_plan_order(project: Project) -> None:
    module = project.module(CALLABLE_AGENTS)
    suite = project.suite(
        PLANNED.replace(
            "trajguard.examples.predicates:answered_with_a_number", f"{module}:async_dict"
        )
    )
    runset = project.runset()
    options = {"variants": ("base", "terse"), "concurrency": 1, "seed": 3}
    await batch(suite, runset, Scripted(calculator_then_answer), **options)
    started = [
        json.loads(line)["run_id"] for line in (runset / "started.jsonl").read_text().splitlines()
    ]
    plan = plan_batch(suite, BatchOptions(variants=("base", "terse")), batch_seed=3)
    assert started == [spec.run_id for spec, _ in plan]


async def test_seeds_repeat_with_a_batch_seed_and_differ_without(project: Project) -> None:
    module = project.module(CALLABLE_AGENTS)
    suite = project.suite(
        callable_scenario(f"{module}:async_dict"), defaults="runs: 6\n  concurrency: 3"
    )

    async def seeds(**options: Any) -> dict[str, int]:
        runset = project.runset()
        _, runs = await batch(suite, runset, Scripted(calculator_then_answer), **options)
        assert store.read_manifest(runset)["seed_fixed"] is ("seed" in options)
        return dict(zip(runs["run_id"], runs["seed"].astype(int), strict=True))

    first, again = await seeds(seed=1234), await seeds(seed=1234)
    assert first == again
    assert first == {f"c/base/{i}": derive_seed(1234, f"c/base/{i}") for i in range(6)}
    assert len(set(first.values())) == 6, "every run of a batch has its own seed"
    other = await seeds(seed=1235)
    assert not set(other.values()) & set(first.values())
    free_a, free_b = await seeds(), await seeds()
    assert free_a.keys() == free_b.keys() == first.keys()
    assert not set(free_a.values()) & set(free_b.values()), "unseeded batches are independent"
    assert not set(free_a.values()) & set(first.values())


def test_scripted_model_is_a_chat_model() -> None:
    assert isinstance(Scripted(calculator_then_answer), ChatModel)


# --- crashes never pass, and are counted one way (is_crash) ----------------------------------


async def test_a_crash_never_passes_whatever_its_criteria(project: Project) -> None:
    module = project.module(CALLABLE_AGENTS)
    vacuous = "    pass:\n      - tool_not_called: calculator\n"
    suite = project.suite(
        callable_scenario(f"{module}:raises_after_recording", extra=vacuous)
        + command_scenario(project.script("agent.py", FAILS))  # no criteria at all
    )
    result, runs = await batch(suite, project.runset(), Scripted(calculator_then_answer))
    assert result.counts == {"crash": 4}
    assert runs["passed"].tolist() == [False] * 4, "a crashed run never passes"
    assert result.passed == 0
    assert result.crashed == int(classify(runs).crashed.sum()) == 4, (
        "the runner counts as show does"
    )
    for reasons in runs["failed_criteria"]:
        assert next(iter(reasons)).startswith("no crash: the run ended as crash (")


# --- sync callables run in a thread of their own ---------------------------------------------

SYNC_AGENTS = """
import threading, time
from trajguard.capture import LLMResponse


def sleeps(ctx):
    ctx.recorder.user(ctx.input)
    time.sleep(float(ctx.input))
    ctx.recorder.agent_step(LLMResponse(content=threading.current_thread().name))


def stops_iterating(ctx):
    next(iter(()))


def calls_litellm(ctx):
    import litellm

    litellm.completion(
        model="openai/mock",
        messages=[{"role": "user", "content": ctx.input}],
        mock_response=f"mocked {ctx.input} at {ctx.temperature}",
    )
"""


async def test_a_sync_callable_raising_stop_iteration_is_a_crash(project: Project) -> None:
    # A Future refuses StopIteration; handed over as is, the run would hang until its timeout.
    module = project.module(SYNC_AGENTS)
    suite = project.suite(callable_scenario(f"{module}:stops_iterating"), defaults="runs: 1")
    result, runs = await batch(suite, project.runset(), Scripted(calculator_then_answer))
    assert result.counts == {"crash": 1}
    assert "StopIteration" in runs.loc[0, "error_message"]


async def test_sync_callables_run_concurrently_off_the_event_loop(project: Project) -> None:
    module = project.module(SYNC_AGENTS)
    suite = project.suite(
        callable_scenario(f"{module}:sleeps", input_text="1.0"),
        defaults="runs: 4\n  concurrency: 4",
    )
    loop_ticks = 0

    async def ticker() -> None:
        nonlocal loop_ticks
        while True:
            await asyncio.sleep(0.05)
            loop_ticks += 1

    ticking = asyncio.create_task(ticker())
    try:
        result, runs = await batch(suite, project.runset(), Scripted(calculator_then_answer))
    finally:
        ticking.cancel()
    assert result.counts == {"ok": 4}
    spans = [
        (row["started_at"], row["started_at"] + pd.Timedelta(seconds=row["duration_s"]))
        for row in runs.to_dict("records")
    ]
    # all four were running at once: each started before any of them ended
    assert max(start for start, _ in spans) < min(end for _, end in spans), spans
    assert loop_ticks >= 10, "the event loop was blocked while the agents slept"
    assert all(name.startswith("trajguard-agent-c/base") for name in runs["final_output"])


async def test_a_sync_callable_that_hangs_times_out(project: Project) -> None:
    module = project.module(SYNC_AGENTS)
    suite = project.suite(
        callable_scenario(f"{module}:sleeps", input_text="30"), defaults="runs: 1"
    )
    result, runs = await batch(
        suite, project.runset(), Scripted(calculator_then_answer), timeout_s=0.5
    )
    assert result.counts == {"timeout": 1}
    (row,) = runs.to_dict("records")
    assert row["error_message"] == "run exceeded its 0.5 s timeout"
    assert row["duration_s"] < 30, "the run was cut off at its timeout, not at its sleep's end"
    assert row["passed"] is False


async def test_zero_code_capture_sees_a_sync_callable_in_its_thread(project: Project) -> None:
    module = project.module(SYNC_AGENTS)
    suite = project.suite(callable_scenario(f"{module}:calls_litellm"), defaults="runs: 1")
    result, runs = await batch(suite, project.runset(), Scripted(calculator_then_answer))
    assert result.counts == {"ok": 1}
    (row,) = runs.to_dict("records")
    assert row["final_output"] == "mocked hello at 0.7", "ctx.temperature is the suite's"
    assert row["llm_calls"] == 1


# --- a callable returning an invalid trajectory is an agent error, as a command's is ---------

INVALID_RETURNS = """
def bad_atif(ctx):
    return {"schema_version": "ATIF-v1.7", "steps": "nope"}


def a_number(ctx):
    return 5
"""


@pytest.mark.parametrize(
    ("function", "fragment"),
    [
        ("bad_atif", "an invalid trajectory"),
        ("a_number", "a int: return the final answer as a string, an ATIF trajectory"),
    ],
)
async def test_callable_returning_an_invalid_trajectory_is_a_crash(
    project: Project, function: str, fragment: str
) -> None:
    module = project.module(INVALID_RETURNS)
    suite = project.suite(callable_scenario(f"{module}:{function}"), defaults="runs: 1")
    result, runs = await batch(suite, project.runset(), Scripted(calculator_then_answer))
    assert result.counts == {"crash": 1}
    (row,) = runs.to_dict("records")
    assert row["error_message"].startswith(f"{module}:{function} returned {fragment}")
    assert row["passed"] is False


# --- the model check before the first run ------------------------------------------------------


class Unreachable(Scripted):
    """A model whose every call (the preflight ping included) fails as unreachable."""

    def __init__(self) -> None:
        super().__init__(calculator_then_answer, name="openai/unreachable")
        self.attempts = 0

    async def complete(self, messages: Sequence[Message], **options: Any) -> LLMResponse:
        self.attempts += 1
        raise ModelUnavailable("model openai/unreachable unreachable")


ENV_ECHO = """
import json, os, sys
steps = [
    {"step_id": 1, "source": "user", "message": "hi"},
    {"step_id": 2, "source": "agent",
     "message": repr((os.environ.get("TRAJGUARD_MODEL"), os.environ.get("TRAJGUARD_API_BASE")))},
]
doc = {"schema_version": "ATIF-v1.7", "agent": {"name": "x", "version": "1"}, "steps": steps}
json.dump(doc, open(sys.argv[1], "w"))
"""


async def test_a_command_agent_with_its_own_model_is_not_checked_nor_handed_one(
    project: Project,
) -> None:
    script = project.script("agent.py", ENV_ECHO)
    suite = project.suite(command_scenario(script, extra_args=["{seed}"], uses_model=False))
    model = Unreachable()
    result, runs = await batch(suite, project.runset(), model)
    assert result.counts == {"ok": 2}
    assert model.attempts == 0, "uses_model: false means no model check"
    assert set(runs["final_output"]) == {"(None, None)"}


def test_model_placeholders_contradict_uses_model_false(project: Project) -> None:
    script = project.script("agent.py", ENV_ECHO)
    with pytest.raises(SuiteError, match="uses_model is false"):
        project.suite(command_scenario(script, extra_args=["{model}"], uses_model=False))


@pytest.mark.parametrize("kind", ["builtin", "callable", "command with {model}", "command"])
async def test_an_unreachable_model_stops_the_batch_and_writes_nothing(
    project: Project, kind: str
) -> None:
    module = project.module(CALLABLE_AGENTS)
    scenarios = {
        "builtin": BUILTIN,
        "callable": callable_scenario(f"{module}:async_dict"),
        "command with {model}": command_scenario(
            project.script("agent.py", WRITES_ATIF), extra_args=["{model}"]
        ),
        # handed the model through TRAJGUARD_MODEL / TRAJGUARD_API_BASE only: checked too
        "command": command_scenario(project.script("agent.py", WRITES_ATIF)),
    }
    runset = project.runset()
    with pytest.raises(ModelUnavailable):
        await batch(project.suite(scenarios[kind]), runset, Unreachable())
    assert not runset.exists(), "a failed start leaves no half-made run set"


# --- resume reuses the options the batch was started with --------------------------------------


async def test_resume_reuses_the_options_the_batch_was_started_with(project: Project) -> None:
    module = project.module(CALLABLE_AGENTS)
    suite = project.suite(callable_scenario(f"{module}:async_dict"), defaults="runs: 3")
    runset = project.runset()
    model = Scripted(calculator_then_answer)
    await batch(suite, runset, model, timeout_s=5, concurrency=1, seed=9)
    started = store.read_runs(runset)
    # as if killed after the first run
    store.write_runs_table(runset / "runs.parquet", store.read_table(runset).slice(0, 1))
    manifest = store.read_manifest(runset)
    assert (manifest["timeout_override"], manifest["concurrency_override"]) == (5, 1)
    resumed = await run_batch(
        suite, runset, BatchOptions(), resume=True, make_model=lambda _: model
    )
    assert (resumed.planned, resumed.skipped, resumed.counts) == (3, 1, {"ok": 2})
    after = store.read_runs(runset)
    assert sorted(after["config_hash"]) == sorted(started["config_hash"]), "same definitions"
    with pytest.raises(SuiteError, match=r"--timeout 7\.0 differs from the 5"):
        await run_batch(
            suite, runset, BatchOptions(timeout_s=7.0), resume=True, make_model=lambda _: model
        )
