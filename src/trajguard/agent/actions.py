"""JSON-constrained actions: the action schema, its prompt, and parsing the model's reply.

In ``json`` mode the model answers every turn with one JSON object: ``{"tool": <tool name>,
"arguments": {...}}`` to call a tool, or ``{"tool": "final_answer", "answer": "..."}`` to finish.
The schema is sent as ``response_format={"type": "json_object", "schema": ...}``, the form the
llama.cpp server turns into a sampling grammar. It is a union with one branch per action whose
action key is a ``const`` and whose ``arguments`` is that tool's own parameter schema: the set of
action values is the enum of tool names plus ``final_answer``, and once a small model has picked a
tool the grammar also makes it write that tool's argument names, so its noise is in which tool and
which values, not in invented keys. Providers that do not enforce the schema still get a reply to
parse; whatever fails to parse is reported back to the model.

The action key is ``tool``, not ``action``: measured on SmolLM2-135M (12 seeded samples per
cell, the demo calculator and weather tools), after ``{"action": "`` the model wrote
``get_weather`` for "What is 17 * 23?" 12 times in 12, while after ``{"tool": "`` it chose
``calculator`` 9 times in 12 and still chose ``get_weather`` for a weather question. A reply that
uses ``action`` (a model not held to the schema) is accepted too.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from trajguard._json import loads_bounded
from trajguard.agent.tools import Tool

__all__ = [
    "ACTION_KEY",
    "FINAL_ANSWER",
    "Action",
    "MalformedAction",
    "action_instructions",
    "action_schema",
    "final_text",
    "parse_action",
]

FINAL_ANSWER = "final_answer"
"""The action that ends the run with an answer."""

ACTION_KEY = "tool"
"""The key whose value names the action (a tool name or :data:`FINAL_ANSWER`)."""

_FENCE = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.DOTALL)


class MalformedAction(ValueError):
    """The reply is not a JSON action; ``str()`` says why, for the model to read."""


@dataclass(frozen=True)
class Action:
    """One parsed reply.

    Attributes:
        name: a tool name (possibly unknown) or :data:`FINAL_ANSWER`.
        arguments: the ``arguments`` value as the model wrote it (normally an object).
        answer: the answer text for :data:`FINAL_ANSWER`, else ``None``.
    """

    name: str
    arguments: Any = None
    answer: str | None = None


def action_schema(tools: Sequence[Tool]) -> dict[str, Any]:
    """The JSON schema of one action: one branch per tool, plus :data:`FINAL_ANSWER`."""
    branches: list[dict[str, Any]] = [
        {
            "type": "object",
            "properties": {ACTION_KEY: {"const": t.name}, "arguments": t.parameters},
            "required": [ACTION_KEY, "arguments"],
        }
        for t in tools
    ]
    branches.append(
        {
            "type": "object",
            "properties": {ACTION_KEY: {"const": FINAL_ANSWER}, "answer": {"type": "string"}},
            "required": [ACTION_KEY, "answer"],
        }
    )
    return {"anyOf": branches}


def action_instructions(tools: Sequence[Tool]) -> str:
    """The system-prompt section that lists the tools and the reply format.

    The wording avoids quotes and angle brackets: llama-cpp-python's function-calling chat
    template HTML-escapes message text, so ``"`` would reach the model as ``&#34;``.
    """
    lines = ["You can use these tools:"]
    lines += [f"- {t.signature()}: {t.description}".rstrip(": ") for t in tools]
    if not tools:
        lines = ["You have no tools."]
    lines.append(
        f"\nReply with one JSON object. To use a tool, set {ACTION_KEY} to the tool name and give "
        f"its arguments. When you know the answer, set {ACTION_KEY} to {FINAL_ANSWER} and write "
        "the answer in answer."
    )
    return "\n".join(lines)


def parse_action(text: str) -> Action:
    """Parse a reply into an :class:`Action` (tool names are not checked here).

    Raises:
        MalformedAction: not a JSON object, no string ``action``, or a final answer without an
            ``answer``.
    """
    body = text.strip()
    fenced = _FENCE.match(body)
    if fenced:
        body = fenced.group(1)
    if not body:
        raise MalformedAction("the reply was empty")
    try:
        # strict=False: a raw newline inside a string is a small model's typo, not a new meaning
        data = loads_bounded(body, strict=False)
    except json.JSONDecodeError as exc:
        raise MalformedAction(
            f"the reply is not valid JSON ({exc.msg} at column {exc.colno})"
        ) from None
    except ValueError as exc:  # nested too deep (a model can answer anything), a huge number
        raise MalformedAction(f"the reply is not readable JSON ({exc})") from None
    if not isinstance(data, dict):
        raise MalformedAction(f"the reply is a JSON {type(data).__name__}, not an object")
    name = data.get(ACTION_KEY, data.get("action"))
    if not isinstance(name, str) or not name:
        raise MalformedAction(f"the reply has no {ACTION_KEY} (a tool name or {FINAL_ANSWER})")
    if name == FINAL_ANSWER:
        answer = data.get("answer")
        if answer is None:
            raise MalformedAction(f"{FINAL_ANSWER} needs an answer")
        return Action(name=name, answer=answer if isinstance(answer, str) else json.dumps(answer))
    return Action(name=name, arguments=data.get("arguments", {}))


def final_text(text: str) -> str:
    """The answer in a reply to the final, unconstrained call.

    A model that kept to the JSON format answers ``{"tool": "final_answer", "answer": ...}``;
    its answer is taken. Any other reply is the answer as it stands.
    """
    try:
        action = parse_action(text)
    except MalformedAction:
        return text
    return action.answer if action.name == FINAL_ANSWER and action.answer is not None else text
