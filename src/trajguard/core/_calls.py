"""Model calls and token usage of one trajectory's steps (the rules are in :mod:`.shape`).

Works on normalised steps (plain dicts). Each step gets the number of model calls it stands
for; steps that are parts of one model response (a split response) are grouped, the group's
calls are put on its first step, and its usage is counted once.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "REPEATED_USAGE_AGENTS",
    "RESPONSE_ID_KEYS",
    "TOKEN_FIELDS",
    "Usage",
    "step_calls",
    "usage",
    "was_executed",
]

RESPONSE_ID_KEYS = ("message_id", "response_id", "requestId", "request_id")
"""Keys of a step's ``extra`` that name the model response it came from, in that order."""
REPEATED_USAGE_AGENTS = frozenset({"claude-code"})
"""Producers (``agent.name``) whose exports repeat a response's usage on each of its steps.

Equal usage on consecutive steps joins them only there: elsewhere two calls can report equal
usage (a scripted model answers with fixed usage; Harbor's own terminus-2 fixtures do)."""
TOKEN_FIELDS = ("prompt_tokens", "completion_tokens", "cached_tokens")


@dataclass(frozen=True, kw_only=True)
class Usage:
    """Token sums of a trajectory, each response counted once."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
            cached_tokens=self.cached_tokens + other.cached_tokens,
        )


def step_calls(steps: Sequence[Mapping[str, Any]], *, agent: Mapping[str, Any]) -> list[int]:
    """Model calls per step: a split response's calls on its first step, 0 on the rest."""
    counts = [0] * len(steps)
    # nothing names a model (an oracle or a scripted agent): its agent steps made no call
    modelled = bool(agent.get("model_name")) or any(
        s.get("model_name") or s.get("metrics") for s in steps
    )
    for group in _responses(steps, agent=agent):
        counts[group[0]] = max(_own_calls(steps[i], modelled=modelled) for i in group)
    return counts


def usage(steps: Sequence[Mapping[str, Any]], *, agent: Mapping[str, Any]) -> Usage:
    """Token sums over the agent steps: copied context left out, each response's usage once."""
    total = Usage()
    for group in _responses(steps, agent=agent):
        metrics = [steps[i].get("metrics") or {} for i in group]
        # a split response repeats its usage on every part (or, streamed, lets it grow):
        # the largest value of each field is the response's
        total += Usage(**{name: max(_tokens(m, name) for m in metrics) for name in TOKEN_FIELDS})
    return total


def was_executed(call: Mapping[str, Any]) -> bool:
    """False for a tool call marked ``extra.executed: false`` (asked for, never run)."""
    return (call.get("extra") or {}).get("executed") is not False


def _responses(
    steps: Sequence[Mapping[str, Any]], *, agent: Mapping[str, Any]
) -> Iterator[list[int]]:
    """Indices of the agent steps (not copied context) grouped by model response."""
    repeats = agent.get("name") in REPEATED_USAGE_AGENTS
    group: list[int] = []
    for index, step in enumerate(steps):
        if not _is_model_step(step):
            if group:
                yield group
            group = []
            continue
        if group and _same_response(steps[group[-1]], step, repeats=repeats):
            group.append(index)
            continue
        if group:
            yield group
        group = [index]
    if group:
        yield group


def _is_model_step(step: Mapping[str, Any]) -> bool:
    return step.get("source") == "agent" and step.get("is_copied_context") is not True


def _own_calls(step: Mapping[str, Any], *, modelled: bool) -> int:
    count = step.get("llm_call_count")
    if count is not None:
        return int(count)
    return 1 if modelled else 0


def _response_id(step: Mapping[str, Any]) -> str | None:
    extra = step.get("extra") or {}
    for key in RESPONSE_ID_KEYS:
        value = extra.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def _same_response(previous: Mapping[str, Any], step: Mapping[str, Any], *, repeats: bool) -> bool:
    before, now = _response_id(previous), _response_id(step)
    if before is not None and now is not None:
        return before == now
    if not repeats:
        return False
    if step.get("llm_call_count") is not None or previous.get("llm_call_count") is not None:
        return False  # the producer said what each step is (equal usage can be two calls)
    metrics, earlier = step.get("metrics"), previous.get("metrics")
    if not metrics or metrics != earlier:
        return False
    # equal usage with some tokens: the same response, repeated on each part of it
    return any(_tokens(metrics, name) for name in TOKEN_FIELDS)


def _tokens(metrics: Mapping[str, Any], name: str) -> int:
    """A token count (0 when absent); a value that is no count raises ``ValueError``, so a
    broken document (a golden file with ``"prompt_tokens": "x"``) is refused, not read as 0."""
    value = metrics.get(name)
    return int(value or 0)
