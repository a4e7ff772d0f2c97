"""A server that dies says it died (issue 34): how, what its log said, which CPU features its
build uses, and how to install a build that runs here; never "unreachable … rerun".

The live tests start the real server through a stand-in (trajguard_testkit/crashing_server.py)
that segfaults the way a llama.cpp build with broken AMX kernels does: at its first prompt of
more than one token, or at its N-th request.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import trajguard_testkit.crashing_server as stand_in

from trajguard import store
from trajguard.cli import main
from trajguard.errors import PROVIDER_FAILURES, EmbeddedModelCrashed
from trajguard.local_model import (
    LocalModelServer,
    configure_local_servers,
    stop_local_server,
)
from trajguard.local_model._constants import PORTABLE_REINSTALL
from trajguard.local_model._crash import build_features, crash_error, how_it_died

NATIVE_AMX = (
    "CPU : SSE3 = 1 | AVX = 1 | AVX2 = 1 | F16C = 1 | FMA = 1 | AVX512 = 1 | AVX512_VNNI = 1 "
    "| AVX512_BF16 = 1 | AMX_INT8 = 1 | LLAMAFILE = 1 | OPENMP = 1 | REPACK = 1 |"
)
PORTABLE = "CPU : SSE3 = 1 | AVX = 1 | AVX2 = 1 | F16C = 1 | FMA = 1 | REPACK = 1 |"


# --- the words, without a server ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("code", "words"),
    [
        (-11, "was killed by SIGSEGV (signal 11)"),
        (-9, "was killed by SIGKILL (signal 9)"),
        (139, "exited with code 139 (SIGSEGV)"),
        (1, "exited with code 1"),
    ],
)
def test_how_a_process_died_is_said_by_name(code: int, words: str) -> None:
    assert how_it_died(code) == words


def test_a_server_that_exits_by_itself_points_at_its_log_not_at_the_cpu() -> None:
    error = crash_error(pid=7, returncode=1, during="starting", log="ValueError: not a gguf")
    assert "exited with code 1 while starting" in str(error)
    assert "  ValueError: not a gguf" in str(error)
    assert "a broken model file or package?" in error.hint
    assert "kernels" not in error.hint


def test_a_native_build_that_crashes_is_told_to_install_the_portable_build() -> None:
    log = f"trajguard: llama.cpp system info: {NATIVE_AMX}\nINFO: started\nggml: oops\n"
    error = crash_error(pid=4242, returncode=-11, during="answering a request", log=log)
    text = str(error)
    assert error.exit_code == 3
    assert error.reason == "crashed"
    assert "(pid 4242) was killed by SIGSEGV (signal 11) while answering a request" in text
    assert "not a network failure" in text
    assert f"llama.cpp build: {NATIVE_AMX}" in text
    assert "  ggml: oops" in text  # the log's last lines, the build's line not repeated there
    assert "AVX512, AVX512_VNNI, AVX512_BF16, AMX_INT8 kernels" in error.hint
    assert PORTABLE_REINSTALL in error.hint
    assert "unreachable" not in text
    assert "rerun" not in error.hint


def test_a_portable_build_that_crashes_is_not_blamed_on_native_kernels() -> None:
    log = f"trajguard: llama.cpp system info: {PORTABLE}"
    error = crash_error(pid=None, returncode=-6, during="starting", log=log)
    assert "SIGABRT" in str(error)
    assert "kernels" not in error.hint
    assert PORTABLE_REINSTALL in error.hint


def test_a_process_that_died_before_saying_its_build_says_so() -> None:
    assert build_features("INFO: nothing yet") is None
    error = crash_error(pid=1, returncode=-11, during="starting", log="")
    assert "llama.cpp build: (died before it said)" in str(error)
    assert "(empty)" in str(error)


# --- live: the real server behind the stand-in ---------------------------------------------------


def _program(mode: str, marker: Path) -> tuple[str, ...]:
    return (sys.executable, stand_in.__file__, mode, str(marker))


@pytest.fixture
def stand_in_servers(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Process-wide servers of this test only (the settings restored after it)."""
    monkeypatch.setattr("trajguard.local_model._pool._servers", {})
    previous = configure_local_servers()
    yield
    stop_local_server()
    configure_local_servers(**vars(previous))


