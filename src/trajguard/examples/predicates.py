"""Example ``predicate`` pass criteria: ``module:function`` taking the normalised trajectory.

A predicate receives the run's normalised trajectory as a plain dict (see
:func:`trajguard.core.normalize.normalize`) and returns a truthy value when the run passes::

    pass:
      - predicate: trajguard.examples.predicates:answered_with_a_number
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

__all__ = ["answered_with_a_number", "every_tool_call_succeeded"]

_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


def _final_output(trajectory: Mapping[str, Any]) -> str:
    agent_steps = [s for s in trajectory.get("steps", ()) if s.get("source") == "agent"]
    message = agent_steps[-1].get("message") if agent_steps else None
    return message if isinstance(message, str) else ""


def answered_with_a_number(trajectory: Mapping[str, Any]) -> bool:
    """The last agent message contains a number."""
    return _NUMBER.search(_final_output(trajectory)) is not None


def every_tool_call_succeeded(trajectory: Mapping[str, Any]) -> bool:
    """No observation result of the root trajectory carries an ``extra.error`` code."""
    for step in trajectory.get("steps", ()):
        for result in (step.get("observation") or {}).get("results", ()):
            if (result.get("extra") or {}).get("error"):
                return False
    return True
