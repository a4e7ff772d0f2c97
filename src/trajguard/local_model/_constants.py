"""Names and paths of the embedded model, shared by the parent and the server process."""

from __future__ import annotations

__all__ = [
    "COUNTERS_PATH",
    "INSTALL_HINT",
    "LOG_DIR_ENV",
    "LOG_DIR_PREFIX",
    "LOG_TAIL_CHARS",
    "MODEL_STRING",
    "PR_SET_PDEATHSIG",
    "SERVED_MODEL_NAME",
    "SERVER_MODULES",
]

MODEL_STRING = "local/smollm2"
"""The model string of the embedded default model."""

SERVED_MODEL_NAME = "smollm2"
"""The name the server reports for the model (``--model_alias``); stable across machines."""

INSTALL_HINT = "pip install 'trajguard[local]'"

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

COUNTERS_PATH = "/trajguard/counters"
"""Where a server reports what it computed (``LocalModelServer.counters``)."""
