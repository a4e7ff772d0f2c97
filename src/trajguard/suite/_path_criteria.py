"""Criteria on the whole path of a run and on the world it left: ``tool_sequence``, ``turns``
and ``final_state``.

``tool_sequence`` compares the run's executed tool calls (in order, subagents' after the
root's, as in the run's ``tool_sequence`` column) with a list of expected calls, in one of
agentevals' match modes:

* ``strict``: the same calls in the same order, nothing else;
* ``unordered``: the same calls in any order, nothing else;
* ``superset``: every expected call was made (each by a call of its own); others may be too;
* ``subset``: every call made is one of the expected (each matching an entry of its own);
  some expected ones may be missing.

An expected call is a tool name (its arguments are not looked at) or ``{name, arguments}``
where each named argument is matched by its value (:mod:`._matchers` lists the matchers:
exact, ``contains``, ``regex``, ``ignore``); arguments not named are not looked at unless
``strict_arguments: true``.

``turns`` bounds the number of user turns (the root's steps whose source is ``user``).

``final_state`` reads the state the run's tools left (``extra.final_state`` of the trajectory,
recorded by the runner: docs/reference/suite.md#state) and compares it with ``expected``
(``match: exact``, every key; or ``contains``, the keys given) or hands it to a user function
``predicate: module:function(state) -> bool`` (run like a ``predicate`` criterion's).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from trajguard._text import safe_str
from trajguard.core import canonical_json
from trajguard.errors import TrajguardError
from trajguard.suite._call_sequence import (
    CallSpec,
    Strict,
    executed_calls,
    sequence_outcome,
    short,
)
from trajguard.suite._criterion_result import CriterionResult
from trajguard.suite._matchers import state_differences

__all__ = [
    "CRITERIA",
    "SCALAR_FIELD",
    "STATE_ERROR_KEY",
    "STATE_KEY",
    "CallSpec",
    "FinalState",
    "PathCriterion",
    "ToolSequence",
    "Turns",
    "check",
    "tool_names",
]

STATE_KEY = "final_state"
"""The key of the trajectory's ``extra`` that holds the state a run's tools left."""
STATE_ERROR_KEY = "final_state_error"
"""The key of the trajectory's ``extra`` that says why the final state could not be kept."""
_MAX_EXPECTED_CALLS = 500
_LABEL_CHARS = 120
_IMPORT_PATH = r"^[\w.]+:[\w.]+$"


class ToolSequence(Strict):
    """The run's tool calls against ``calls``, in a match ``mode``."""

    kind: Literal["tool_sequence"] = "tool_sequence"
    mode: Literal["strict", "unordered", "subset", "superset"] = "strict"
    calls: list[CallSpec] = Field(max_length=_MAX_EXPECTED_CALLS)

    @field_validator("calls", mode="before")
    @classmethod
    def _names_are_calls(cls, raw: Any) -> Any:
        if not isinstance(raw, list):
            return raw
        return [{"name": item} if isinstance(item, str) else item for item in raw]

    @property
    def label(self) -> str:
        """The mode and the calls (cut at 120 characters, then told apart by a hash of them:
        reports tell criteria apart by label)."""
        listed = " → ".join(c.shown() for c in self.calls) or "no calls"
        if len(listed) > _LABEL_CHARS:
            digest = hashlib.sha256(canonical_json(self.model_dump()).encode()).hexdigest()
            listed = f"{listed[: _LABEL_CHARS - 1]}… #{digest[:8]}"
        return f"tool_sequence ({self.mode}): {listed}"


class Turns(Strict):
    """The run had between ``min`` and ``max`` user turns."""

    kind: Literal["turns"] = "turns"
    min: int = Field(default=0, ge=0)
    max: int | None = Field(default=None, ge=0)

    @model_validator(mode="before")
    @classmethod
    def _exactly(cls, data: Any) -> Any:
        if isinstance(data, Mapping) and "exactly" in data:
            rest = {k: v for k, v in data.items() if k != "exactly"}
            return {**rest, "min": data["exactly"], "max": data["exactly"]}
        return data

    @model_validator(mode="after")
    def _bounds_can_hold(self) -> Turns:
        if self.max is not None and self.min > self.max:
            raise ValueError(f"min ({self.min}) is greater than max ({self.max})")
        if self.min == 0 and self.max is None:
            raise ValueError("give min, max or both (turns: 3 means exactly 3)")
        return self

    @property
    def label(self) -> str:
        if self.min == self.max:
            return f"turns: {self.min}"
        return f"turns: {self.min}..{'∞' if self.max is None else self.max}"