@pytest.mark.live
def test_a_build_that_crashes_on_its_first_real_prompt_fails_its_self_test(tmp_path: Path) -> None:
    server = LocalModelServer(program=_program("multi-token", tmp_path / "marker"))
    started = time.monotonic()
    with pytest.raises(EmbeddedModelCrashed) as info:
        server.start()
    text = str(info.value)
    assert "was killed by SIGSEGV (signal 11) while answering its self-test" in text
    assert "llama.cpp build: CPU :" in text  # this machine's real build said its features
    assert PORTABLE_REINSTALL in text
    assert time.monotonic() - started < server.startup_timeout_s  # not a time-out: a death
    assert not server.running
    assert server.log_path is None  # its log directory is removed


SUITE = """
name: crashing
defaults:
  runs: 4
  model: local/smollm2
  temperature: 0.7
  max_tokens: 48
  max_steps: 3
  concurrency: 1
  timeout_s: 300
scenarios:
  - id: multiply
    agent:
      kind: builtin
      mode: json
      tools: [trajguard.examples.demo_tools:calculator]
    input: What is 17 * 23?
"""


def _said_it_died(err: str) -> None:
    """The words of a server that died, never those of a network failure."""
    assert "was killed by SIGSEGV (signal 11)" in err
    assert "unreachable" not in err
    assert "Traceback" not in err


def _run(tmp_path: Path, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main(["run", str(tmp_path / "suite.yaml"), "--no-progress", *args])
    return code, capsys.readouterr().err


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    (tmp_path / "suite.yaml").write_text(SUITE)
    return tmp_path / "suite.yaml"


@pytest.mark.live
def test_a_batch_on_a_build_that_crashes_stops_before_its_first_run_with_the_diagnosis(
    tmp_path: Path, suite: Path, stand_in_servers: None, capsys: pytest.CaptureFixture[str]
) -> None:
    configure_local_servers(program=_program("multi-token", tmp_path / "marker"))
    out = tmp_path / "runs"
    code, err = _run(tmp_path, capsys, "--out", str(out))
    assert code == 3
    _said_it_died(err)
    assert "self-test of the embedded model: a chat request with tools" in err
    assert "was killed by SIGSEGV (signal 11) while answering its self-test" in err
    assert "llama.cpp build: CPU :" in err
    assert PORTABLE_REINSTALL in err
    assert not out.exists()  # failed before anything was written


@pytest.mark.live
def test_a_server_that_dies_once_mid_batch_is_restarted_and_no_run_is_lost(
    tmp_path: Path, suite: Path, stand_in_servers: None, capsys: pytest.CaptureFixture[str]
) -> None:
    marker = tmp_path / "marker"
    # request 1 is the self-test, 2 the first call's check: 5 is inside the runs
    configure_local_servers(program=_program("once-5", marker))
    out = tmp_path / "runs"
    code, err = _run(tmp_path, capsys, "--out", str(out))
    assert marker.read_text() == "died at request 5\n"  # it did die, mid-batch
    assert code in {0, 1}, err
    rows = store.read_table(out).to_pylist()
    assert len(rows) == 4
    assert {row["status"] for row in rows} <= {"ok", "agent_error"}  # no harness error
    assert not {row["error_type"] for row in rows} & set(PROVIDER_FAILURES), rows
    manifest = json.loads((out / store.MANIFEST_FILE).read_text())
    assert manifest["status"] == "finished"


@pytest.mark.live
def test_a_server_that_dies_again_stops_the_batch_resumably_with_the_diagnosis(
    tmp_path: Path, suite: Path, stand_in_servers: None, capsys: pytest.CaptureFixture[str]
) -> None:
    # every process dies at its 5th request: the restarted one too (its self-test is its 1st)
    configure_local_servers(program=_program("request-5", tmp_path / "marker"))
    out = tmp_path / "runs"
    code, err = _run(tmp_path, capsys, "--out", str(out))
    assert code == 3
    _said_it_died(err)
    assert "it died 2 times in this batch; restarted 1 time" in err
    assert f"--resume {out}" in err
    manifest = json.loads((out / store.MANIFEST_FILE).read_text())
    assert manifest["status"] == "running"
    assert "EmbeddedModelCrashed" in manifest["stopped"]["why"]
    finished = store.completed_run_ids(out)
    assert len(finished) < 4
    assert manifest["completed_runs"] == len(finished)
    rows = store.read_table(out).to_pylist() if finished else []
    assert all(row["error_type"] != "crashed" for row in rows)  # no run blamed for the death

    # a working build finishes the batch: every planned run once, none twice
    stop_local_server()
    configure_local_servers(program=None)
    code, err = _run(tmp_path, capsys, "--resume", str(out))
    assert code in {0, 1}, err
    rows = store.read_table(out).to_pylist()
    assert sorted(row["run_id"] for row in rows) == sorted({row["run_id"] for row in rows})
    assert len(rows) == 4
