"""Two runs side by side, step by step: what each step did, in one line, aligned.

Steps are matched by what they did (their source, the tools they called with which arguments,
the results and text): :func:`trajguard.core.align_steps` pairs equal steps, pairs steps that
called the same tools differently as changed, and leaves the rest to one side. Each line says
which run took the step; a changed step shows both versions. Text is folded to one line and
cut. Pure: no I/O, nothing printed.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from trajguard.core._alignment import align_steps, steps_of
from trajguard.core.diff import diff

__all__ = ["FIRST_DIVERGENCE", "aligned_steps", "explain_difference", "step_line"]


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


def _around(text: str, other: str, width: int) -> str:
    """``text`` folded to ``width``, starting a little before where it first differs from
    ``other``: two long texts that differ late show the difference, not their common start."""
    flat, against = " ".join(text.split()), " ".join(other.split())
    common = next(
        (i for i, (x, y) in enumerate(zip(flat, against, strict=False)) if x != y),
        min(len(flat), len(against)),
    )
    start = max(0, common - width // 4)
    return ("…" if start else "") + _fold(flat[start:], width - (1 if start else 0))


def _message(step: Mapping[str, Any]) -> str:
    message = step.get("message")
    if message is None or isinstance(message, str):
        return message or ""
    return json.dumps(message, ensure_ascii=False, default=str)


def _changed_call(call: Mapping[str, Any], other: Mapping[str, Any] | None, width: int) -> str:
    """A call of a changed step with only the arguments that differ from ``other``'s."""
    arguments, theirs = call.get("arguments"), (other or {}).get("arguments")
    if isinstance(arguments, Mapping) and isinstance(theirs, Mapping):
        differ = {k: v for k, v in arguments.items() if k not in theirs or theirs[k] != v}
        same = len(arguments) - len(differ)
        shown = _arguments(differ, width) + (f", … {same} the same" if same else "")
        return f"{call.get('function_name', '?')}({shown.lstrip(', ')})"
    return f"{call.get('function_name', '?')}({_arguments(arguments, width)})"


def _changed_lines(first: Mapping[str, Any], second: Mapping[str, Any], width: int) -> list[str]:
    """A changed pair: what differs, then each side's version of it (``A:``, ``B:``)."""
    what: list[str] = []
    sides: list[list[str]] = [[], []]
    calls = (_calls(first), _calls(second))
    results = (_results(first), _results(second))
    for k in range(max(len(calls[0]), len(calls[1]))):
        pair = [c[k] if k < len(c) else None for c in calls]
        name = str((pair[0] or pair[1] or {}).get("function_name", "?"))
        texts = [
            res.get(str(call.get("tool_call_id")), "") if call else ""
            for res, call in zip(results, pair, strict=True)
        ]
        new_arguments = [p.get("arguments") if p else None for p in pair]
        parts = [
            part
            for part, differs in (
                ("arguments", new_arguments[0] != new_arguments[1]),
                ("result", texts[0] != texts[1]),
            )
            if differs
        ]
        if parts:
            what.append(f"{name}'s {' and '.join(parts)}")
        for side, call in enumerate(pair):
            if call is None:
                continue
            text = _changed_call(call, pair[1 - side], width // 2)
            text += f" → {_around(texts[side], texts[1 - side], width // 2)}"
            sides[side].append(text)
    messages = (_message(first), _message(second))
    if messages[0] != messages[1]:
        what.append("the message")
        for side in (0, 1):
            sides[side].append(repr(_around(messages[side], messages[1 - side], width)))
    source = str(second.get("source", "?"))
    head = f"~ {source}: changed " + (", ".join(what) or "(only in ways not shown)")
    return [
        head,
        *(f"    {label}: " + "; ".join(s) for label, s in zip("AB", sides, strict=True) if s),
    ]


_MARK = {"same": "  ", "a": "- ", "b": "+ "}
FIRST_DIVERGENCE = "◀ first divergence"
"""The mark on the first line where two aligned runs differ."""


def aligned_steps(
    before: Mapping[str, Any],
    after: Mapping[str, Any],
    *,
    width: int = 100,
    max_lines: int = 60,
) -> list[str]:
    """The steps of two normalised trajectories aligned by what they did
    (:func:`trajguard.core.align_steps`): ``  `` a step both took, ``- `` only in ``before``
    (A), ``+ `` only in ``after`` (B), ``~ `` a step both took differently, followed by what
    differs and each side's version (``A:``, ``B:``); the first line that differs is marked
    :data:`FIRST_DIVERGENCE`.

    Longer output is cut at ``max_lines``, with a last line saying how many were left out.
    """
    old, new = steps_of(before), steps_of(after)
    alignment = align_steps(before, after)
    first = alignment.first_divergence
    lines: list[str] = []
    for position, aligned in enumerate(alignment.steps):
        if aligned.op == "changed" and aligned.a is not None and aligned.b is not None:
            block = _changed_lines(old[aligned.a], new[aligned.b], width)
        else:
            step = old[aligned.a] if aligned.a is not None else new[aligned.b or 0]
            block = [_MARK[aligned.op] + step_line(step, width=width)]
        if position == first:
            block[0] += f"  {FIRST_DIVERGENCE}"
        lines.extend(block)
    if len(lines) > max_lines:
        hidden = len(lines) - max_lines
        lines = [*lines[:max_lines], f"… ({hidden} more lines not shown)"]
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
