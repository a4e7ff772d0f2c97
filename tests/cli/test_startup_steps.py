"""The start-up steps a batch command prints (issue 21): the batch reports them to its observer
(trajguard.runner.StartupObserver), the command line prints each with its time on stderr, with or
without --no-progress, and the run summary's time is the whole command's. The steps of the
embedded model (litellm's import, its servers, its first call) are checked live in
tests/cli/test_demo_live.py."""

from __future__ import annotations

import json
import re
import socket
import sys
import time
import types
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from trajguard_testkit.scripted import Scripted

from trajguard.capture import Message
from trajguard.cli._common import quiet_litellm
from trajguard.cli._startup import StartupLog
from trajguard.cli.run import duration
from trajguard.errors import ModelUnavailable
from trajguard.runner import BatchOptions, StartupObserver, run_batch
from trajguard.suite import load_suite

SUITE = """name: steps
defaults:
  runs: 2
  model: openai/nothing-here
  api_base: http://127.0.0.1:9/v1
scenarios:
  - id: multiply
    agent:
      kind: builtin
      tools: [trajguard.examples.demo_tools:calculator]
    input: What is 17 * 23?
"""


class Recorder:
    """A batch observer that also listens for the start-up steps, and records everything."""

    def __init__(self) -> None:
        self.events: list[tuple[str, Any]] = []

    def step_started(self, step: str) -> None:
        self.events.append(("started", step))

    def step_finished(self, step: str, elapsed_s: float) -> None:
        assert elapsed_s >= 0
        self.events.append(("finished", step))

    def step_failed(self, step: str, elapsed_s: float) -> None:
        assert elapsed_s >= 0
        self.events.append(("failed", step))

    def start(self, total: int, skipped: int, interrupted: int) -> None:
        self.events.append(("start", total))

    def update(self, row: Mapping[str, Any]) -> None:
        self.events.append(("row", row["run_id"]))


class RunsOnly:
    def start(self, total: int, skipped: int, interrupted: int) -> None:
        self.total = total

    def update(self, row: Mapping[str, Any]) -> None:
        pass


def _answer(messages: Sequence[Message], _: dict[str, Any]) -> str:
    return json.dumps({"tool": "final_answer", "answer": "391"})


def _suite(tmp_path: Path) -> Any:
    path = tmp_path / "suite.yaml"
    path.write_text(SUITE)
    return load_suite(path)


async def test_a_batch_reports_its_model_check_before_the_runs_begin(tmp_path: Path) -> None:
    recorder = Recorder()
    assert isinstance(recorder, StartupObserver)
    await run_batch(
        _suite(tmp_path),
        tmp_path / "rs",
        BatchOptions(),
        make_model=lambda _: Scripted(_answer),
        observer=recorder,
    )
    check = "checking that openai/nothing-here answers at http://127.0.0.1:9/v1"
    assert recorder.events[:3] == [("started", check), ("finished", check), ("start", 2)]
    assert sorted(recorder.events[3:]) == [("row", "multiply/base/0"), ("row", "multiply/base/1")]


async def test_an_observer_of_runs_only_is_told_runs_only(tmp_path: Path) -> None:
    observer = RunsOnly()
    assert not isinstance(observer, StartupObserver)
    result = await run_batch(
        _suite(tmp_path),
        tmp_path / "rs",
        BatchOptions(),
        make_model=lambda _: Scripted(_answer),
        observer=observer,
    )
    assert observer.total == result.planned == 2


async def test_a_failed_step_is_told_as_failed_not_finished(tmp_path: Path) -> None:
    class Unreachable(Scripted):
        async def complete(self, messages: Sequence[Message], **_: Any) -> Any:
            raise ModelUnavailable("nobody home")

    recorder = Recorder()
    with pytest.raises(ModelUnavailable):
        await run_batch(
            _suite(tmp_path),
            tmp_path / "rs",
            BatchOptions(),
            make_model=lambda _: Unreachable(_answer),
            observer=recorder,
        )
    check = "checking that openai/nothing-here answers at http://127.0.0.1:9/v1"
    assert recorder.events == [("started", check), ("failed", check)]
    assert not (tmp_path / "rs").exists(), "nothing written"


def test_steps_in_turn_print_one_line_each(capsys: pytest.CaptureFixture[str]) -> None:
    log = StartupLog(started=time.monotonic())
    with log.step("importing"):
        pass
    log.begin("reading the suite")
    log.step_started("checking that m answers")  # a batch's step ends the command's line
    log.step_finished("checking that m answers", 1.25)
    log.end()
    assert capsys.readouterr().err == (
        "trajguard: importing… 0.0 s\ntrajguard: reading the suite…\n"
        "trajguard: checking that m answers… 1.2 s\ntrajguard: reading the suite… 0.0 s\n"
    )


def test_overlapping_steps_name_the_step_again_with_its_time(
    capsys: pytest.CaptureFixture[str],
) -> None:
    log = StartupLog(started=time.monotonic())
    log.step_started("importing litellm")
    log.step_started("starting the embedded model server")
    log.step_finished("starting the embedded model server", 2.61)
    shown = capsys.readouterr().err
    assert shown.endswith("\ntrajguard: importing litellm…"), "the last line: what is waited for"
    log.step_finished("importing litellm", 3.04)
    assert shown + capsys.readouterr().err == (
        "trajguard: importing litellm…\ntrajguard: starting the embedded model server… 2.6 s\n"
        "trajguard: importing litellm… 3.0 s\n"
    )


