"""The user's own code runs under the run's rules (issue 28): a tool, a callable agent or a
predicate that raises what Python raises to stop, returns what cannot be shown, never returns,
or forks ends only its own run, as its own failure, counted; Ctrl-C still stops the batch, which
saves what it finished and resumes. What would hang if it regressed runs as a subprocess with a
deadline (user_code.py holds the misbehaving code)."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from trajguard_testkit.scripted import Scripted

from trajguard import store
from trajguard.capture import Message
from trajguard.runner import BatchOptions, run_batch
from trajguard.suite import load_suite

HERE = Path(__file__).parent
DEADLINE_S = 180.0
"""A subprocess that has not ended by then hangs (the slowest here take about 20 s)."""
# Ctrl-C reaches a child as in a terminal: a parent running in the background may have left
# SIGINT ignored, which a child would inherit.
TRAJGUARD = [
    sys.executable,
    "-c",
    "import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
    "sys.argv[0] = 'trajguard'; from trajguard.cli import entry; entry()",
]
AGENT_SOURCE = """
import json, os, sys
steps = [{"step_id": 1, "source": "user", "message": os.environ["TRAJGUARD_INPUT"]},
         {"step_id": 2, "source": "agent", "message": "done"}]
trajectory = {"schema_version": "ATIF-v1.8", "agent": {"name": "a", "version": "1"}, "steps": steps}
json.dump(trajectory, open(sys.argv[1], "w"))
"""


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "user_code.py").write_text((HERE / "user_code.py").read_text())
    (tmp_path / "agent.py").write_text(AGENT_SOURCE)
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


def tool_then_answer(tool: str) -> Any:
    def reply(messages: Sequence[Message], _: dict[str, Any]) -> str:
        if not any(m["role"] == "assistant" for m in messages):
            return json.dumps({"tool": tool, "arguments": {}})
        return json.dumps({"tool": "final_answer", "answer": "done"})

    return reply


def suite_file(root: Path, scenario: str, *, defaults: str = "runs: 2, timeout_s: 20") -> Path:
    path = root / "suite.yaml"
    path.write_text(f"name: user\ndefaults: {{{defaults}}}\nscenarios:\n{scenario}")
    return path


def builtin(tool: str) -> str:
    return (
        "  - id: t\n    input: hi\n"
        f"    agent: {{kind: builtin, mode: json, tools: ['user_code:{tool}']}}\n"
    )


def callable_agent(function: str) -> str:
    return f"  - id: c\n    input: hi\n    agent: {{kind: callable, function: '{function}'}}\n"


def command_with_predicate(predicate: str) -> str:
    return (
        "  - id: p\n    input: hi\n"
        "    agent: {kind: command, argv: [python3, agent.py, '{output}'], uses_model: false}\n"
        f"    pass: [{{predicate: 'user_code:{predicate}'}}]\n"
    )


async def batch(root: Path, scenario: str, model: Any = None) -> pd.DataFrame:
    suite = load_suite(suite_file(root, scenario))
    runset = root / "rs"
    model = model or Scripted(tool_then_answer("none"))
    await run_batch(suite, runset, BatchOptions(seed=1), make_model=lambda _: model)
    assert store.read_manifest(runset)["status"] == "finished"
    return store.read_runs(runset)


def observations(row: Any) -> list[dict[str, Any]]:
    steps = json.loads(row["trajectory"])["steps"]
    return [r for s in steps for r in (s.get("observation") or {}).get("results", [])]


@pytest.mark.parametrize(
    ("tool", "shown"),
    [
        ("cycle", "ValueError: Circular reference detected"),
        ("unprintable", "RuntimeError: no str for you"),
        ("generator", "TypeError: the tool returned a generator, not a value"),
        ("raises_unprintable", "(its str() raised RuntimeError)"),
    ],
)
async def test_a_tool_whose_result_cannot_be_shown_is_a_tool_error_the_model_reads(
    project: Path, tool: str, shown: str
) -> None:
    runs = await batch(project, builtin(tool), Scripted(tool_then_answer(tool)))
    assert list(runs["status"]) == ["ok", "ok"], "the agent's own run: never a harness error"
    for _, row in runs.iterrows():
        (observed,) = observations(row)
        assert observed["extra"] == {"error": "tool_error"}
        assert observed["content"].startswith("Error: ") and shown in observed["content"]


@pytest.mark.parametrize(
    ("tool", "error_type", "message"),
    [
        ("tool_exits", "SystemExit", "tool tool_exits raised SystemExit(3)"),
        ("tool_interrupts", "KeyboardInterrupt", "tool tool_interrupts raised KeyboardInterrupt"),
        ("async_tool_exits", "SystemExit", "tool async_tool_exits raised SystemExit(4)"),
    ],
)
async def test_a_tool_raising_what_python_raises_to_stop_fails_only_its_run(
    project: Path, tool: str, error_type: str, message: str
) -> None:
    runs = await batch(project, builtin(tool), Scripted(tool_then_answer(tool)))
    assert list(runs["status"]) == ["agent_error", "agent_error"]
    assert set(runs["error_type"]) == {error_type}
    assert set(runs["error_message"]) == {message}
    assert not runs["passed"].any()


@pytest.mark.parametrize(
    ("function", "message"),
    [
        ("agent_exits", "agent user_code:agent_exits raised SystemExit(5)"),
        ("async_agent_exits", "agent user_code:async_agent_exits raised SystemExit(6)"),
    ],
)
async def test_a_callable_agent_raising_system_exit_crashes_only_its_run(
    project: Path, function: str, message: str
) -> None:
    runs = await batch(project, callable_agent(f"user_code:{function}"))
    assert list(runs["status"]) == ["crash", "crash"]
    assert set(runs["error_type"]) == {"SystemExit"}
    ((shown, where),) = {tuple(m.split("\n  at ")) for m in runs["error_message"]}
    assert shown == message
    source = (project / "user_code.py").read_text().splitlines()
    path, line = where.split(":")
    # the agent's own file, as imported (a module cached by an earlier test of this file lives
    # in that test's directory: then its last two parts); never an absolute path
    assert Path(path).name == "user_code.py" and not Path(path).is_absolute()
    assert "raise SystemExit" in source[int(line) - 1]
    assert runs["crashed"].all()


@pytest.mark.parametrize(
    ("predicate", "reason"),
    [
        ("exits", "user_code:exits raised SystemExit(7)"),
        ("interrupts", "user_code:interrupts raised KeyboardInterrupt"),
        ("generator_exit", "user_code:generator_exit raised GeneratorExit"),
        ("own_base_exception", "user_code:own_base_exception raised Abort(stop everything)"),
        ("untrue", "user_code:untrue raised ValueError: no truth here"),
    ],
)
async def test_a_broken_predicate_is_a_criterion_error_that_fails_the_run(
    project: Path, predicate: str, reason: str
) -> None:
    runs = await batch(project, command_with_predicate(predicate))
    assert list(runs["status"]) == ["ok", "ok"], "the agent finished: its status stays"
    assert set(runs["error_type"]) == {"criterion_error"}
    assert set(runs["error_message"]) == {f"predicate: {reason}"}
    assert list(runs["passed"]) == [False, False], "counted: a failed run, not left out"
    assert [list(f) for f in runs["failed_criteria"]] == [[f"predicate: {reason}"]] * 2


# --- what would hang: subprocesses with a deadline --------------------------------------------


def trajguard(*args: str, cwd: Path, **options: Any) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(
            [*TRAJGUARD, *args],
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=DEADLINE_S,
            check=False,
            **options,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"trajguard {' '.join(args)} did not end within {DEADLINE_S:g} s")


def test_a_predicate_that_never_returns_is_cut_at_its_bound(project: Path) -> None:
    # generous: the agent's own start (a Python process) fits in it on a loaded machine
    suite_file(project, command_with_predicate("forever"), defaults="runs: 1, timeout_s: 10")
    done = trajguard("run", "suite.yaml", "--out", "rs", "--no-progress", cwd=project)
    assert done.returncode == 0, done.stderr
    runs = store.read_runs(project / "rs")
    assert list(runs["status"]) == ["ok"]
    assert set(runs["error_message"]) == {"predicate: user_code:forever did not return within 10 s"}
    assert not runs["passed"].any()


def test_a_predicate_that_forks_leaves_the_batch_to_the_parent(project: Path) -> None:
    suite_file(project, command_with_predicate("forks"), defaults="runs: 3, concurrency: 1")
    done = trajguard("run", "suite.yaml", "--out", "rs", "--no-progress", cwd=project)
    assert done.returncode == 0, done.stderr
    journal = (project / "rs" / store.JOURNAL_FILE).read_text().splitlines()
    assert len(journal) == 3, "a forked child that went on would start runs of its own"
    runs = store.read_runs(project / "rs")
    assert sorted(runs["run_id"]) == ["p/base/0", "p/base/1", "p/base/2"]
    assert runs["passed"].all()


GATED = '''
import os, time
_calls = 0

def first_passes_then_hangs(trajectory):
    """The first run's predicate passes; the second says so through the gate, then hangs."""
    global _calls
    _calls += 1
    if _calls == 1 or not os.environ.get("TG_GATE"):
        return True
    with open(os.environ["TG_GATE"], "w") as gate:
        gate.write("in the predicate\\n")
    time.sleep(3600)
    return True


