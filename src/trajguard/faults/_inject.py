"""Faults applied to tool calls, and the record of what was applied.

:class:`ToolFaults` holds one run's plan and counts each tool's calls. The reference agent asks
it before running a tool (:meth:`ToolFaults.apply`); any other Python agent wraps its tool
functions with :meth:`ToolFaults.wrap` (the wrapper keeps the function's name, signature and
sync/async nature, so frameworks that read them still work). Every injected fault is logged as
a :class:`FaultEvent`.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import json
import re
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from trajguard.faults._plan import FaultPlan
from trajguard.faults._spec import FaultSpec, fault_kind

__all__ = ["FaultEvent", "ToolFault", "ToolFaults"]

F = TypeVar("F", bound=Callable[..., Any])


class ToolFault(Exception):
    """An injected failure of a tool call (its message says which)."""


@dataclass(frozen=True, kw_only=True)
class FaultEvent:
    """One injected fault: which tool, its how-manieth call (from 1), which kind."""

    tool: str
    call: int
    kind: str


def _contradict(value: Any) -> Any:
    """A result that disagrees with ``value``: every digit moved by 5, or the text negated."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int | float):
        return value + max(1, abs(value))
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    if re.search(r"\d", text):
        return re.sub(r"\d", lambda m: str((int(m.group()) + 5) % 10), text)
    return f"not {text}" if text else "nothing found"


@dataclass
class ToolFaults:
    """One run's tool faults: the plan, the calls counted so far, and what was injected."""

    plan: FaultPlan
    events: list[FaultEvent] = field(default_factory=list)
    _calls: Counter[str] = field(default_factory=Counter)

    def next_fault(self, tool: str) -> FaultSpec | None:
        """Count one call of ``tool``; the fault it meets, if any (logged)."""
        self._calls[tool] += 1
        spec = self.plan.fault_for(tool, self._calls[tool])
        if spec is not None:
            self.events.append(FaultEvent(tool=tool, call=self._calls[tool], kind=spec.kind))
        return spec

    async def apply(self, tool: str, run: Callable[[], Awaitable[Any]]) -> Any:
        """Run one call of ``tool`` (``run`` makes the real call) under its fault, if any.

        Raises:
            ToolFault: the fault is one that fails the call.
        """
        spec = self.next_fault(tool)
        if spec is None:
            return await run()
        kind = fault_kind(spec.kind)
        if spec.kind in ("slow", "timeout"):
            await asyncio.sleep(spec.seconds if spec.kind == "slow" else 0)
        if kind.fails:
            raise ToolFault((spec.message or kind.message).format(seconds=spec.seconds))
        return _distort(spec, await run())

    def wrap(self, function: F, *, name: str | None = None) -> F:
        """``function`` with this run's faults applied to its calls (as tool ``name``, by
        default the function's own name)."""
        tool = name or function.__name__
        if inspect.iscoroutinefunction(function):

            @functools.wraps(function)
            async def wrapped_async(*args: Any, **kwargs: Any) -> Any:
                return await self.apply(tool, lambda: function(*args, **kwargs))

            return wrapped_async  # type: ignore[return-value]

        @functools.wraps(function)
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            spec = self.next_fault(tool)
            if spec is None:
                return function(*args, **kwargs)
            kind = fault_kind(spec.kind)
            if spec.kind == "slow":
                time.sleep(spec.seconds)
            if kind.fails:
                raise ToolFault((spec.message or kind.message).format(seconds=spec.seconds))
            return _distort(spec, function(*args, **kwargs))

        return wrapped  # type: ignore[return-value]

    def counts(self) -> dict[str, int]:
        """Injected faults by kind."""
        return dict(Counter(event.kind for event in self.events))


def _distort(spec: FaultSpec, value: Any) -> Any:
    if spec.kind == "corrupt_json":
        text = json.dumps(value, default=str)
        return text[: max(1, len(text) // 2)]
    if spec.kind == "empty_result":
        return ""
    if spec.kind == "contradictory_results":
        return _contradict(value)
    return value  # slow: the real result, late
