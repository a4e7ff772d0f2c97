"""What a failed criterion's reason shows of the run: the calls it had, the output it gave."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from trajguard.core.shape import Shape

__all__ = ["calls", "calls_seen", "is_subset", "output_seen"]


def calls(trajectory: Mapping[str, Any], name: str) -> list[Mapping[str, Any]]:
    found: list[Mapping[str, Any]] = []
    stack = [trajectory]
    while stack:
        node = stack.pop()
        for step in node.get("steps", ()):
            found += [c for c in step.get("tool_calls") or () if c.get("function_name") == name]
        stack += node.get("subagent_trajectories") or []
    return found


def is_subset(expected: Any, actual: Any) -> bool:
    if isinstance(expected, Mapping):
        return isinstance(actual, Mapping) and all(
            key in actual and is_subset(value, actual[key]) for key, value in expected.items()
        )
    return bool(expected == actual)


_SEEN_CHARS = 80


def _cut(text: str, limit: int = _SEEN_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def calls_seen(name: str, calls: list[Mapping[str, Any]]) -> str:
    """What the calls of a tool had instead (the first two of them), for a reason."""
    if not calls:
        return f" ({name} was never called)"
    shown = "; ".join(_cut(repr(c.get("arguments"))) for c in calls[:2])
    more = f" and {len(calls) - 2} more" if len(calls) > 2 else ""
    return f" (its {len(calls)} call{'s' if len(calls) > 1 else ''} had {shown}{more})"


def output_seen(shape: Shape) -> str:
    """What the final output was instead, for a reason."""
    if not shape.final_output:
        return " (there was no final output)"
    return f" (it was {_cut(shape.final_output)!r})"