async def swallowing_agent(ctx):
    """Says it is running through the gate, then ignores every cancellation."""
    import asyncio
    with open(os.environ["TG_GATE"], "w") as gate:
        gate.write("in the agent\\n")
    while True:
        try:
            await asyncio.sleep(3600)
        except BaseException:
            continue
'''


@pytest.fixture
def gate(project: Path) -> Iterator[tuple[Path, int]]:
    """A FIFO the user code writes to when it is where the test wants Ctrl-C to land; its
    reader (opened first, so a writer never blocks) and a writer of the test's own."""
    (project / "gated.py").write_text(GATED)
    path = project / "gate"
    os.mkfifo(path)
    reader = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    keep_open = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
    yield path, reader
    os.close(keep_open)
    os.close(reader)


def interrupt_at_the_gate(
    command: list[str], cwd: Path, gate: tuple[Path, int], env: dict[str, str]
) -> tuple[int, str]:
    """Run ``trajguard COMMAND``, Ctrl-C it once the user code is at the gate; its exit code
    and stderr."""
    path, reader = gate
    with subprocess.Popen(
        [*TRAJGUARD, *command],
        cwd=cwd,
        env={**os.environ, **env, "TG_GATE": str(path)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    ) as process:
        poller = select.poll()
        poller.register(reader, select.POLLIN)
        if not poller.poll(DEADLINE_S * 1000):
            process.kill()
            pytest.fail("the user code never reached the gate")
        os.read(reader, 100)
        process.send_signal(signal.SIGINT)
        try:
            _, stderr = process.communicate(timeout=DEADLINE_S)
        except subprocess.TimeoutExpired:
            process.kill()
            pytest.fail(f"Ctrl-C did not stop the batch within {DEADLINE_S:g} s")
    return process.returncode, stderr


def test_ctrl_c_during_a_predicate_that_never_returns_saves_the_runs_and_resumes(
    project: Path, gate: tuple[Path, int]
) -> None:
    scenario = command_with_predicate("x").replace("user_code:x", "gated:first_passes_then_hangs")
    suite_file(project, scenario, defaults="runs: 3, concurrency: 1, timeout_s: 600")
    command = ["run", "suite.yaml", "--out", "rs", "--no-progress", "--seed", "5"]
    returncode, stderr = interrupt_at_the_gate(command, project, gate, {})
    assert returncode == 130, stderr
    assert "Traceback" not in stderr and "resume with" in stderr
    manifest = store.read_manifest(project / "rs")
    assert manifest["status"] == "running" and manifest["stopped"]["why"] == "interrupted"
    assert list(store.read_runs(project / "rs")["run_id"]) == ["p/base/0"], "the finished run"
    resumed = trajguard("run", "suite.yaml", "--resume", "rs", "--no-progress", cwd=project)
    assert resumed.returncode == 0, resumed.stderr
    runs = store.read_runs(project / "rs")
    assert sorted(runs["run_id"]) == ["p/base/0", "p/base/1", "p/base/2"]
    assert store.read_manifest(project / "rs")["status"] == "finished"


def test_ctrl_c_while_an_async_agent_swallows_its_cancellation(
    project: Path, gate: tuple[Path, int], provider: Any
) -> None:
    suite_file(
        project, callable_agent("gated:swallowing_agent"), defaults="runs: 2, timeout_s: 600"
    )
    command = ["run", "suite.yaml", "--out", "rs", "--no-progress"]
    command += ["--model", "openai/stub", "--api-base", provider.api_base]
    returncode, stderr = interrupt_at_the_gate(command, project, gate, {"OPENAI_API_KEY": "sk-x"})
    assert returncode == 130, stderr
    assert "Traceback" not in stderr
    assert store.read_manifest(project / "rs")["stopped"]["why"] == "interrupted"
