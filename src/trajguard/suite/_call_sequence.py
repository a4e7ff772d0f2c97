"""The tool calls a run made against a ``tool_sequence`` criterion's expected calls, in one of
agentevals' match modes (:mod:`._path_criteria` has the modes; :mod:`._matchers` the argument
matchers). ``superset``, ``subset`` and ``unordered`` pair calls with entries by a maximum
matching, so an entry that fits several calls never takes the one another entry needs."""

from __future__ import annotations

import collections
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from trajguard.core import was_executed
from trajguard.suite._matchers import argument_problem, arguments_match, check_matcher

__all__ = ["CallSpec", "Strict", "executed_calls", "sequence_outcome", "short"]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class CallSpec(Strict):
    """One expected tool call."""

    name: str = Field(min_length=1)
    arguments: dict[str, Any] | None = None
    """Argument name → expected value or matcher; ``None``: the arguments are not looked at."""
    strict_arguments: bool = False
    """The call may have no argument besides those named in ``arguments``."""

    @field_validator("arguments")
    @classmethod
    def _matchers_are_valid(cls, arguments: dict[str, Any] | None) -> dict[str, Any] | None:
        for name, expected in (arguments or {}).items():
            try:
                check_matcher(expected)
            except ValueError as exc:
                raise ValueError(f"argument {name!r}: {exc}") from None
        return arguments

    @model_validator(mode="after")
    def _strict_needs_arguments(self) -> CallSpec:
        if self.strict_arguments and self.arguments is None:
            raise ValueError("strict_arguments needs arguments: name every argument the call has")
        return self

    def shown(self) -> str:
        return self.name if self.arguments is None else f"{self.name}({short(self.arguments)})"


def executed_calls(trajectory: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """The executed tool calls (name, arguments) in the order of the run table's
    ``tool_sequence`` column: the root's steps, then each subagent's, depth first; copied
    context left out."""
    return [
        (str(call.get("function_name", "")), call.get("arguments"))
        for step in _steps(trajectory)
        if step.get("is_copied_context") is not True
        for call in step.get("tool_calls") or ()
        if was_executed(call)
    ]


def _steps(tree: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
    yield from tree.get("steps") or ()
    for child in tree.get("subagent_trajectories") or ():
        yield from _steps(child)


def _fits(spec: CallSpec, arguments: Any) -> bool:
    if spec.arguments is None:
        return True
    return arguments_match(spec.arguments, arguments, strict=spec.strict_arguments)


def _argument_problem(spec: CallSpec, arguments: Any) -> str | None:
    if spec.arguments is None:
        return None
    return argument_problem(spec.arguments, arguments, strict=spec.strict_arguments)


def sequence_outcome(
    mode: str, expected: list[CallSpec], made: list[tuple[str, Any]]
) -> tuple[bool, str]:
    """Whether the calls ``made`` match ``expected`` in ``mode``, and why not."""
    if mode == "strict":
        return _strict(expected, made)
    pairs = _matching(expected, made)
    missing = [e for i, e in enumerate(expected) if i not in pairs]
    matched = set(pairs.values())
    extra = [c for j, c in enumerate(made) if j not in matched]
    problems = []
    if missing and mode in ("unordered", "superset"):
        problems.append("no call matched " + "; ".join(e.shown() for e in missing[:3]))
    if extra and mode in ("unordered", "subset"):
        problems.append("calls not expected: " + "; ".join(_call_text(c) for c in extra[:3]))
    return not problems, ", and ".join(problems) + _made_text(made)


def _strict(expected: list[CallSpec], made: list[tuple[str, Any]]) -> tuple[bool, str]:
    for index, (spec, call) in enumerate(zip(expected, made, strict=False), start=1):
        if spec.name != call[0]:
            return False, f"call {index} was {call[0]}, expected {spec.name}" + _made_text(made)
        problem = _argument_problem(spec, call[1])
        if problem is not None:
            return False, f"call {index} ({call[0]}): {problem}" + _made_text(made)
    if len(made) > len(expected):
        extra = made[len(expected)]
        return False, f"{len(made)} calls, expected {len(expected)}: call {len(expected) + 1} " + (
            f"was {_call_text(extra)}" + _made_text(made)
        )
    if len(made) < len(expected):
        return False, f"{len(made)} calls, expected {len(expected)}: no call matched " + (
            expected[len(made)].shown() + _made_text(made)
        )
    return True, ""


def _matching(expected: list[CallSpec], made: list[tuple[str, Any]]) -> dict[int, int]:
    """A maximum matching of expected entries to calls (expected index → call index), each
    call standing for one entry at most: a greedy pass, then a shortest augmenting path
    (Kuhn's algorithm, breadth first) for each entry left over. Whether an entry fits a call
    is worked out only when asked, once."""
    by_name: dict[str, list[int]] = {}
    for j, (name, _) in enumerate(made):
        by_name.setdefault(name, []).append(j)
    known: dict[tuple[int, int], bool] = {}

    def fits(i: int, j: int) -> bool:
        if (i, j) not in known:
            known[(i, j)] = _fits(expected[i], made[j][1])
        return known[(i, j)]

    owner: dict[int, int] = {}  # call → entry
    held: dict[int, int] = {}  # entry → call
    for i, spec in enumerate(expected):
        free = next((j for j in by_name.get(spec.name, ()) if j not in owner and fits(i, j)), None)
        if free is not None:
            owner[free], held[i] = i, free
    for i in range(len(expected)):
        if i not in held:
            _augment(i, lambda k: by_name.get(expected[k].name, []), fits, owner, held)
    return held


def _augment(
    start: int,
    candidates: Callable[[int], list[int]],
    fits: Callable[[int, int], bool],
    owner: dict[int, int],
    held: dict[int, int],
) -> None:
    """Give entry ``start`` a call, moving other entries to other calls along a shortest
    augmenting path (breadth first), if there is one."""
    reached_by: dict[int, int] = {}  # call → the entry the search reached it from
    queue = collections.deque([start])
    while queue:
        i = queue.popleft()
        for j in candidates(i):
            if j in reached_by or not fits(i, j):
                continue
            reached_by[j] = i
            if j in owner:
                queue.append(owner[j])
                continue
            while True:  # a free call: flip the path back to start
                entry = reached_by[j]
                before = held.get(entry)
                owner[j], held[entry] = entry, j
                if before is None:  # the start, which held no call
                    return
                j = before


def short(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _call_text(call: tuple[str, Any]) -> str:
    return f"{call[0]}({short(call[1])})"


def _made_text(made: list[tuple[str, Any]]) -> str:
    if not made:
        return " (no tool was called)"
    names = " → ".join(name for name, _ in made[:8])
    return f" (the calls: {names}{' …' if len(made) > 8 else ''})"