def test_a_step_of_the_commands_own_that_raises_is_printed_as_failed(
    capsys: pytest.CaptureFixture[str],
) -> None:
    def failing_read() -> None:
        with StartupLog(started=time.monotonic()) as log:
            log.begin("reading the suite")
            raise ValueError("bad")

    with pytest.raises(ValueError, match="bad"):
        failing_read()
    err = capsys.readouterr().err
    assert re.fullmatch(r"trajguard: reading the suite… failed after \d+\.\d s\n", err), err


def test_ctrl_c_inside_a_step_ends_its_line_and_calls_nothing_failed(
    capsys: pytest.CaptureFixture[str],
) -> None:
    def interrupted_start() -> None:
        with StartupLog(started=time.monotonic()) as log:
            log.begin("reading the suite")
            log.step_started("starting the embedded model server")
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        interrupted_start()
    assert capsys.readouterr().err == (
        "trajguard: reading the suite…\ntrajguard: starting the embedded model server…\n"
    )


def test_the_command_clock_and_the_first_run(capsys: pytest.CaptureFixture[str]) -> None:
    log = StartupLog(started=time.monotonic() - 5)
    assert log.first_run_s is None
    log.runs_begin()
    first = log.first_run_s
    assert first is not None and 5 <= first < 60
    log.runs_begin()  # a later batch of the same command (a look, an escalation)
    assert log.first_run_s == first
    assert log.elapsed_s >= first


def test_litellms_banner_goes_off_at_the_first_step_after_its_import(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delitem(sys.modules, "litellm", raising=False)
    log = StartupLog(started=time.monotonic(), on_step=quiet_litellm)
    log.step_started("importing litellm")  # not imported yet: nothing to turn off, no import
    assert "litellm" not in sys.modules
    fake = types.SimpleNamespace(suppress_debug_info=False)
    monkeypatch.setitem(sys.modules, "litellm", fake)
    log.step_finished("importing litellm", 3.0)
    assert fake.suppress_debug_info is True


COMMAND_SUITE = """name: cli
defaults:
  runs: 2
  model: openai/nothing-here
  api_base: http://127.0.0.1:9/v1
scenarios:
  - id: a
    agent: {{kind: command, uses_model: false, argv: [{python}, agent.py, "{{output}}"]}}
    input: hi
"""
WRITES_ATIF = """
import json, sys
steps = [{"step_id": 1, "source": "user", "message": "hi"},
         {"step_id": 2, "source": "agent", "message": "done"}]
json.dump({"schema_version": "ATIF-v1.7", "agent": {"name": "x", "version": "1"},
           "steps": steps}, open(sys.argv[1], "w"))
"""


@pytest.mark.parametrize("progress", [[], ["--no-progress"]], ids=["progress", "no-progress"])
def test_trajguard_run_prints_its_steps_and_the_whole_commands_time(
    tmp_path: Path, cli: Any, progress: list[str]
) -> None:
    (tmp_path / "agent.py").write_text(WRITES_ATIF)
    (tmp_path / "suite.yaml").write_text(COMMAND_SUITE.format(python=json.dumps(sys.executable)))
    result = cli("run", "suite.yaml", "--out", "rs", *progress, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert re.findall(r"^trajguard: (.+)… \d+\.\d s$", result.stderr, re.M) == [
        "importing trajguard's batch runner",
        "reading the suite",
    ], result.stderr
    summary = re.search(r"^2 runs in (\d+) s with (\d+) s of start-up \(2 ok\)", result.stdout)
    assert summary is not None, result.stdout  # seconds: well under a minute, even on a busy CI
    assert int(summary.group(2)) <= int(summary.group(1))


def test_one_run_is_one_run_and_long_times_are_in_minutes() -> None:
    assert [duration(s) for s in (0.4, 42.4, 59.6, 60, 182.2, 3725)] == [
        "0 s", "42 s", "1 min 0 s", "1 min 0 s", "3 min 2 s", "62 min 5 s"
    ]  # fmt: skip


UNREACHABLE_SUITE = """name: unreachable
defaults:
  runs: 1
  model: openai/nothing-here
  api_base: http://127.0.0.1:{port}/v1
scenarios:
  - id: multiply
    agent:
      kind: builtin
      tools: [trajguard.examples.demo_tools:calculator]
    input: What is 17 * 23?
"""


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])  # closed when the block ends: nothing listens


def test_an_unreachable_endpoint_names_the_step_that_failed(
    tmp_path: Path, cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "not-a-key")  # the endpoint is asked, not the key
    port = _closed_port()
    (tmp_path / "suite.yaml").write_text(UNREACHABLE_SUITE.format(port=port))
    result = cli(
        "run", "suite.yaml", "--out", "rs", "--no-progress", "--timeout", "5", cwd=tmp_path
    )
    assert result.returncode == 3, result.stderr
    lines = result.stderr.splitlines()
    check = f"trajguard: checking that openai/nothing-here answers at http://127.0.0.1:{port}/v1…"
    failed = [i for i, line in enumerate(lines) if line.startswith(check)]
    assert len(failed) == 1, result.stderr
    assert re.fullmatch(re.escape(check) + r" failed after \d+\.\d s", lines[failed[0]])
    assert lines[failed[0] + 1].startswith("trajguard: error: model openai/nothing-here"), lines
    assert "Traceback" not in result.stderr
    assert result.stdout == ""
    assert not (tmp_path / "rs").exists(), "nothing written"
