"""Names and paths of the embedded model, shared by the parent and the server process."""

from __future__ import annotations

__all__ = [
    "COUNTERS_PATH",
    "INSTALL_HINT",
    "LOG_DIR_ENV",
    "LOG_DIR_PREFIX",
    "LOG_TAIL_CHARS",
    "MODEL_STRING",
    "PORTABLE_BUILD",
    "PORTABLE_REINSTALL",
    "PR_SET_PDEATHSIG",
    "SERVED_MODEL_NAME",
    "SERVER_MODULES",
    "SYSTEM_INFO_PREFIX",
]

MODEL_STRING = "local/smollm2"
"""The model string of the embedded default model."""

SERVED_MODEL_NAME = "smollm2"
"""The name the server reports for the model (``--model_alias``); stable across machines."""

PORTABLE_BUILD = 'CMAKE_ARGS="-DGGML_NATIVE=OFF"'
"""What makes pip compile llama.cpp for any CPU of its architecture instead of the build
machine's own (docs/explanation/architecture.md says why; PyPI has no llama-cpp-python wheels)."""

INSTALL_HINT = f"{PORTABLE_BUILD} pip install 'trajguard[local]'"

PORTABLE_REINSTALL = (
    f"{PORTABLE_BUILD} pip install --force-reinstall --no-cache-dir --no-deps llama-cpp-python"
)
"""Replaces a llama.cpp build compiled for another CPU (``--no-cache-dir``: pip's wheel cache
would hand back the same build)."""

# llama_cpp.server imports these at startup; the [server] extra installs them. They are checked
# by name only: importing llama_cpp would load the native library into this process for nothing.
SERVER_MODULES = (
    "llama_cpp",
    "uvicorn",
    "fastapi",
    "sse_starlette",
    "starlette_context",
    "pydantic_settings",
)

PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>
LOG_DIR_PREFIX = "trajguard-llama-"
LOG_DIR_ENV = "TRAJGUARD_LLAMA_LOG_DIR"
LOG_TAIL_CHARS = 2000

SYSTEM_INFO_PREFIX = "trajguard: llama.cpp system info: "
"""How the server's first log line starts: the CPU features of its llama.cpp build."""

COUNTERS_PATH = "/trajguard/counters"
"""Where a server reports what it computed (``LocalModelServer.counters``)."""
