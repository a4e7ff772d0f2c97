"""Two runs' steps aligned by what they did: a sequence alignment on step keys.

Each step has three keys, each finer than the last: its *kind* (its source and the tools it
called, in order), its *calls* (the kind with each call's arguments) and its *content* (the calls
with their results, the step's message and any result joined to no call). Pairing two steps
costs 0 when their contents are equal (the step both runs took), :data:`SAME_CALLS` when only
their results or messages differ, :data:`NEW_ARGUMENTS` when only their kinds are equal (the
same tools called with other arguments); steps of different kinds never pair. Leaving a step
unpaired costs :data:`GAP`, so a changed pair (at most 3) is always cheaper than the two gaps
(4) it replaces. The alignment of least total cost wins; among equals, pairing is preferred,
and within a run of unpaired steps A's come before B's.

The page's script aligns any two runs with the same dynamic programme on the keys computed
here (:func:`step_codes`), so the terminal and the page pair the same steps. Pure: no I/O.
"""

from __future__ import annotations

import json
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

__all__ = [
    "CELL_LIMIT",
    "COSTS",
    "GAP",
    "NEW_ARGUMENTS",
    "SAME_CALLS",
    "AlignedStep",
    "Alignment",
    "StepOp",
    "align_codes",
    "align_steps",
    "step_codes",
    "steps_of",
]

GAP = 2
"""The cost of a step only one run took."""
SAME_CALLS = 1
"""The cost of pairing two steps that called the same tools with the same arguments (or sent
a message from the same source) but whose results or message differ."""
NEW_ARGUMENTS = 3
"""The cost of pairing two steps that called the same tools with other arguments."""
CELL_LIMIT = 4_000_000
"""The largest table (steps of A × steps of B, after their common start and end) aligned by
cost; past it the middle is shown as A's steps then B's, so no input makes the alignment slow."""

COSTS = {"gap": GAP, "same_calls": SAME_CALLS, "new_arguments": NEW_ARGUMENTS, "cells": CELL_LIMIT}
"""The costs and the limit, as the page's script reads them (one owner: this module)."""

StepOp = Literal["same", "changed", "a", "b"]
Code = tuple[Hashable, Hashable, Hashable]


@dataclass(frozen=True)
class AlignedStep:
    """One line of the alignment: a step both runs took (``same``), a pair whose calls or text
    differ (``changed``), or a step only A (``a``) or only B (``b``) took. ``a`` and ``b`` are
    the steps' positions (from 0) in their runs' ``steps``."""

    op: StepOp
    a: int | None
    b: int | None


@dataclass(frozen=True)
class Alignment:
    """Two runs' steps aligned; :attr:`first_divergence` is where they first differ."""

    steps: tuple[AlignedStep, ...]

    @property
    def first_divergence(self) -> int | None:
        """The position in :attr:`steps` of the first line that is not ``same`` (``None``:
        the runs took the same steps)."""
        return next((i for i, s in enumerate(self.steps) if s.op != "same"), None)


def steps_of(trajectory: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """A trajectory's steps (what is not a mapping is left out)."""
    steps = trajectory.get("steps")
    return [s for s in steps or () if isinstance(s, Mapping)] if isinstance(steps, list) else []


def _canonical(value: Any) -> str:
    """JSON with sorted keys: numbers as JSON writes them (``1`` and ``1.0`` differ, as they do
    in the normalised diff)."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)


def _calls(step: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    calls = step.get("tool_calls")
    return [c for c in calls or () if isinstance(c, Mapping)] if isinstance(calls, list) else []


def _results(step: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    observation = step.get("observation")
    results = observation.get("results") if isinstance(observation, Mapping) else None
    return [r for r in results or () if isinstance(r, Mapping)] if isinstance(results, list) else []


def _result(result: Mapping[str, Any]) -> list[Any]:
    extra = result.get("extra")
    return [result.get("content"), extra.get("error") if isinstance(extra, Mapping) else None]


def _name(value: Any) -> Hashable:
    return value if value is None or isinstance(value, str | int | float) else _canonical(value)


def step_code(step: Mapping[str, Any]) -> Code:
    """A step's three keys: kind, calls, content (see the module's description)."""
    calls = _calls(step)
    source = _name(step.get("source"))
    kind = (source, *(_name(c.get("function_name")) for c in calls))
    with_arguments = _canonical(
        [source, [[c.get("function_name"), c.get("arguments")] for c in calls]]
    )
    results = _results(step)
    ids = [c.get("tool_call_id") for c in calls]
    joined = [[_result(r) for r in results if r.get("source_call_id") == i] for i in ids]
    loose = [_result(r) for r in results if r.get("source_call_id") not in ids]
    # the calls' key is a whole JSON value, so what follows it cannot blur into it
    return kind, with_arguments, with_arguments + _canonical([step.get("message"), joined, loose])


def step_codes(steps: Sequence[Mapping[str, Any]]) -> list[Code]:
    """Each step's keys (:func:`step_code`)."""
    return [step_code(s) for s in steps]


