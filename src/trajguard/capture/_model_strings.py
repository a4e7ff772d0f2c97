"""What is wrong with a model string, found before any call: an empty string, the embedded
model with an endpoint, or a string naming no provider litellm knows (``local/smollm3``), with
a "did you mean".

The provider is litellm's own answer (``get_llm_provider``, the lookup its calls make), asked
without a network call and without touching litellm's settings.
"""

from __future__ import annotations

import contextlib
import difflib
import io
from typing import Any

from trajguard.local_model import MODEL_STRING, is_local_model

__all__ = ["MODEL_EXAMPLES", "model_problem"]

MODEL_EXAMPLES = "local/smollm2, ollama_chat/qwen2.5:1.5b, openai/gpt-4o-mini"
"""Model strings to show someone who gave one that does not work."""


def model_problem(model: str, api_base: str | None, *, provider: bool = True) -> str | None:
    """What is wrong with a model string and endpoint, or ``None``: the checks
    :class:`~trajguard.capture.LiteLLMModel` makes, and — unless ``provider`` is false —
    that litellm knows the string's provider (this imports litellm, about 3 s, unless the string
    is the embedded model's).

    Args:
        model: a litellm model string, or ``local/smollm2``.
        api_base: the endpoint configured with it, if any.
        provider: also ask litellm for the provider.
    """
    if not model.strip():
        return "model must be a non-empty litellm model string"
    if is_local_model(model):
        if api_base is not None:
            return f"{MODEL_STRING} runs its own server; do not pass api_base"
        return None
    if not provider or _provider(model, api_base) is not None:
        return None
    return _no_provider(model)


def _provider(model: str, api_base: str | None) -> str | None:
    """The provider litellm would call for ``model`` (and ``api_base``), or ``None``."""
    from litellm.litellm_core_utils import get_llm_provider_logic as logic

    # A provider that logs in when asked about (github_copilot, chatgpt) is taken as declared:
    # the lookup would start its sign-in.
    declared = getattr(logic, "declared_authenticating_provider", None)
    if declared is not None and declared(model) is not None:
        return str(declared(model))
    # The lookup prints a coloured "Provider List" line to stdout on a miss unless litellm's
    # global suppress_debug_info is set, which belongs to the user: its output is caught here.
    with contextlib.redirect_stdout(io.StringIO()):
        try:
            found: Any = logic.get_llm_provider(model, api_base=api_base)
        except Exception:  # litellm raises its BadRequestError (and others) for no provider
            return None
    return str(found[1]) if found[1] else None


def _no_provider(model: str) -> str:
    """The refusal of a string naming no provider, with the string it is closest to."""
    import litellm

    text = model.strip()
    prefix, slash, name = text.partition("/")
    guess: str | None = None
    if difflib.SequenceMatcher(None, text.lower(), MODEL_STRING).ratio() >= 0.8 or (
        slash and prefix.lower() == MODEL_STRING.partition("/")[0]
    ):
        guess = f"{MODEL_STRING!r} (the embedded model)"
    elif slash:
        providers = sorted(str(getattr(p, "value", p)) for p in litellm.provider_list)
        close = difflib.get_close_matches(prefix.lower(), providers, n=1)
        guess = f"'{close[0]}/{name}'" if close else None
    said = f"model {text!r} names no provider litellm knows"
    if guess is not None:
        return f"{said}; did you mean {guess}?"
    return f"{said}; write provider/model, e.g. {MODEL_EXAMPLES}"
