"""Shape: the comparable summary of one run.

The shape is what tests assert on and what live mode stores per run; the normalised trajectory is
what a person reads. Tool calls, tokens and subagents are counted over the whole tree: the root's
steps first, then each embedded subagent (in normalised order), depth first.

How model calls and tokens are counted (each trajectory of the tree on its own):

* **One response, one call.** Some producers split one model response over several agent steps
  (older claude-code exports write a step per content block: the reasoning, the text, each tool
  call). Consecutive agent steps are parts of one response when they carry the same response id
  in ``extra`` (``message_id``, ``response_id``, ``requestId`` or ``request_id``, the first one
  present), or, in a claude-code export (``agent.name``; its exporter repeats the response's
  usage on every part) when either has none and neither states its ``llm_call_count``, when
  they carry equal ``metrics`` with some tokens. Elsewhere equal usage joins nothing: two calls
  can report it (a scripted model's fixed usage; Harbor's own terminus-2 fixtures). The
  response counts as the calls of its first step (``steps`` holds them there, and 0 on the other
  parts) and its usage is counted once: the largest value of each token field over its parts.
* **A step's calls** are its ``llm_call_count`` when set; otherwise 1 for an agent step, except
  in a trajectory where nothing names a model: no ``model_name`` on its ``agent`` nor on any
  step, and no step with ``metrics`` (an oracle or a scripted agent, which ran no model): there
  an agent step counts 0.
* **Copied context** (``is_copied_context``): steps copied from an earlier trajectory add neither
  model calls, nor tokens, nor tool calls; they were counted where they were made.
* **Tool calls never run.** A tool call marked ``extra.executed: false`` (the run hit its cap
  before the framework ran it) is not in ``tool_calls`` nor ``tool_counts``.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from trajguard.atif import Trajectory
from trajguard.core._calls import Usage, step_calls, usage, was_executed
from trajguard.core.normalize import Normalized, canonical_json, normalize

__all__ = ["Shape", "content_hash", "message_text", "shape", "user_turns"]

_HASH_CHARS = 16


@dataclass(frozen=True)
class Shape:
    """The comparable summary of one run.

    Attributes:
        schema_version: the ATIF version the trajectory was written in.
        step_count: steps of the root trajectory.
        steps: ``(source, model calls)`` per root step, in order (see the module docstring: a
            split response's calls are on its first step; copied context counts 0).
        tool_calls: function names of every executed tool call, in order (copied context left
            out).
        tool_counts: executed calls per function name.
        subagent_count: embedded subagent trajectories, at any depth.
        crashed: the run raised (``extra.crashed`` on the root).
        prompt_tokens: prompt tokens of every model response (each counted once, copied
            context left out).
        completion_tokens: completion tokens, likewise.
        cached_tokens: cached prompt tokens, likewise.
        final_output: text of the last agent step of the root, if any.
        content_hash: SHA-256 prefix of the canonical normalised JSON.
        user_turns: user steps of the root (the user's messages of a conversation).
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
    user_turns: int = 0

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
        call.get("function_name", "")
        for step in all_steps
        if step.get("is_copied_context") is not True
        for call in step.get("tool_calls") or ()
        if was_executed(call)
    )
    agent_steps = [s for s in steps if s.get("source") == "agent"]
    final = message_text(agent_steps[-1].get("message")) if agent_steps else None
    calls = step_calls(steps, agent=tree.get("agent") or {})
    tokens = sum(
        (usage(node.get("steps", []), agent=node.get("agent") or {}) for node in _trees(tree)),
        Usage(),
    )
    return Shape(
        schema_version=str(tree.get("schema_version", "")),
        step_count=len(steps),
        steps=tuple((s.get("source", ""), n) for s, n in zip(steps, calls, strict=True)),
        tool_calls=tools,
        tool_counts=dict(sorted(Counter(tools).items())),
        subagent_count=sum(1 for _ in _subagents(tree)),
        crashed=bool((tree.get("extra") or {}).get("crashed", False)),
        prompt_tokens=tokens.prompt_tokens,
        completion_tokens=tokens.completion_tokens,
        cached_tokens=tokens.cached_tokens,
        final_output=final,
        content_hash=content_hash(tree),
        user_turns=user_turns(steps),
    )


def user_turns(steps: Iterable[Any]) -> int:
    """The user steps among a trajectory's steps (dicts or :class:`~trajguard.atif.Step`)."""
    return sum(
        1
        for step in steps
        if (step.get("source") if isinstance(step, Mapping) else getattr(step, "source", None))
        == "user"
    )


def _trees(tree: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
    yield tree
    yield from _subagents(tree)


def _subagents(tree: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
    for child in tree.get("subagent_trajectories") or ():
        yield child
        yield from _subagents(child)


def _all_steps(tree: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
    yield from tree.get("steps", [])
    for child in tree.get("subagent_trajectories") or ():
        yield from _all_steps(child)
