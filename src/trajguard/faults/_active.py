"""Faults for the code inside a ``with`` block: how a test injects a plan into an agent.

:func:`inject_faults` makes a :class:`ToolFaults` the active one for the block (a context
variable, so concurrent tasks and threads started outside the block are not affected). The
reference agent uses the active faults when its configuration names none; any other Python agent
wraps its tools with ``faults.wrap``. Leaving the block with no fault injected fails, because a
chaos test whose faults never fired has tested nothing.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from trajguard.faults._inject import ToolFaults
from trajguard.faults._plan import plan_faults
from trajguard.faults._spec import FaultSpec

__all__ = ["FaultsNotInjected", "active_faults", "inject_faults"]

_ACTIVE: ContextVar[ToolFaults | None] = ContextVar("trajguard_active_faults", default=None)


class FaultsNotInjected(AssertionError):
    """An :func:`inject_faults` block ended without injecting any fault."""


def active_faults() -> ToolFaults | None:
    """The faults of the enclosing :func:`inject_faults` block, or ``None``."""
    return _ACTIVE.get()


@contextmanager
def inject_faults(
    *specs: FaultSpec | Mapping[str, Any],
    seed: int = 0,
    scenario: str = "test",
    run_index: int = 0,
    require_injected: bool = True,
) -> Iterator[ToolFaults]:
    """Inject ``specs`` into the tool calls made inside the block.

    Args:
        specs: fault entries, as :class:`FaultSpec` or as the mappings a suite's ``faults:``
            holds (``{"kind": "timeout", "tools": ["search"], "at_call": 1}``).
        seed: with ``scenario`` and ``run_index``, what the plan is derived from
            (:func:`plan_faults`); the same values give the same faults.
        scenario: the scenario the plan is for.
        run_index: the run's index within its scenario.
        require_injected: fail when the block ends with no fault injected.

    Yields:
        The run's :class:`ToolFaults`: ``events`` lists what was injected; ``wrap`` applies
        the plan to a tool function of a callable agent.

    Raises:
        FaultsNotInjected: on leaving the block, when nothing was injected and
            ``require_injected`` is true.
        pydantic.ValidationError: a spec is not a valid fault entry.
    """
    parsed = [s if isinstance(s, FaultSpec) else FaultSpec.model_validate(s) for s in specs]
    faults = ToolFaults(
        plan=plan_faults(parsed, batch_seed=seed, scenario=scenario, run_index=run_index)
    )
    token = _ACTIVE.set(faults)
    try:
        yield faults
    finally:
        _ACTIVE.reset(token)
    if require_injected and not faults.events:
        tools = sorted({t for s in parsed if s.tools != "*" for t in s.tools}) or ["any tool"]
        raise FaultsNotInjected(
            f"no fault was injected: the agent made no matching call of {', '.join(tools)} "
            "(or no probability draw hit); check the tool names, or pass "
            "require_injected=False"
        )
