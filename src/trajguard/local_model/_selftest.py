"""The embedded model's start-up self-test: one real chat request with tools.

A server that answers ``/v1/models`` and a one-token completion can still die at the first
prompt of more than one token (a llama.cpp build whose matrix kernels crash on this CPU only
runs them for batches of tokens). The self-test sends what a run sends — a system prompt, a
question and a tool, so the prompt is hundreds of tokens and the chat format's grammar is
used — and waits for the answer, so a broken build fails in seconds, before the first run.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

from trajguard.local_model._constants import SERVED_MODEL_NAME

__all__ = ["SELF_TEST_TIMEOUT_S", "SelfTestFailed", "send_self_test"]

SELF_TEST_TIMEOUT_S = 300.0
"""How long the self-test's request may take: generous, since a loaded machine is slow and
only a dead or hung server should fail it (a dead one fails at once)."""

_TOOL = {
    "type": "function",
    "function": {
        "name": "calculator",
        "description": "Evaluate an arithmetic expression and return the result as a number.",
        "parameters": {
            "type": "object",
            "properties": {"expression": {"type": "string", "description": "e.g. 12 * 7"}},
            "required": ["expression"],
        },
    },
}

_REQUEST: dict[str, Any] = {
    "model": SERVED_MODEL_NAME,
    "messages": [
        {
            "role": "system",
            "content": "You are a careful assistant. Use the calculator tool for arithmetic, "
            "then answer in one short sentence.",
        },
        {"role": "user", "content": "What is 12 times 7? Use the calculator."},
    ],
    "tools": [_TOOL],
    "tool_choice": "auto",
    "max_tokens": 2,
    "temperature": 0.0,
    "seed": 0,
}


class SelfTestFailed(Exception):
    """The self-test got no completion (the caller checks whether the process died)."""


def send_self_test(base_url: str, *, timeout_s: float = SELF_TEST_TIMEOUT_S) -> int:
    """Send the self-test request to ``base_url`` (``http://HOST:PORT/v1``).

    Returns:
        The number of prompt tokens the server evaluated (always more than one).

    Raises:
        SelfTestFailed: no completion came back (connection cut, HTTP error, bad JSON, timeout).
    """
    request = urllib.request.Request(  # noqa: S310 - http on loopback
        f"{base_url}/chat/completions",
        data=json.dumps(_REQUEST).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout_s) as reply:  # noqa: S310
            body = json.loads(reply.read())
    except (urllib.error.URLError, OSError, ValueError) as exc:
        raise SelfTestFailed(f"{type(exc).__name__}: {exc}") from None
    if not isinstance(body, dict) or not body.get("choices"):
        raise SelfTestFailed(f"the answer has no choices: {str(body)[:200]}")
    usage = body.get("usage") or {}
    return int(usage.get("prompt_tokens") or 0)
