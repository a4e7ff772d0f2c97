"""What to say when the embedded model's server process dies, and how to tell it is alive.

A llama.cpp build compiled for the build machine's own CPU (``GGML_NATIVE``, the default of a
source build) uses that CPU's widest kernels; on some CPUs they crash (AMX matrix kernels on
Sapphire Rapids class Xeons segfault at the first prompt of more than one token). The server
then dies on every request, so "unreachable … rerun" is the wrong diagnosis: the message names
the signal, the last lines of the server's log and the CPU features of the build, and the hint
gives the install command of the portable build.
"""

from __future__ import annotations

import re
import signal

from trajguard.errors import EmbeddedModelCrashed
from trajguard.local_model._constants import (
    INSTALL_HINT,
    PORTABLE_REINSTALL,
    SYSTEM_INFO_PREFIX,
)

__all__ = ["build_features", "crash_error", "how_it_died"]

_LOG_LINES = 12
_NATIVE_ONLY = ("AVX512", "AMX", "AVX_VNNI", "SVE", "SME")
"""CPU features the portable x86-64 and ARM64 builds never use: a build that reports one of
them was compiled for its build machine's CPU."""


def how_it_died(returncode: int) -> str:
    """``returncode`` of a finished process in words: a signal by name, or an exit code."""
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = "an unknown signal"
        return f"was killed by {name} (signal {-returncode})"
    if returncode > 128:  # a shell's report of a signal (128 + N), e.g. 139 for SIGSEGV
        try:
            return f"exited with code {returncode} ({signal.Signals(returncode - 128).name})"
        except ValueError:
            pass
    return f"exited with code {returncode}"


def build_features(log: str) -> str | None:
    """The CPU features the server's llama.cpp build reported at start (the line its wrapper
    prints, :data:`SYSTEM_INFO_PREFIX`), or ``None`` when it died before printing it."""
    for line in log.splitlines():
        if line.startswith(SYSTEM_INFO_PREFIX):
            return line.removeprefix(SYSTEM_INFO_PREFIX).strip()
    return None


def _enabled(features: str) -> list[str]:
    return re.findall(r"([A-Z0-9_]+) = 1", features)


def crash_error(*, pid: int | None, returncode: int, during: str, log: str) -> EmbeddedModelCrashed:
    """The error for a server process that died while ``during`` (e.g. "answering a request").

    Args:
        pid: the dead process's id, if known.
        returncode: its ``Popen.returncode``.
        during: what it was doing, as a phrase.
        log: the text of its log (stdout and stderr), whole or its tail.
    """
    features = build_features(log)
    native = [name for name in _enabled(features or "") if name.startswith(_NATIVE_ONLY)]
    said = [line for line in log.splitlines() if line.strip()]
    tail = [line for line in said if not line.startswith(SYSTEM_INFO_PREFIX)][-_LOG_LINES:]
    who = "the embedded model server" + (f" (pid {pid})" if pid is not None else "")
    lines = [
        f"{who} {how_it_died(returncode)} while {during}: its process died, so every request "
        "would fail the same way (this is not a network failure, and a rerun will not help)",
        f"llama.cpp build: {features}" if features else "llama.cpp build: (died before it said)",
        "server log (last lines):",
        *(f"  {line}" for line in tail or ["(empty)"]),
    ]
    if returncode >= 0 and returncode <= 128:  # it exited by itself: its log says why
        hint = f"see the server log above (a broken model file or package?); run {INSTALL_HINT}"
        return EmbeddedModelCrashed("\n".join(lines), hint=hint)
    if native:
        cause = (
            f"this llama.cpp build was compiled for its build machine's CPU and uses "
            f"{', '.join(native)} kernels, which crash on some CPUs"
        )
    else:
        cause = "the llama.cpp build may not match this CPU"
    hint = (
        f"{cause}: reinstall the portable build with {PORTABLE_REINSTALL} "
        "(then resume an interrupted batch), or use another --model"
    )
    return EmbeddedModelCrashed("\n".join(lines), hint=hint)
