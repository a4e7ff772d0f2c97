"""How a run ended, and what counts as a pass or a crash: the one place this is decided.

Every consumer (the row builder, the progress bar, ``trajguard run``'s summary, ``show``,
``compare``, ``ab``, the plots) counts runs through :func:`classify` or :func:`is_crash_row`.

* ``harness_error`` rows are infrastructure, not behaviour: left out of every statistic (counted).
  The user's own code (agents, tools, predicates) never makes one: :data:`USER_CODE_FAILURES`.
* A crash is a run that did not end normally because of the agent: its status is ``crash``
  (the agent's code raised, or its command exited non-zero), ``agent_error`` (it gave up: ran
  out of steps, overflowed its context, or declared it) or ``timeout`` (a hang or a loop is
  behaviour too, and a timed-out run usually has no ``passed``; without this a candidate that
  times out half the time would show no loss at all), or its ``crashed`` column is true.
  ``trajguard run`` sets ``crashed`` by one rule (:func:`crashed_flag`): true for every run of
  those statuses, with or without steps.
* A crash is a judged failure whatever the row says: run sets written before that rule stored
  crashed runs as passes (or timeouts as unjudged).
* A run whose ``passed`` is null (and that did not crash) is left out of the pass rate only.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import numpy.typing as npt

from trajguard._text import shorten
from trajguard.errors import StoreError

if TYPE_CHECKING:  # the run view (`trajguard runs`, `show --run`) starts without pandas
    import pandas as pd

__all__ = [
    "BEHAVIOURAL_STATUSES",
    "CRITERION_ERROR",
    "DEFAULT_CRASH_STATUSES",
    "HARNESS_ERROR",
    "STATUSES",
    "STATUS_TABLE",
    "USER_CODE_FAILURES",
    "ErrorCount",
    "Outcomes",
    "Status",
    "StatusInfo",
    "Tally",
    "UserCodeFailure",
    "classify",
    "common_errors",
    "crash_reason",
    "crashed_flag",
    "is_behavioural",
    "is_crash_row",
    "passed_row",
    "tally",
]

Status = Literal["ok", "crash", "agent_error", "harness_error", "timeout"]
BoolArray = npt.NDArray[np.bool_]


@dataclass(frozen=True, kw_only=True)
class StatusInfo:
    """One run status: what it means and how the statistics treat it."""

    name: Status
    meaning: str
    behavioural: bool
    """The run says something about the agent (it enters the statistics)."""
    crash: bool
    """The run counts as a crash (by default; ``crash_statuses`` can change the set)."""


STATUS_TABLE: tuple[StatusInfo, ...] = (
    StatusInfo(name="ok", meaning="the agent finished", behavioural=True, crash=False),
    StatusInfo(
        name="crash",
        meaning="the agent's own code raised (SystemExit and the like included), its command "
        "exited non-zero, or it gave back no usable trajectory: error_type is the exception's "
        "class, error_message ends with where the agent's code raised it (file:line)",
        behavioural=True,
        crash=True,
    ),
    StatusInfo(
        name="agent_error",
        meaning="the agent gave up: it ran out of steps, overflowed its context, a tool's "
        "escape stopped the reference agent, or it declared it (agent_errors, "
        "ctx.agent_error, a command's {agent_error} file): error_type is the reason",
        behavioural=True,
        crash=True,
    ),
    StatusInfo(
        name="timeout", meaning="the per-run time limit passed", behavioural=True, crash=True
    ),
    StatusInfo(
        name="harness_error",
        meaning="trajguard's or the provider's infrastructure failed (a model endpoint that "
        "stayed unreachable, a lost Ray worker, a bug in trajguard), never the user's code; "
        "excluded from every statistic",
        behavioural=False,
        crash=False,
    ),
)
STATUSES = frozenset(s.name for s in STATUS_TABLE)
HARNESS_ERROR: Status = "harness_error"
DEFAULT_CRASH_STATUSES = frozenset(s.name for s in STATUS_TABLE if s.crash)
BEHAVIOURAL_STATUSES = frozenset(s.name for s in STATUS_TABLE if s.behavioural)
"""Statuses whose runs enter the statistics (read from :data:`STATUS_TABLE`)."""


CRITERION_ERROR = "criterion_error"
"""The ``error_type`` of a run whose criterion could not judge it (a predicate raised or did not
return in time): the criterion fails with its reason, the run keeps its status."""


@dataclass(frozen=True, kw_only=True)
class UserCodeFailure:
    """Whose fault it was: how a failure of the user's own code is recorded."""

    code: Literal["callable agent", "command agent", "tool", "predicate"]
    failure: str
    status: Status | None
    """The run's status; ``None``: the status the run had anyway (the criterion fails)."""
    error_type: str
    """The run's ``error_type`` (``<class>``: the exception's class name)."""