class FinalState(Strict):
    """The state the run's tools left: equal to (or containing) ``expected``, or accepted by
    ``predicate``."""

    kind: Literal["final_state"] = "final_state"
    expected: dict[str, Any] | None = None
    match: Literal["exact", "contains"] = "exact"
    predicate: str | None = Field(default=None, pattern=_IMPORT_PATH)

    @model_validator(mode="after")
    def _one_way(self) -> FinalState:
        if (self.expected is None) == (self.predicate is None):
            raise ValueError(
                "final_state takes either expected: {...} (the state to compare with) or "
                "predicate: module:function, not both and not neither"
            )
        return self

    @property
    def label(self) -> str:
        if self.predicate is not None:
            return f"final_state: {self.predicate}"
        return f"final_state ({self.match}): {short(self.expected)}"


PathCriterion = ToolSequence | Turns | FinalState
CRITERIA = (ToolSequence, Turns, FinalState)
SCALAR_FIELD = {"tool_sequence": "calls", "turns": "exactly", "final_state": "expected"}
"""The field a criterion's scalar form fills (``turns: 3``, ``tool_sequence: [a, b]``)."""


def tool_names(criterion: Any) -> list[str]:
    """The tool names a criterion expects the agent to have (for the load-time check)."""
    return [c.name for c in criterion.calls] if isinstance(criterion, ToolSequence) else []


def check(
    criterion: PathCriterion,
    trajectory: Mapping[str, Any],
    resolve: Callable[[str], Callable[[Any], object]],
) -> CriterionResult:
    """Judge one run (its normalised trajectory) by a path criterion."""
    if isinstance(criterion, FinalState) and criterion.predicate is not None:
        return _state_predicate(criterion, trajectory, resolve)
    if isinstance(criterion, ToolSequence):
        passed, reason = sequence_outcome(
            criterion.mode, criterion.calls, executed_calls(trajectory)
        )
    elif isinstance(criterion, Turns):
        passed, reason = _turns(criterion, trajectory)
    else:
        passed, reason = _state_equal(criterion, trajectory)
    return CriterionResult(
        criterion=criterion.kind,
        label=criterion.label,
        passed=passed,
        reason="" if passed else reason,
    )


def _turns(criterion: Turns, trajectory: Mapping[str, Any]) -> tuple[bool, str]:
    count = sum(1 for s in trajectory.get("steps") or () if s.get("source") == "user")
    high = criterion.max
    ok = count >= criterion.min and (high is None or count <= high)
    bounds = f"{criterion.min}..{'∞' if high is None else high}"
    return ok, f"{count} user turn{'s' if count != 1 else ''}, expected {bounds}"


_NO_STATE = (
    "the run recorded no final state (extra.final_state): give the scenario a state: or use "
    "tools that take it; a command agent writes it to {final_state}"
)


def _final_state(trajectory: Mapping[str, Any]) -> tuple[str | None, Any]:
    """Why the run has no final state (``None`` when it has one), and the state."""
    extra = trajectory.get("extra") or {}
    if STATE_KEY in extra:
        return None, extra[STATE_KEY]
    return str(extra.get(STATE_ERROR_KEY) or _NO_STATE), None


def _state_equal(criterion: FinalState, trajectory: Mapping[str, Any]) -> tuple[bool, str]:
    missing, state = _final_state(trajectory)
    if missing is not None:
        return False, missing
    differences = state_differences(
        criterion.expected, state, partial=criterion.match == "contains"
    )
    if not differences:
        return True, ""
    more = f" and {len(differences) - 3} more" if len(differences) > 3 else ""
    return False, "final state differs: " + "; ".join(differences[:3]) + more


def _state_predicate(
    criterion: FinalState,
    trajectory: Mapping[str, Any],
    resolve: Callable[[str], Callable[[Any], object]],
) -> CriterionResult:
    function = str(criterion.predicate)
    missing, state = _final_state(trajectory)
    if missing is not None:
        return CriterionResult(
            criterion=criterion.kind, label=criterion.label, passed=False, reason=missing
        )
    error = False
    try:
        held = bool(resolve(function)(state))
        reason = "" if held else f"{function} returned false for the final state {short(state)}"
    except TrajguardError as exc:  # did not import, did not return in time, SystemExit …
        held, reason, error = False, exc.message, True
    except Exception as exc:  # the user's check is broken: a failed criterion, not a crash
        held, error = False, True
        reason = f"{function} raised {type(exc).__name__}: {safe_str(exc)}"
    return CriterionResult(
        criterion=criterion.kind, label=criterion.label, passed=held, reason=reason, error=error
    )
