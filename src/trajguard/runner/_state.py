"""The state one run's tools share: a fresh copy of the scenario's seed, kept on the trajectory
when the run ends (``extra.final_state``) so that ``final_state`` criteria and reports read it.

A run has its own deep copy of ``state:`` (``{}`` without one), so two runs never share it,
however many run at once. The final state is recorded when the scenario gives ``state:`` or
checks ``final_state``. It is read as JSON: a value JSON cannot hold (a set, an object) is
written as its text; a state that cannot be read at all (it contains itself, or a tool of a
run given up on is changing it) is recorded as ``extra.final_state_error`` instead.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from typing import Any

from trajguard._text import safe_str
from trajguard.atif import Trajectory
from trajguard.suite import STATE_ERROR_KEY, STATE_KEY, ResolvedScenario

__all__ = ["new_state", "with_final_state"]

_MAX_STATE_CHARS = 4 * 1024 * 1024


def new_state(arm: ResolvedScenario) -> dict[str, Any]:
    """The state a run starts with: its own deep copy of the arm's seed."""
    return copy.deepcopy(arm.state) if arm.state is not None else {}


def _kept(arm: ResolvedScenario) -> bool:
    return arm.state is not None or any(c.kind == "final_state" for c in arm.pass_criteria)


def with_final_state(
    trajectory: Trajectory, arm: ResolvedScenario, state: Mapping[str, Any]
) -> Trajectory:
    """``trajectory`` with the run's final state in its ``extra`` (when the arm keeps it)."""
    if not _kept(arm):
        return trajectory
    extra = dict(trajectory.extra or {})
    try:
        text = json.dumps(state, ensure_ascii=False, default=str)
        if len(text) > _MAX_STATE_CHARS:
            raise ValueError(f"it is larger than {_MAX_STATE_CHARS} characters as JSON")
        extra[STATE_KEY] = json.loads(text)
    except (ValueError, TypeError, RuntimeError, RecursionError) as exc:
        extra[STATE_ERROR_KEY] = f"the final state could not be read: {safe_str(exc)}"
    return trajectory.model_copy(update={"extra": extra})
