"""Two runs side by side, step by step: what each step did, in one line, aligned.

Steps are matched by what they did (their source and the tools they called), not by their
wording, so two runs that took the same path line up even when the model phrased things
differently; text is folded to one line and cut. Pure: no I/O, nothing printed.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Mapping, Sequence
from typing import Any

from trajguard.core.diff import diff

__all__ = ["aligned_steps", "explain_difference", "step_line"]


def _fold(text: object, width: int) -> str:
    flat = " ".join(str(text).split())
    return flat if len(flat) <= width else flat[: max(width - 1, 0)] + "…"


def _arguments(arguments: object, width: int) -> str:
    if isinstance(arguments, Mapping):
        text = ", ".join(
            f"{key}={json.dumps(value, ensure_ascii=False, default=str)}"
            for key, value in arguments.items()
        )
    else:
        text = json.dumps(arguments, ensure_ascii=False, default=str)
    return _fold(text, width)


def _results(step: Mapping[str, Any]) -> dict[str, str]:
    observation = step.get("observation")
    results = observation.get("results") if isinstance(observation, Mapping) else None
    joined: dict[str, str] = {}
    for result in results or ():
        if isinstance(result, Mapping):
            joined[str(result.get("source_call_id"))] = str(result.get("content", ""))
    return joined


def _calls(step: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    calls = step.get("tool_calls")
    return [c for c in calls or () if isinstance(c, Mapping)]


def step_line(step: Mapping[str, Any], *, width: int = 100) -> str:
    """One step in one line: its source, then its tool calls with their arguments and results
    (``get_weather(city="Paris") → 18 °C``), or its message when it called no tool."""
    source = str(step.get("source", "?"))
    calls = _calls(step)
    if not calls:
        return f"{source}: {_fold(step.get('message', ''), width)}"
    results = _results(step)
    parts = []
    for call in calls:
        name = str(call.get("function_name", "?"))
        text = f"{name}({_arguments(call.get('arguments'), width // 2)})"
        result = results.get(str(call.get("tool_call_id")))
        if result is not None:
            text += f" → {_fold(result, width // 2)}"
        parts.append(text)
    return f"{source}: " + "; ".join(parts)


def _key(step: Mapping[str, Any]) -> tuple[str, ...]:
    return (str(step.get("source")), *(str(c.get("function_name")) for c in _calls(step)))


def _steps(trajectory: Mapping[str, Any]) -> Sequence[Mapping[str, Any]]:
    steps = trajectory.get("steps")
    return [s for s in steps or () if isinstance(s, Mapping)]


def aligned_steps(
    before: Mapping[str, Any],
    after: Mapping[str, Any],
    *,
    width: int = 100,
    max_lines: int = 60,
) -> list[str]:
    """The steps of two normalised trajectories aligned by what they did: ``  `` a step both
    took (shown as ``after`` took it), ``- `` only in ``before``, ``+ `` only in ``after``.

    Longer output is cut at ``max_lines``, with a last line saying how many were left out.
    """
    old, new = _steps(before), _steps(after)
    matcher = difflib.SequenceMatcher(a=[_key(s) for s in old], b=[_key(s) for s in new])
    lines: list[str] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            lines.extend(f"  {step_line(s, width=width)}" for s in new[j1:j2])
            continue
        lines.extend(f"- {step_line(s, width=width)}" for s in old[i1:i2])
        lines.extend(f"+ {step_line(s, width=width)}" for s in new[j1:j2])
    if len(lines) > max_lines:
        hidden = len(lines) - max_lines
        lines = [*lines[:max_lines], f"… ({hidden} more steps not shown)"]
    return lines


def explain_difference(
    before: Mapping[str, Any],
    after: Mapping[str, Any],
    *,
    width: int = 100,
    max_lines: int = 60,
) -> list[str]:
    """How ``after`` differs from ``before`` (normalised trajectories): the shape deltas first
    (structure, then tokens; neither wording nor the ATIF version is compared), then the steps
    aligned. Empty when the two took the same path with the same tokens."""
    deltas = [str(d) for d in diff(before, after, compare_content=False) if d.kind != "schema"]
    if not deltas:
        return []
    return [*deltas, *aligned_steps(before, after, width=width, max_lines=max_lines)]
