"""Pass criteria: trajectory assertions evaluated on every run of a scenario.

In a suite file a scenario's ``pass`` is a list of one-key mappings::

    pass:
      - tool_called: calculator                 # at least once
      - tool_called: {name: lookup, min: 1, max: 2}
      - tool_not_called: get_weather
      - tool_called_with: {name: lookup, arguments: {city: Paris}}
      - final_output_contains: "391"            # case-insensitive unless case_sensitive: true
      - final_output_matches: "\\\\b391\\\\b"
      - max_steps: 8
      - max_total_tokens: 4000
      - predicate: my_checks:answer_is_prime    # module:function(trajectory_dict) -> bool
      - judge: {rubric: "names Paris", samples: 3}  # a model's verdicts (see ._judge)
      - tool_sequence: {mode: superset, calls: [lookup]}  # the path (see ._path_criteria)
      - turns: {max: 4}                         # user turns
      - final_state: {expected: {booked: true}} # the state the tools left

A predicate is user code: it runs in a thread of its own and must return within 60 s, or the
run's ``timeout_s`` if shorter (``trajguard._user_code.PREDICATE_TIMEOUT_S``). One that raises
(``SystemExit`` included) or does not return in time is a *criterion error*: the criterion
fails with the reason, the run is judged failed and its ``error_type`` is ``criterion_error``.

Resilience criteria judge how the agent dealt with injected faults (``faults:``; they hold for
a run that met none)::

      - retried_after_fault: true               # the faulted tool was called again
      - max_repeats_after_failure: 2            # no failed call repeated more than twice
      - recovered_or_escalated: true            # the tool later succeeded, or the answer says
                                                # it could not be done ({phrases: [...]})
      - no_fabricated_result: {tool: calculator, values: ["391"]}

A run passes when every criterion holds. Evaluation is pure: it reads the normalised trajectory
and its shape, nothing else.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Callable, Mapping
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from trajguard._text import safe_str
from trajguard.core.shape import Shape
from trajguard.errors import TrajguardError
from trajguard.faults import (
    DEFAULT_ESCALATION_PHRASES,
    fabricated_result,
    recovered_or_escalated,
    repeats_after_failure,
    retried_after_fault,
)
from trajguard.suite import _path_criteria as path
from trajguard.suite._criterion_result import CriterionResult
from trajguard.suite._judge import JudgeCriterion, JudgeFunction, judge_outcome
from trajguard.suite._reasons import calls, calls_seen, is_subset, output_seen

__all__ = [
    "CRITERION_TYPES",
    "KINDS",
    "Criterion",
    "CriterionResult",
    "evaluate",
    "parse_criterion",
]


class _Criterion(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    @property
    def label(self) -> str:
        """The criterion as a person tells it from the others of its scenario: its kind, then
        its main argument (``tool_not_called: get_weather``, ``final_output_contains: "391"``,
        ``max_steps: 8``); the kind alone for a criterion without one."""
        kind: str = getattr(self, "kind", type(self).__name__)
        argument = _LABEL_FIELD.get(kind)
        if argument is None:
            return kind
        value = getattr(self, argument)
        quoted = isinstance(value, str) and argument in ("text", "pattern")
        shown = json.dumps(value, ensure_ascii=False) if quoted else str(value)
        return f"{kind}: {shown}"


class ToolCalled(_Criterion):
    """The tool was called between ``min`` and ``max`` times."""

    kind: Literal["tool_called"] = "tool_called"
    name: str
    min: int = Field(default=1, ge=0)
    max: int | None = Field(default=None, ge=0)

    @model_validator(mode="after")
    def _bounds_can_hold(self) -> ToolCalled:
        if self.max is not None and self.min > self.max:
            raise ValueError(
                f"min ({self.min}) is greater than max ({self.max}), so it can never hold; "
                "min defaults to 1: set min: 0 for 'at most', or use tool_not_called"
            )
        return self


class ToolNotCalled(_Criterion):
    """The tool was never called."""

    kind: Literal["tool_not_called"] = "tool_not_called"
    name: str


class ToolCalledWith(_Criterion):
    """Some call of the tool had arguments containing all of ``arguments``."""

    kind: Literal["tool_called_with"] = "tool_called_with"
    name: str
    arguments: dict[str, Any]


class FinalOutputContains(_Criterion):
    """The final output contains the text."""

    kind: Literal["final_output_contains"] = "final_output_contains"
    text: str
    case_sensitive: bool = False


class FinalOutputMatches(_Criterion):
    """The final output matches the regular expression (``re.search``)."""

    kind: Literal["final_output_matches"] = "final_output_matches"
    pattern: str

    @field_validator("pattern")
    @classmethod
    def _compiles(cls, value: str) -> str:
        try:
            re.compile(value)
        except re.error as exc:
            raise ValueError(f"not a valid regular expression: {exc}") from None
        return value


class MaxSteps(_Criterion):
    """The run took at most this many steps."""

    kind: Literal["max_steps"] = "max_steps"
    value: int = Field(ge=1)


class MaxTotalTokens(_Criterion):
    """The run used at most this many prompt plus completion tokens."""

    kind: Literal["max_total_tokens"] = "max_total_tokens"
    value: int = Field(ge=1)


class Predicate(_Criterion):
    """A user function ``module:function`` taking the normalised trajectory dict."""

    kind: Literal["predicate"] = "predicate"
    function: str = Field(pattern=r"^[\w.]+:[\w.]+$")


class RetriedAfterFault(_Criterion):
    """After every injected fault, the agent called the same tool again."""

    kind: Literal["retried_after_fault"] = "retried_after_fault"
    value: Literal[True] = True


class MaxRepeatsAfterFailure(_Criterion):
    """No failed call (same tool, same arguments) is repeated more than ``value`` times."""

    kind: Literal["max_repeats_after_failure"] = "max_repeats_after_failure"
    value: int = Field(ge=0)


class RecoveredOrEscalated(_Criterion):
    """After every fault the tool later succeeded, or the final output says the task could not
    be completed (one of ``phrases``, case-insensitive)."""

    kind: Literal["recovered_or_escalated"] = "recovered_or_escalated"
    value: Literal[True] = True
    phrases: list[str] = Field(
        default_factory=lambda: list(DEFAULT_ESCALATION_PHRASES), min_length=1
    )


class NoFabricatedResult(_Criterion):
    """If ``tool`` met a fault and never answered, the final output shows none of ``values``."""

    kind: Literal["no_fabricated_result"] = "no_fabricated_result"
    tool: str
    values: list[str] = Field(min_length=1)


CRITERION_TYPES = (
    ToolCalled,
    ToolNotCalled,
    ToolCalledWith,
    FinalOutputContains,
    FinalOutputMatches,
    MaxSteps,
    MaxTotalTokens,
    Predicate,
    RetriedAfterFault,
    MaxRepeatsAfterFailure,
    RecoveredOrEscalated,
    NoFabricatedResult,
    JudgeCriterion,
    *path.CRITERIA,
)
Criterion = Annotated[
    ToolCalled
    | ToolNotCalled
    | ToolCalledWith
    | FinalOutputContains
    | FinalOutputMatches
    | MaxSteps
    | MaxTotalTokens
    | Predicate
    | RetriedAfterFault
    | MaxRepeatsAfterFailure
    | RecoveredOrEscalated
    | NoFabricatedResult
    | JudgeCriterion
    | path.PathCriterion,
    Field(discriminator="kind"),
]

_SCALAR_FIELD = {
    "tool_called": "name",
    "tool_not_called": "name",
    "final_output_contains": "text",
    "final_output_matches": "pattern",
    "max_steps": "value",
    "max_total_tokens": "value",
    "predicate": "function",
    "retried_after_fault": "value",
    "max_repeats_after_failure": "value",
    "recovered_or_escalated": "value",
    "judge": "rubric",
    **path.SCALAR_FIELD,
}
KINDS = (*_SCALAR_FIELD, "tool_called_with", "no_fabricated_result")
_LABEL_FIELD = {
    **{k: v for k, v in _SCALAR_FIELD.items() if v != "value" or k.startswith("max_")},
    "tool_called_with": "name",
    "no_fabricated_result": "tool",
}


def parse_criterion(raw: Any) -> dict[str, Any]:
    """Turn the suite form ``{kind: value}`` into the tagged form pydantic validates."""
    if not isinstance(raw, Mapping) or len(raw) != 1:
        raise ValueError(
            f"a pass criterion is a mapping with exactly one key, one of: {', '.join(KINDS)}"
        )
    ((kind, value),) = raw.items()
    if kind not in KINDS:
        close = difflib.get_close_matches(str(kind), KINDS, n=1)
        if close:
            raise ValueError(f"unknown pass criterion {kind!r}; did you mean {close[0]!r}?")
        raise ValueError(f"unknown pass criterion {kind!r}; known: {', '.join(KINDS)}")
    if isinstance(value, Mapping):
        # YAML 1.1 reads the judge's key `on` as true: take it back
        return {"kind": kind, **{("on" if k is True else k): v for k, v in value.items()}}
    if kind == "tool_called_with":
        raise ValueError("tool_called_with takes a mapping: {name: ..., arguments: {...}}")
    if kind == "no_fabricated_result":
        raise ValueError("no_fabricated_result takes a mapping: {tool: ..., values: [...]}")
    return {"kind": kind, _SCALAR_FIELD[kind]: value}


def _check(
    criterion: Any,
    trajectory: Mapping[str, Any],
    shape: Shape,
    resolve: Callable[[str], Callable[[Mapping[str, Any]], object]],
) -> tuple[bool, str]:
    output = shape.final_output or ""
    match criterion:
        case ToolCalled(name=name, min=low, max=high):
            count = shape.tool_counts.get(name, 0)
            ok = count >= low and (high is None or count <= high)
            bounds = f"{low}..{'∞' if high is None else high}"
            return ok, f"{name} called {count} times, expected {bounds}"
        case ToolNotCalled(name=name):
            count = shape.tool_counts.get(name, 0)
            return count == 0, f"{name} called {count} times, expected none"
        case ToolCalledWith(name=name, arguments=arguments):
            found = calls(trajectory, name)
            ok = any(is_subset(arguments, c.get("arguments")) for c in found)
            return ok, f"no call of {name} had arguments {arguments}" + calls_seen(name, found)
        case FinalOutputContains(text=text, case_sensitive=sensitive):
            ok = text in output if sensitive else text.lower() in output.lower()
            return ok, f"final output does not contain {text!r}" + output_seen(shape)
        case FinalOutputMatches(pattern=pattern):
            ok = re.search(pattern, output) is not None
            return ok, f"final output does not match {pattern!r}" + output_seen(shape)
        case MaxSteps(value=value):
            return shape.step_count <= value, f"{shape.step_count} steps > {value}"
        case MaxTotalTokens(value=value):
            return shape.total_tokens <= value, f"{shape.total_tokens} tokens > {value}"
        case RetriedAfterFault():
            return retried_after_fault(trajectory)
        case MaxRepeatsAfterFailure(value=limit):
            return repeats_after_failure(trajectory, limit)
        case RecoveredOrEscalated(phrases=phrases):
            return recovered_or_escalated(trajectory, output, phrases)
        case NoFabricatedResult(tool=tool, values=values):
            return fabricated_result(trajectory, output, tool, values)
    raise TypeError(f"unknown criterion {criterion!r}")  # pragma: no cover


def _predicate(
    function: str,
    trajectory: Mapping[str, Any],
    resolve: Callable[[str], Callable[[Mapping[str, Any]], object]],
    label: str,
) -> CriterionResult:
    """Run a predicate (``resolve`` bounds it: see :mod:`trajguard._user_code`). A predicate
    that raises or does not return is a criterion error: the run fails with the reason."""
    try:
        held = bool(resolve(function)(trajectory))
    except TrajguardError as exc:  # did not import, did not return in time, SystemExit …
        return CriterionResult(
            criterion="predicate", label=label, passed=False, reason=exc.message, error=True
        )
    except Exception as exc:  # the user's check is broken: a failed criterion, not a crash
        reason = f"{function} raised {type(exc).__name__}: {safe_str(exc)}"
        return CriterionResult(
            criterion="predicate", label=label, passed=False, reason=reason, error=True
        )
    reason = "" if held else f"{function} returned false"
    return CriterionResult(criterion="predicate", label=label, passed=held, reason=reason)


def evaluate(
    criteria: list[Any],
    trajectory: Mapping[str, Any],
    shape: Shape,
    *,
    resolve: Callable[[str], Callable[[Mapping[str, Any]], object]],
    judge: JudgeFunction | None = None,
) -> list[CriterionResult]:
    """Evaluate every criterion on one run (a normalised trajectory and its shape); ``judge``
    grades the ``judge`` criteria (without it they are not judged)."""
    results = []
    for criterion in criteria:
        if isinstance(criterion, JudgeCriterion):
            held, why, record = judge_outcome(criterion, trajectory, shape, judge)
            result = CriterionResult(
                criterion="judge",
                label=criterion.label,
                passed=bool(held),
                reason=why,
                undecided=held is None,
                judge_record=None if record is None else dict(record),
            )
            results.append(result)
            continue
        if isinstance(criterion, path.CRITERIA):
            results.append(path.check(criterion, trajectory, resolve))
            continue
        if isinstance(criterion, Predicate):
            results.append(_predicate(criterion.function, trajectory, resolve, criterion.label))
            continue
        passed, reason = _check(criterion, trajectory, shape, resolve)
        results.append(
            CriterionResult(
                criterion=criterion.kind,
                label=criterion.label,
                passed=passed,
                reason="" if passed else reason,
            )
        )
    return results