def _pair_cost(a: Code, b: Code) -> int | None:
    if a[2] == b[2]:
        return 0
    if a[1] == b[1]:
        return SAME_CALLS
    if a[0] == b[0]:
        return NEW_ARGUMENTS
    return None


def _middle(a: Sequence[Code], b: Sequence[Code], limit: int) -> list[AlignedStep]:
    """The least-cost alignment of two step lists (positions from 0)."""
    n, m = len(a), len(b)
    if n * m > limit:
        return [AlignedStep("a", i, None) for i in range(n)] + [
            AlignedStep("b", None, j) for j in range(m)
        ]
    width = m + 1
    cost = [0] * ((n + 1) * width)
    for j in range(1, m + 1):
        cost[j] = j * GAP
    for i in range(1, n + 1):
        row, above = i * width, (i - 1) * width
        cost[row] = i * GAP
        code = a[i - 1]
        for j in range(1, m + 1):
            best = min(cost[above + j], cost[row + j - 1]) + GAP
            pair = _pair_cost(code, b[j - 1])
            if pair is not None and cost[above + j - 1] + pair <= best:
                best = cost[above + j - 1] + pair
            cost[row + j] = best
    out: list[AlignedStep] = []
    i, j = n, m
    while i > 0 or j > 0:
        here = cost[i * width + j]
        pair = _pair_cost(a[i - 1], b[j - 1]) if i > 0 and j > 0 else None
        if pair is not None and cost[(i - 1) * width + j - 1] + pair == here:
            out.append(AlignedStep("same" if pair == 0 else "changed", i - 1, j - 1))
            i, j = i - 1, j - 1
        elif j > 0 and cost[i * width + j - 1] + GAP == here:
            out.append(AlignedStep("b", None, j - 1))
            j -= 1
        else:
            out.append(AlignedStep("a", i - 1, None))
            i -= 1
    out.reverse()
    return out


def align_codes(
    a: Sequence[Code], b: Sequence[Code], *, limit: int = CELL_LIMIT
) -> tuple[AlignedStep, ...]:
    """The alignment of two runs given their steps' keys: their common start and end as
    ``same``, the middle by least cost (see the module's description); a middle of more than
    ``limit`` cells is shown as its A steps, then its B steps."""
    start = 0
    while start < min(len(a), len(b)) and a[start][2] == b[start][2]:
        start += 1
    end = 0
    while end < min(len(a), len(b)) - start and a[-1 - end][2] == b[-1 - end][2]:
        end += 1
    head = [AlignedStep("same", i, i) for i in range(start)]
    middle = [
        AlignedStep(
            s.op, None if s.a is None else s.a + start, None if s.b is None else s.b + start
        )
        for s in _middle(a[start : len(a) - end], b[start : len(b) - end], limit)
    ]
    tail = [AlignedStep("same", len(a) - end + k, len(b) - end + k) for k in range(end)]
    return (*head, *middle, *tail)


def align_steps(first: Mapping[str, Any], second: Mapping[str, Any]) -> Alignment:
    """Two trajectories' steps aligned by what they did (tools, arguments, results, text)."""
    return Alignment(align_codes(step_codes(steps_of(first)), step_codes(steps_of(second))))
