"""Compare two runs: shape deltas (structure first, content hash last) and a readable text diff."""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from trajguard.atif import Trajectory
from trajguard.core.normalize import canonical_json
from trajguard.core.shape import Shape, shape

__all__ = ["Delta", "diff", "render_diff"]

DeltaKind = Literal["schema", "structure", "tokens", "content"]

_STRUCTURE = ("step_count", "steps", "tool_calls", "tool_counts", "subagent_count", "crashed")
_TOKENS = ("prompt_tokens", "completion_tokens", "cached_tokens")


@dataclass(frozen=True)
class Delta:
    """One field that differs between the golden run and the actual run."""

    field: str
    golden: Any
    actual: Any
    kind: DeltaKind

    def __str__(self) -> str:
        if self.field == "steps":
            return f"steps: {_steps(self.golden)} → {_steps(self.actual)}"
        if self.field == "tool_counts":
            return f"tool_counts: {_counts_change(self.golden, self.actual)}"
        if self.field == "content_hash":
            return (
                f"content_hash: {self.golden} → {self.actual} "
                "(something besides the fields above changed: see the diff)"
            )
        return f"{self.field}: {_short(self.golden)} → {_short(self.actual)}"


def _steps(steps: tuple[tuple[str, int], ...]) -> str:
    """Each step's source, with its model calls where they are not the usual (one per agent
    step, none for the others): ``[system, user, agent, agent (2 model calls)]``."""
    shown = []
    for source, calls in steps:
        usual = 1 if source == "agent" else 0
        shown.append(source if calls == usual else f"{source} ({calls} model calls)")
    text = f"[{', '.join(shown)}]"
    return text if len(text) <= 160 else text[:157] + "..."


def _short(value: Any) -> str:
    if isinstance(value, tuple):
        inner = ", ".join(f"{v[0]}×{v[1]}" if isinstance(v, tuple) else str(v) for v in value)
        text = f"[{inner}]"
    else:
        text = repr(value)
    return text if len(text) <= 160 else text[:157] + "..."


def _counts_change(golden: Mapping[str, int], actual: Mapping[str, int]) -> str:
    parts = []
    for name in sorted(set(golden) | set(actual)):
        before, after = golden.get(name, 0), actual.get(name, 0)
        if before != after:
            parts.append(f"{name} ×{before} → ×{after}")
    return ", ".join(parts)


def _as_shape(value: Shape | Trajectory | Mapping[str, Any]) -> Shape:
    return value if isinstance(value, Shape) else shape(value)


def diff(
    golden: Shape | Trajectory | Mapping[str, Any],
    actual: Shape | Trajectory | Mapping[str, Any],
    *,
    token_tolerance: float = 0.0,
    compare_content: bool = True,
) -> list[Delta]:
    """The fields that differ, structural ones first and ``content_hash`` last.

    Args:
        golden: the expected run (a shape, a trajectory, or a normalised dict).
        actual: the run under test.
        token_tolerance: relative slack for token counts (0.15 allows ±15 % of the golden).
        compare_content: also compare the final output and the content hash; switch it off
            against a live model, whose wording varies.

    Returns:
        An empty list when the runs match.

    Raises:
        ValueError: ``token_tolerance`` is negative or NaN.
    """
    if not token_tolerance >= 0:  # also catches NaN, which would let every token change pass
        raise ValueError(f"token_tolerance must be 0 or more, got {token_tolerance!r}")
    before, after = _as_shape(golden), _as_shape(actual)
    deltas: list[Delta] = []
    if before.schema_version != after.schema_version:
        deltas.append(
            Delta("schema_version", before.schema_version, after.schema_version, "schema")
        )
    for name in _STRUCTURE:
        a, b = getattr(before, name), getattr(after, name)
        if a != b:
            deltas.append(Delta(name, a, b, "structure"))
    for name in _TOKENS:
        a, b = getattr(before, name), getattr(after, name)
        if abs(b - a) > token_tolerance * a:
            deltas.append(Delta(name, a, b, "tokens"))
    if compare_content:
        if before.final_output != after.final_output:
            deltas.append(Delta("final_output", before.final_output, after.final_output, "content"))
        if before.content_hash != after.content_hash:
            deltas.append(Delta("content_hash", before.content_hash, after.content_hash, "content"))
    return deltas


def render_diff(
    golden: Mapping[str, Any],
    actual: Mapping[str, Any],
    *,
    context: int = 3,
    max_lines: int = 120,
    golden_name: str = "golden",
    actual_name: str = "actual",
) -> str:
    """Unified diff of the pretty-printed canonical JSON of two normalised trajectories.

    Output longer than ``max_lines`` is cut, with a note of how many lines were left out.
    """
    before = canonical_json(golden, indent=2).splitlines(keepends=True)
    after = canonical_json(actual, indent=2).splitlines(keepends=True)
    lines = [
        line if line.endswith("\n") else line + "\n"
        for line in difflib.unified_diff(
            before, after, fromfile=golden_name, tofile=actual_name, n=context
        )
    ]
    if len(lines) > max_lines:
        hidden = len(lines) - max_lines
        lines = [*lines[:max_lines], f"... ({hidden} more diff lines not shown)\n"]
    return "".join(lines)
