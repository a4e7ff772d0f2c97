"""Load-time checks of ``faults:`` entries: each fault reaches the agent it is meant for.

Which kinds apply to which agent kind (:data:`KINDS_BY_AGENT`): tool faults reach a builtin
agent's tools directly and a callable agent's tools through ``ctx.faults.wrap``; a command
agent's tools run in its own process, out of reach, so it gets model (provider) faults only,
injected at the wire endpoint — which a callable agent reaches too, and a builtin agent never
does (it calls its model directly). A tool fault of a builtin agent must name tools the agent
has under that variant. What pydantic checks (known kinds, probability in [0, 1], one trigger)
is explained with its line by :mod:`._error_messages`.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from trajguard.errors import SuiteError
from trajguard.faults import FAULT_KINDS, FaultSpec, FaultTarget
from trajguard.suite._models import (
    BASE_VARIANT,
    BuiltinAgent,
    CommandAgent,
    Scenario,
    Suite,
    Variant,
)

__all__ = ["KINDS_BY_AGENT", "check_faults"]

Where = tuple[int | str, ...]


class Fail(Protocol):
    """Makes the error of a problem at ``where``; ``attempt`` records the first of a check."""

    def __call__(self, where: Where, message: str, hint: str | None = None, /) -> SuiteError:
        """The error."""

    def attempt(self, check: Callable[..., object], *args: Any) -> None:
        """Run ``check``; record its problem, if any, and go on."""


ToolNames = Callable[[Sequence[str], Where], list[str]]

KINDS_BY_AGENT: dict[str, tuple[FaultTarget, ...]] = {
    "builtin": ("tool",),
    "callable": ("tool", "model"),
    "command": ("model",),
}
"""The fault targets each agent kind can meet (``tool`` / ``model`` of :data:`FAULT_KINDS`)."""


def _kinds(target: FaultTarget) -> str:
    return ", ".join(k.name for k in FAULT_KINDS if k.target == target)


_REFUSED = {
    ("builtin", "model"): (
        "a builtin agent calls its model directly, not through the wire endpoint, so "
        "model faults never reach it",
        f"give it tool faults ({_kinds('tool')})",
    ),
    ("command", "tool"): (
        "a command agent's tools run in its own process, out of trajguard's reach",
        f"give it model faults ({_kinds('model')}), injected at the wire endpoint",
    ),
}


def check_faults(suite: Suite, fail: Fail, tool_names: ToolNames | None) -> None:
    """Every effective ``faults:`` entry of every scenario under every variant applies to its
    agent; ``tool_names`` (import paths → tool names) checks builtin agents' tool names."""
    for index, scenario in enumerate(suite.scenarios):
        variants = {**suite.variants, **scenario.variants}
        for variant in [BASE_VARIANT, *variants]:
            override = variants.get(variant, Variant())
            if override.faults is None:
                where: Where = ("scenarios", index, "faults")
                faults = scenario.faults
            else:
                own = variant in scenario.variants
                where = (
                    ("scenarios", index, "variants", variant, "faults")
                    if own
                    else ("variants", variant, "faults")
                )
                faults = override.faults
            for position, spec in enumerate(faults):
                fail.attempt(_check_one, scenario, spec, (*where, position), fail)
                if tool_names is not None:
                    at = (index, variant, position)
                    fail.attempt(
                        _check_tools, scenario, override, spec, where, at, fail, tool_names
                    )


def _label(scenario: Scenario, where: Where) -> str:
    """Names the scenario when the fault is a suite-level variant's (its line is shared)."""
    return f" in scenario {scenario.id!r}" if where[0] == "variants" else ""


def _check_one(scenario: Scenario, spec: FaultSpec, where: Where, fail: Fail) -> None:
    agent = scenario.agent
    refused = _REFUSED.get((agent.kind, spec.target))
    if refused is not None:
        reason, hint = refused
        raise fail(
            (*where, "kind"),
            f"fault {spec.kind!r} hits {spec.target} calls{_label(scenario, where)}: {reason}",
            hint,
        )
    if spec.target == "model" and isinstance(agent, CommandAgent) and not agent.uses_model:
        raise fail(
            (*where, "kind"),
            f"fault {spec.kind!r} hits model calls at the wire endpoint, but the agent brings "
            f"its own model (uses_model: false){_label(scenario, where)}",
            "remove the fault, or let the agent call the run's model",
        )


def _check_tools(
    scenario: Scenario,
    override: Variant,
    spec: FaultSpec,
    where: Where,
    at: tuple[int, str, int],
    fail: Fail,
    tool_names: ToolNames,
) -> None:
    index, variant, position = at
    agent = scenario.agent
    if not isinstance(agent, BuiltinAgent) or spec.tools == "*":
        return
    tools_where: Where = ("scenarios", index, "agent", "tools")
    targets = agent.tools
    if override.tools is not None:
        own = variant in scenario.variants
        tools_where = (
            ("scenarios", index, "variants", variant, "tools") if own else ("variants", variant)
        )
        targets = override.tools
    offered = tool_names(targets, tools_where)
    for t_index, name in enumerate(spec.tools):
        if name in offered:
            continue
        close = difflib.get_close_matches(name, offered, n=1)
        under = "" if variant == BASE_VARIANT else f" under variant {variant!r}"
        raise fail(
            (*where, position, "tools", t_index),
            f"fault {spec.kind!r} names tool {name!r}, which the agent does not have{under}"
            + (f" in scenario {scenario.id!r}" if where[0] == "variants" else "")
            + (f"; did you mean {close[0]!r}?" if close else ""),
            f"its tools{under}: {', '.join(offered) or 'none'} (or tools: '*' for all)",
        )