USER_CODE_FAILURES: tuple[UserCodeFailure, ...] = (
    UserCodeFailure(
        code="callable agent",
        failure="raises (SystemExit, KeyboardInterrupt and GeneratorExit of its own included), "
        "an exception its agent_errors do not list; the message ends with the file:line of "
        "the agent's own code that raised it",
        status="crash",
        error_type="<class>",
    ),
    UserCodeFailure(
        code="callable agent",
        failure="returns no usable trajectory",
        status="crash",
        error_type="AgentFailure",
    ),
    UserCodeFailure(
        code="command agent",
        failure="exits non-zero or writes no valid trajectory (a FIFO or a device included)",
        status="crash",
        error_type="AgentFailure",
    ),
    UserCodeFailure(
        code="tool",
        failure="raises SystemExit, KeyboardInterrupt or GeneratorExit",
        status="agent_error",
        error_type="<class>",
    ),
    UserCodeFailure(
        code="tool",
        failure="raises any other exception, or returns what cannot be shown to the model (a "
        "cycle, a generator, an object whose str() raises): an error observation the model "
        "reads; the run ends as the agent ends it",
        status=None,
        error_type="(the run's)",
    ),
    UserCodeFailure(
        code="predicate",
        failure="raises (SystemExit included), or does not return within its bound",
        status=None,
        error_type=CRITERION_ERROR,
    ),
    UserCodeFailure(
        code="callable agent",
        failure="does not end within the run's timeout_s (a hang in the agent or a tool)",
        status="timeout",
        error_type="TimeoutError",
    ),
)
"""Every kind of user code and how its failure counts: the agent's or the criterion's, always
in the statistics; never a ``harness_error`` (README, "Whose fault it was")."""


def is_behavioural(status: object) -> bool:
    """Whether a run of this status says something about the agent (:data:`STATUS_TABLE`)."""
    return status in BEHAVIOURAL_STATUSES


def is_crash_row(
    status: str, crashed: object = None, crash_statuses: Iterable[str] = DEFAULT_CRASH_STATUSES
) -> bool:
    """Whether one run crashed, given its ``status`` and ``crashed`` values. A ``harness_error``
    row is never a crash: it is left out before anything is counted."""
    if not is_behavioural(status):
        return False
    flag = bool(crashed) if isinstance(crashed, bool | np.bool_) else False
    return status in frozenset(crash_statuses) or flag


def crashed_flag(status: str, raised: bool = False) -> bool | None:
    """The ``crashed`` column of a run ``trajguard run`` writes, by one rule: whether the run
    counts as a crash (its status is a crash status, or the agent raised), so a timeout is
    flagged whether or not it recorded steps; ``None`` for a harness error (not judged)."""
    return is_crash_row(status, raised) if is_behavioural(status) else None


def crash_reason(row: Mapping[str, Any]) -> str:
    """The first ``failed_criteria`` entry of a crashed run's row: how it ended."""
    error = row.get("error_type")
    detail = f" ({error}: {str(row.get('error_message') or '')[:200]})" if error else ""
    return f"no crash: the run ended as {row['status']}{detail}"


def passed_row(status: str, crashed: object, passed: object) -> bool:
    """Whether one run counts as passed: judged true and not a crash."""
    return passed is True and not is_crash_row(status, crashed)


@dataclass(frozen=True, kw_only=True)
class Outcomes:
    """Per-row classification of a run table (one entry per row, in table order)."""

    behavioural: BoolArray
    """Not a harness error: the row enters the statistics."""
    crashed: BoolArray
    """A behavioural run that crashed."""
    judged: BoolArray
    """A behavioural run with a pass/fail outcome (``passed`` not null, or a crash)."""
    passed: BoolArray
    """A judged run that passed (never a crash)."""


def _booleans(table: pd.DataFrame, column: str) -> pd.Series:
    """A nullable boolean column; anything else is an input error naming the column."""
    try:
        return table[column].astype("boolean")
    except (TypeError, ValueError) as error:
        raise StoreError(
            f"column {column} must hold true, false or null ({error})",
            path=column,
            hint="pass a run set written by `trajguard run`",
        ) from error


