"""Shape: the comparable summary of one run.

The shape is what tests assert on and what live mode stores per run; the normalised trajectory is
what a person reads. Tool calls, tokens and subagents are counted over the whole tree: the root's
steps first, then each embedded subagent (in normalised order), depth first.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from trajguard.atif import Trajectory
from trajguard.core.normalize import Normalized, canonical_json, normalize

__all__ = ["Shape", "content_hash", "message_text", "shape"]

_HASH_CHARS = 16


@dataclass(frozen=True)
class Shape:
    """The comparable summary of one run.

    Attributes:
        schema_version: the ATIF version the trajectory was written in.
        step_count: steps of the root trajectory.
        steps: ``(source, llm_call_count)`` per root step, in order; a step copied from an
            earlier trajectory (``is_copied_context``) counts 0 calls: its call was made there.
        tool_calls: function names of every tool call, in order.
        tool_counts: calls per function name.
        subagent_count: embedded subagent trajectories, at any depth.
        crashed: the run raised (``extra.crashed`` on the root).
        prompt_tokens: prompt tokens summed over every step's metrics.
        completion_tokens: completion tokens, likewise.
        cached_tokens: cached prompt tokens, likewise.
        final_output: text of the last agent step of the root, if any.
        content_hash: SHA-256 prefix of the canonical normalised JSON.
    """

    schema_version: str
    step_count: int
    steps: tuple[tuple[str, int], ...]
    tool_calls: tuple[str, ...]
    tool_counts: Mapping[str, int] = field(hash=False)
    subagent_count: int
    crashed: bool
    prompt_tokens: int
    completion_tokens: int
    cached_tokens: int
    final_output: str | None
    content_hash: str

    @property
    def llm_calls(self) -> int:
        """Model calls made by the root trajectory."""
        return sum(count for source, count in self.steps if source == "agent")

    @property
    def total_tokens(self) -> int:
        """Prompt plus completion tokens."""
        return self.prompt_tokens + self.completion_tokens


def content_hash(normalized: Mapping[str, Any]) -> str:
    """SHA-256 prefix (16 hex chars) of the canonical JSON of a normalised trajectory."""
    digest = hashlib.sha256(canonical_json(normalized).encode("utf-8")).hexdigest()
    return digest[:_HASH_CHARS]


def message_text(message: Any) -> str:
    """The text of an ATIF message: a string, or the text parts of a content-part list."""
    if isinstance(message, str):
        return message
    if isinstance(message, list):
        texts = (part.get("text") for part in message if isinstance(part, Mapping))
        return "".join(text for text in texts if isinstance(text, str))
    return ""


def shape(trajectory: Trajectory | Mapping[str, Any]) -> Shape:
    """The :class:`Shape` of a trajectory, a dict form of one, or a normalised trajectory."""
    tree = trajectory if isinstance(trajectory, Normalized) else normalize(trajectory)
    steps = tree.get("steps", [])
    all_steps = list(_all_steps(tree))
    tools = tuple(
        call.get("function_name", "") for step in all_steps for call in step.get("tool_calls") or ()
    )
    agent_steps = [s for s in steps if s.get("source") == "agent"]
    final = message_text(agent_steps[-1].get("message")) if agent_steps else None
    return Shape(
        schema_version=str(tree.get("schema_version", "")),
        step_count=len(steps),
        steps=tuple((s.get("source", ""), _llm_calls(s)) for s in steps),
        tool_calls=tools,
        tool_counts=dict(sorted(Counter(tools).items())),
        subagent_count=sum(1 for _ in _subagents(tree)),
        crashed=bool((tree.get("extra") or {}).get("crashed", False)),
        prompt_tokens=_token_sum(all_steps, "prompt_tokens"),
        completion_tokens=_token_sum(all_steps, "completion_tokens"),
        cached_tokens=_token_sum(all_steps, "cached_tokens"),
        final_output=final,
        content_hash=content_hash(tree),
    )


def _llm_calls(step: Mapping[str, Any]) -> int:
    if step.get("is_copied_context") is True:
        return 0
    count = step.get("llm_call_count")
    if count is not None:
        return int(count)
    return 1 if step.get("source") == "agent" else 0


def _subagents(tree: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
    for child in tree.get("subagent_trajectories") or ():
        yield child
        yield from _subagents(child)


def _all_steps(tree: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
    yield from tree.get("steps", [])
    for child in tree.get("subagent_trajectories") or ():
        yield from _all_steps(child)


def _token_sum(steps: list[Mapping[str, Any]], field_name: str) -> int:
    return sum(int((s.get("metrics") or {}).get(field_name) or 0) for s in steps)
