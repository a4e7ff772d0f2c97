"""The embedded model's server process: ``python -m trajguard.local_model <server args>``.

A thin wrapper around ``python -m llama_cpp.server`` (everything here runs in the child) that
makes it honour per-request seeds, render chat templates as plain text, count what it computes
(``GET /trajguard/counters``), and ignore environment variables that would override its command
line.
"""

from __future__ import annotations

import os
import runpy
import shutil
import signal
import sys
from pathlib import Path
from typing import Any

from trajguard.local_model._constants import (
    COUNTERS_PATH,
    LOG_DIR_ENV,
    LOG_DIR_PREFIX,
    SYSTEM_INFO_PREFIX,
)
from trajguard.local_model._sampling import FAST_SAMPLES, install_fast_grammar_sampling

_SEEDED_FORMAT = "chatml-function-calling"


def _honour_request_seed() -> None:
    """Make the ``chatml-function-calling`` handler use the request's ``seed``.

    llama-cpp-python's handler for that format swallows ``seed`` in ``**kwargs``; each
    completion then draws its seed from a chain started at the server's seed, so an explicit
    seed changes nothing and a sample depends on how many calls the server has served. Setting
    the model's seed before the handler runs makes that chain start at the request's seed:
    the same request with the same seed gives the same completion.
    """
    from llama_cpp import llama_chat_format  # child process only

    registry = llama_chat_format.LlamaChatCompletionHandlerRegistry()  # type: ignore[no-untyped-call]
    original = registry.get_chat_completion_handler_by_name(_SEEDED_FORMAT)

    def seeded(*, llama: Any, seed: int | None = None, **kwargs: Any) -> Any:
        if seed is not None:
            llama.set_seed(seed)
        return original(llama=llama, seed=seed, **kwargs)

    registry.register_chat_completion_handler(_SEEDED_FORMAT, seeded, overwrite=True)


def _plain_text_templates() -> None:
    """Stop the chat templates from HTML-escaping the conversation.

    llama-cpp-python renders ``chatml-function-calling`` with ``autoescape`` on, so every quote
    of a message reaches the model as ``&#34;``: a JSON action in the history, a tool result,
    the user's question. The model then copies the entities into its answers (observed: most
    final answers of the demo suite), and writes them token by token, which also made runs about
    five times slower. The server process is ours, so its templates render plain text.
    """
    import jinja2  # child process only

    def never_escape(*args: Any, **kwargs: Any) -> Any:
        return lambda template_name: False

    jinja2.select_autoescape = never_escape


def _scrub_server_env() -> None:
    """Drop environment variables that would override the command line of the server.

    ``llama_cpp.server`` reads ``HOST``, ``PORT`` and ``CONFIG_FILE`` before its arguments, and
    its pydantic settings read any field (``API_KEY``, ``N_GPU_LAYERS`` ...) from the
    environment: an unrelated ``PORT`` or ``API_KEY`` of the user's shell would break it.
    """
    from llama_cpp.server.settings import ModelSettings, ServerSettings

    names = {"HOST", "PORT", "CONFIG_FILE"}
    names.update(field.upper() for field in ModelSettings.model_fields)
    names.update(field.upper() for field in ServerSettings.model_fields)
    for key in list(os.environ):
        if key.upper() in names:
            del os.environ[key]


def _count_work() -> None:
    """Count requests, evaluated tokens and sampled tokens, and serve them as JSON.

    ``Llama.eval`` receives only the tokens the model still has to compute: the prompt minus
    the prefix already in its cache, then each generated token. The difference between
    evaluated and sampled tokens is therefore the prompt work the cache did not save.
    """
    import llama_cpp  # child process only
    from llama_cpp.server import app as server_app

    counts = {"requests": 0, "evaluated": 0, "sampled": 0}
    llama = llama_cpp.Llama
    evaluate, sample, chat = llama.eval, llama.sample, llama.create_chat_completion

    def counted_eval(self: Any, tokens: Any) -> Any:
        counts["evaluated"] += len(tokens)
        return evaluate(self, tokens)

    def counted_sample(self: Any, *args: Any, **kwargs: Any) -> Any:
        counts["sampled"] += 1
        return sample(self, *args, **kwargs)

    def counted_chat(self: Any, *args: Any, **kwargs: Any) -> Any:
        counts["requests"] += 1
        return chat(self, *args, **kwargs)

    llama.eval, llama.sample = counted_eval, counted_sample  # type: ignore[method-assign]
    llama.create_chat_completion = counted_chat  # type: ignore[method-assign]
    create_app = server_app.create_app

    def create_app_with_counters(*args: Any, **kwargs: Any) -> Any:
        app = create_app(*args, **kwargs)
        app.add_api_route(
            COUNTERS_PATH,
            lambda: {**counts, "grammar_fast": FAST_SAMPLES[0], "grammar_whole": FAST_SAMPLES[1]},
            methods=["GET"],
        )
        return app

    server_app.create_app = create_app_with_counters


def _say_build() -> None:
    """Print the CPU features of the llama.cpp build first, so that a crash's report can say
    which kernels the build uses (the parent reads it from the log)."""
    import llama_cpp  # child process only

    info = llama_cpp.llama_print_system_info()
    text = info.decode("utf-8", errors="replace") if isinstance(info, bytes) else str(info)
    print(SYSTEM_INFO_PREFIX + " ".join(text.split()), file=sys.stderr, flush=True)


def _exit_on_sigterm(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)


def serve(argv: list[str], *, fast_grammar: bool = True) -> None:
    """Run ``llama_cpp.server`` with ``argv``, honouring per-request seeds (child process).

    Args:
        argv: the server's command-line arguments.
        fast_grammar: check a grammar on the likely tokens first
            (:mod:`trajguard.local_model._sampling`; the same tokens, sampled faster).
    """
    log_dir = os.environ.pop(LOG_DIR_ENV, None)
    parent_pid = os.getppid()
    _scrub_server_env()
    _say_build()
    try:
        _honour_request_seed()
    except Exception as exc:  # an internal API of llama-cpp-python moved: serve anyway
        print(f"trajguard: per-request seeds not available: {exc!r}", file=sys.stderr)
    if fast_grammar:
        try:
            install_fast_grammar_sampling()
        except Exception as exc:  # an internal API of llama-cpp-python moved: serve anyway
            print(f"trajguard: fast grammar sampling not available: {exc!r}", file=sys.stderr)
    _plain_text_templates()
    _count_work()
    # uvicorn re-raises a SIGTERM after its graceful shutdown; with the default handler that
    # kills the process before the cleanup below, so exit through SystemExit instead.
    signal.signal(signal.SIGTERM, _exit_on_sigterm)
    sys.argv = ["llama_cpp.server", *argv]
    try:
        runpy.run_module("llama_cpp.server", run_name="__main__", alter_sys=True)
    finally:
        # A parent that was SIGKILLed cannot remove the log directory; a live parent still
        # needs it (it reads the log when the server fails to start) and removes it itself.
        if log_dir and os.getppid() != parent_pid and Path(log_dir).name.startswith(LOG_DIR_PREFIX):
            shutil.rmtree(log_dir, ignore_errors=True)


if __name__ == "__main__":
    serve(sys.argv[1:])