def classify(
    table: pd.DataFrame,
    *,
    crash_statuses: Iterable[str] = DEFAULT_CRASH_STATUSES,
    side: str = "run set",
) -> Outcomes:
    """Classify every run of a table (columns ``status``, ``passed``, optionally ``crashed``).

    Raises:
        StoreError: a column is missing or a status is not one of :data:`STATUSES`.
    """
    missing = [c for c in ("status", "passed") if c not in table.columns]
    if missing:
        raise StoreError(
            f"the {side} run table lacks column(s) {', '.join(missing)}",
            path=missing[0],
            hint="pass a run set written by `trajguard run` (one row per run)",
        )
    status = table["status"].astype("string").fillna("")
    unknown = sorted(set(status.unique()) - STATUSES)
    if unknown:
        raise StoreError(
            f"the {side} run table has unknown status value(s) {unknown}",
            path="status",
            hint=f"allowed: {', '.join(sorted(STATUSES))}",
        )
    behavioural = status.isin(BEHAVIOURAL_STATUSES).to_numpy(dtype=bool)
    crashed = status.isin(frozenset(crash_statuses)).to_numpy(dtype=bool)
    if "crashed" in table.columns:
        crashed = crashed | _booleans(table, "crashed").fillna(False).to_numpy(dtype=bool)
    crashed = crashed & behavioural
    passed = _booleans(table, "passed")
    judged = (passed.notna().to_numpy(dtype=bool) | crashed) & behavioural
    outcome = passed.fillna(False).to_numpy(dtype=bool) & ~crashed & judged
    return Outcomes(behavioural=behavioural, crashed=crashed, judged=judged, passed=outcome)


@dataclass(frozen=True, kw_only=True)
class Tally:
    """Counts of a run table's outcomes."""

    runs: int
    harness_errors: int
    judged: int
    passed: int
    crashed: int

    @property
    def behavioural(self) -> int:
        """Runs that enter the statistics."""
        return self.runs - self.harness_errors

    @property
    def pass_rate(self) -> float | None:
        """Passed runs over judged runs (``None`` when none was judged)."""
        return self.passed / self.judged if self.judged else None

    @property
    def crash_rate(self) -> float | None:
        """Crashed runs over behavioural runs (``None`` without any)."""
        return self.crashed / self.behavioural if self.behavioural else None


def tally(
    table: pd.DataFrame,
    *,
    crash_statuses: Iterable[str] = DEFAULT_CRASH_STATUSES,
    side: str = "run set",
) -> Tally:
    """Count the outcomes of a run table with :func:`classify`."""
    outcomes = classify(table, crash_statuses=crash_statuses, side=side)
    return Tally(
        runs=len(table),
        harness_errors=int((~outcomes.behavioural).sum()),
        judged=int(outcomes.judged.sum()),
        passed=int(outcomes.passed.sum()),
        crashed=int(outcomes.crashed.sum()),
    )


@dataclass(frozen=True, kw_only=True)
class ErrorCount:
    """How many runs ended with one error (its type, and the first line of its message)."""

    error_type: str
    message: str
    runs: int
    example_run: str | None = None
    """The run id of the first run with this error (when the run ids were given)."""
    whole: str = ""
    """That run's whole error message."""

    def summary(self, runset: object, *, width: int = 160) -> str:
        """``<type>: <message>``, the message shortened at a word boundary, and when it was
        shortened the command that shows it whole (``trajguard show RUNSET --run ID``)."""
        text, cut = shorten(self.whole or self.message, width)
        line = f"{self.error_type}: {text}"
        if cut and self.example_run is not None:
            line += f" (whole message: trajguard show {runset} --run {self.example_run})"
        return line


_MESSAGE_CHARS = 160


def common_errors(
    errors: Iterable[tuple[object, object]],
    *,
    top: int = 3,
    run_ids: Iterable[object] | None = None,
) -> tuple[ErrorCount, ...]:
    """The most common ``(error_type, error_message)`` pairs of some runs, most frequent first.

    Runs without an error type are skipped; messages are compared on their first line, cut at
    160 characters (the rest usually holds ids and tracebacks that differ run to run).

    Args:
        run_ids: the run id of each pair, in order: each count then names its first run and
            carries that run's whole message (:meth:`ErrorCount.summary`).
    """
    counts: Counter[tuple[str, str]] = Counter()
    first_run: dict[tuple[str, str], tuple[str, str]] = {}
    ids = iter(run_ids) if run_ids is not None else None
    for error_type, message in errors:
        run_id = next(ids) if ids is not None else None
        if error_type is None or (isinstance(error_type, float) and np.isnan(error_type)):
            continue
        text = message if isinstance(message, str) else ""
        first = text.strip().splitlines()[0] if text.strip() else ""
        key = (str(error_type), first[:_MESSAGE_CHARS])
        counts[key] += 1
        if run_id is not None and key not in first_run:
            first_run[key] = (str(run_id), text)
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return tuple(
        ErrorCount(
            error_type=kind,
            message=message,
            runs=runs,
            example_run=first_run.get((kind, message), (None, ""))[0],
            whole=first_run.get((kind, message), (None, ""))[1],
        )
        for (kind, message), runs in ranked[:top]
    )
