"""Process plumbing of the embedded model's server: ports, forking, health checks, shutdown."""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import signal
import socket
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping
from concurrent.futures import Future
from pathlib import Path
from queue import SimpleQueue
from typing import TypeVar

from trajguard.local_model._constants import LOG_DIR_ENV, PR_SET_PDEATHSIG

__all__ = [
    "SpawnerThread",
    "answers",
    "child_env",
    "die_with_parent_hook",
    "free_port",
    "terminate",
]

_T = TypeVar("_T")


def free_port(host: str) -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def die_with_parent_hook() -> Callable[[], None] | None:
    """A ``preexec_fn`` that makes the child receive SIGTERM when its parent dies (Linux only).

    The libc function is resolved here, in the parent, so the child only makes the syscall.
    """
    if not sys.platform.startswith("linux"):
        return None
    libc_name = ctypes.util.find_library("c")
    try:
        prctl = ctypes.CDLL(libc_name, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    parent_pid = os.getpid()

    def hook() -> None:
        prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
        # The parent may have died between fork() and prctl(): then no signal will ever come.
        if os.getppid() != parent_pid:
            os._exit(1)

    return hook


class SpawnerThread:
    """A daemon thread that lives as long as the process and forks the server.

    ``PR_SET_PDEATHSIG`` fires when the *thread* that forked the child exits, not the process.
    A server forked from a worker of ``asyncio.to_thread`` would be killed when
    ``asyncio.run()`` shuts its executor down; forking from this thread ties the server's
    life to the process instead.
    """

    def __init__(self) -> None:
        self._jobs: SimpleQueue[tuple[Callable[[], object], Future[object]]] = SimpleQueue()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def run(self, job: Callable[[], _T]) -> _T:
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(
                    target=self._loop, name="trajguard-local-model", daemon=True
                )
                self._thread.start()
        future: Future[object] = Future()
        self._jobs.put((job, future))
        return future.result()  # type: ignore[return-value]

    def _loop(self) -> None:
        while True:
            job, future = self._jobs.get()
            try:
                future.set_result(job())
            except BaseException as exc:  # handed to the caller, not swallowed
                future.set_exception(exc)


def child_env(*, log_dir: Path, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    env = {**os.environ, **(extra or {})}
    env[LOG_DIR_ENV] = str(log_dir)
    # The child runs ``-m trajguard.local_model``: make that importable even when trajguard
    # was put on sys.path by hand rather than installed.
    package_root = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [package_root, env.get("PYTHONPATH")]))
    return env


def answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2.0) as response:  # noqa: S310 - http only
            return bool(response.status == 200)
    except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
        return False


def terminate(process: subprocess.Popen[bytes], *, grace_s: float) -> None:
    if process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=grace_s)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
