"""The ATIF trajectory of one promptfoo row: one model call, the rendered prompt and the reply."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from trajguard._json import loads_bounded
from trajguard.atif import Agent, Metrics, Step, ToolCall, Trajectory

__all__ = ["canonical", "number", "one_call"]


def one_call(
    row: Mapping[str, Any],
    response: Mapping[str, Any],
    *,
    model: str,
    version: str,
    usage: tuple[int | None, int | None],
) -> Trajectory:
    """The run's trajectory: the prompt's steps, then one agent step with the provider's output
    and its token usage (``usage``: prompt and completion tokens, as promptfoo counted them)."""
    prompt = row.get("prompt")
    raw = prompt.get("raw") if isinstance(prompt, dict) else None
    steps = _prompt_steps(raw if isinstance(raw, str) else "")
    output = response.get("output")
    tool_calls = _tool_calls(output)
    message = "" if tool_calls else output if isinstance(output, str) else canonical(output)
    usage_dict = response.get("tokenUsage")
    cached = usage_dict.get("cached") if isinstance(usage_dict, dict) else None
    metrics = None
    if usage != (None, None):
        metrics = Metrics(
            prompt_tokens=usage[0],
            completion_tokens=usage[1],
            cached_tokens=cached if isinstance(cached, int) else None,
            cost_usd=number(response.get("cost")),
        )
    steps.append(
        Step(
            step_id=len(steps) + 1,
            source="agent",
            model_name=model,
            message=message,
            tool_calls=tool_calls or None,
            metrics=metrics,
        )
    )
    return Trajectory(
        session_id=str(row.get("id") or "") or None,
        agent=Agent(name="promptfoo", version=version, model_name=model),
        steps=steps,
    )


def _prompt_steps(raw: str) -> list[Step]:
    """The rendered prompt: a chat array promptfoo sends as messages, else one user message."""
    messages = _chat(raw)
    if messages is None:
        return [Step(step_id=1, source="user", message=raw)]
    steps: list[Step] = []
    for message in messages:
        role, content = message["role"], message["content"]
        text = content if isinstance(content, str) else canonical(content)
        if role == "assistant":
            steps.append(
                Step(step_id=len(steps) + 1, source="agent", message=text, is_copied_context=True)
            )
        else:
            source = "system" if role in ("system", "developer") else "user"
            steps.append(Step(step_id=len(steps) + 1, source=source, message=text))
    return steps


def _chat(raw: str) -> list[dict[str, Any]] | None:
    if not raw.lstrip().startswith("["):
        return None
    try:
        value = loads_bounded(raw)
    except ValueError:  # not JSON, or nested too deep: the prompt is kept as text
        return None
    if not isinstance(value, list) or not value:
        return None
    if all(isinstance(m, dict) and isinstance(m.get("role"), str) for m in value):
        return [{"role": m["role"], "content": m.get("content", "")} for m in value]
    return None


def _tool_calls(output: object) -> list[ToolCall]:
    """OpenAI-style tool calls, when promptfoo's output is the message's ``tool_calls``."""
    calls = output if isinstance(output, list) else None
    if isinstance(output, dict) and isinstance(output.get("tool_calls"), list):
        calls = output["tool_calls"]
    if not calls:
        return []
    found = []
    for k, call in enumerate(calls):
        function = call.get("function") if isinstance(call, dict) else None
        if not isinstance(function, dict) or not isinstance(function.get("name"), str):
            return []
        arguments = function.get("arguments")
        if isinstance(arguments, str):
            try:
                arguments = loads_bounded(arguments)
            except ValueError:  # not JSON, or nested too deep: kept as the text it is
                arguments = {"arguments": arguments}
        found.append(
            ToolCall(
                tool_call_id=str(call.get("id") or f"call-{k}"),
                function_name=function["name"],
                arguments=arguments if isinstance(arguments, dict) else {"arguments": arguments},
            )
        )
    return found


def canonical(value: object) -> str:
    """``value`` as JSON text, keys sorted (the same value gives the same text)."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)


def number(value: object) -> float | None:
    """A JSON number as a float (``None`` for anything else, booleans included)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)
