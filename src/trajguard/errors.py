"""The one exception hierarchy of trajguard.

Every error a user can cause says what was wrong, where (file, line, JSON path, field, scenario)
and what to do next. The CLI prints ``str(error)`` without a traceback and exits with
``error.exit_code``: 2 for input and usage errors, 3 for infrastructure failures.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from trajguard.atif import Trajectory

__all__ = [
    "PROVIDER_FAILURES",
    "AgentFailure",
    "BatchInterrupted",
    "CassetteError",
    "EmbeddedModelCrashed",
    "GoldenError",
    "ImportPathError",
    "InfrastructureError",
    "InvalidResultData",
    "InvalidTrajectory",
    "MissingExtra",
    "ModelRequestError",
    "ModelUnavailable",
    "RequestDrift",
    "ScriptExhausted",
    "SourceLogError",
    "StoreBusy",
    "StoreError",
    "SuiteError",
    "SuiteErrors",
    "TrajguardError",
    "UnsupportedSchemaVersion",
    "UsageError",
    "UserCodeError",
    "suite_problems",
]


class TrajguardError(Exception):
    """Base of every error trajguard raises on purpose.

    Args:
        message: what was wrong, as one sentence.
        file: the file the problem is in, if any.
        line: 1-based line in ``file``, if known.
        path: a JSON path (``$.steps[3].source``) or a field name, if any.
        hint: what the user can do about it.
        details: further problems of the same kind, one line each.
    """

    exit_code = 2

    def __init__(
        self,
        message: str,
        *,
        file: str | Path | None = None,
        line: int | None = None,
        path: str | None = None,
        hint: str | None = None,
        details: Sequence[str] = (),
    ) -> None:
        self.message = message
        self.details = tuple(details)
        self.file = str(file) if file is not None else None
        self.line = line
        self.path = path
        self.hint = hint
        super().__init__(str(self))

    def location(self) -> str:
        """``file:line: $.path`` with whatever parts are known."""
        parts: list[str] = []
        if self.file is not None:
            parts.append(self.file if self.line is None else f"{self.file}:{self.line}")
        if self.path:
            parts.append(self.path)
        return ": ".join(parts)

    def __str__(self) -> str:
        where = self.location()
        text = f"{where}: {self.message}" if where else self.message
        for detail in self.details:
            text += f"\n    {detail}"
        if self.hint:
            text += f"\n  hint: {self.hint}"
        return text


class UsageError(TrajguardError):
    """A command-line mistake: an option out of range, or options that do not combine."""


class SourceLogError(TrajguardError):
    """Another tool's eval log (Inspect AI, promptfoo, Harbor) that cannot be imported."""


class InvalidTrajectory(TrajguardError):
    """Input that is not JSON, not ATIF, or breaks the ATIF structure."""


class UnsupportedSchemaVersion(InvalidTrajectory):
    """An ATIF ``schema_version`` outside the supported range (v1.0 to v1.8)."""


class GoldenError(TrajguardError):
    """A golden file that cannot be read or written."""


class SuiteError(TrajguardError):
    """A suite file that is not valid."""


class SuiteErrors(SuiteError):
    """Every problem of a suite file found in one pass (``validate`` prints them all).

    The error's own file, line, path and message are those of the first problem, so code
    that reads one problem reads the first; ``problems`` holds every one, in file order.
    """

    def __init__(self, problems: Sequence[SuiteError]) -> None:
        if not problems:
            raise ValueError("SuiteErrors needs at least one problem")
        self.problems = tuple(problems)
        first = self.problems[0]
        super().__init__(first.message, file=first.file, line=first.line, path=first.path)
        self.hint = first.hint

    def __str__(self) -> str:
        count = len(self.problems)
        head = f"{self.file}: {count} problems" if self.file else f"{count} problems"
        body = "\n".join(f"[{i}] {p}" for i, p in enumerate(self.problems, start=1))
        return f"{head} (fix them all, then validate again):\n{body}"


def suite_problems(problems: Sequence[SuiteError]) -> SuiteError:
    """The one error to raise for ``problems``: the problem itself when there is one."""
    return problems[0] if len(problems) == 1 else SuiteErrors(problems)


class ImportPathError(SuiteError):
    """A ``module:function`` import path (tool, predicate, callable agent) that does not resolve."""


class StoreError(TrajguardError):
    """A run set or Parquet file that cannot be read or written."""


class CassetteError(TrajguardError):
    """A cassette that is missing, unreadable or does not match the run."""


class InvalidResultData(TrajguardError):
    """A result document (``comparison.json``) that is not JSON or does not match its types."""


class ScriptExhausted(CassetteError):
    """Replay was asked for one model call more than the cassette recorded."""


class RequestDrift(CassetteError):
    """A replayed request differs from the request that was recorded."""


class InfrastructureError(TrajguardError):
    """Something outside the user's input failed: the model, the disk, a server."""

    exit_code = 3


class ModelUnavailable(InfrastructureError):
    """The model did not answer usefully: unreachable, rate limited, refused the credentials,
    does not serve the model, or answered with something that is not a completion.

    ``reason`` says which (one of :data:`PROVIDER_FAILURES`); it is the run's ``error_type``.
    Credentials and model names are the user's to fix (exit 2); the rest is infrastructure
    (exit 3).
    """

    def __init__(self, message: str, *, reason: str = "unreachable", **kwargs: object) -> None:
        if reason not in PROVIDER_FAILURES:
            raise ValueError(f"unknown provider failure {reason!r}")
        self.reason = reason
        self.exit_code = PROVIDER_FAILURES[reason]
        super().__init__(message, **kwargs)  # type: ignore[arg-type]


PROVIDER_FAILURES: dict[str, int] = {
    "unreachable": 3,  # no answer: refused connection, timeout, cut connection
    "server_error": 3,  # HTTP 5xx after the retries
    "rate_limited": 3,  # HTTP 429 after the retries (Retry-After honoured, capped)
    "malformed_response": 3,  # an answer that is not a chat completion (bad JSON, no choices)
    "auth": 2,  # missing or refused credentials: never retried
    "not_found": 2,  # the endpoint does not serve the model: never retried
    "crashed": 3,  # the embedded model's server process died (a signal or an exit of its own)
}
"""How a provider can fail, and the exit code each gives."""


class EmbeddedModelCrashed(ModelUnavailable):
    """The embedded model's llama.cpp server process died: killed by a signal (a segfault of
    its native build) or exited on its own. Not a network failure, and a rerun will not help:
    the message says how it died, what its log said last and which CPU features its build
    uses; the hint says how to install a build that runs on this CPU. A batch that meets it
    stops (resumably) instead of recording the runs it broke as failures."""

    def __init__(self, message: str, **kwargs: object) -> None:
        super().__init__(message, reason="crashed", **kwargs)


class ModelRequestError(TrajguardError):
    """The model endpoint answered but rejected the request (bad request, context overflow).

    This is not retried: the same request would fail again. An agent records it as an agent
    error of the run rather than an infrastructure failure.
    """

    def __init__(self, message: str, *, context_overflow: bool = False, **kwargs: object) -> None:
        self.context_overflow = context_overflow
        super().__init__(message, **kwargs)  # type: ignore[arg-type]


class StoreBusy(InfrastructureError):
    """Another trajguard process is writing the same shared state (a baseline being promoted, a
    run set being run or resumed); this one waited for it, or refused at once, and wrote
    nothing."""


class MissingExtra(InfrastructureError):
    """An optional dependency is not installed; the message names the install command."""


class AgentFailure(TrajguardError):
    """The agent failed in a way that is part of its behaviour (recorded as a ``crash``);
    ``trajectory`` holds what was captured up to the failure, if anything; ``raised_at`` where
    the agent's own code raised (``path:line``, the path relative to the suite's directory)."""

    def __init__(
        self,
        message: str,
        *,
        trajectory: Trajectory | None = None,
        raised_at: str | None = None,
    ) -> None:
        self.trajectory = trajectory
        self.raised_at = raised_at
        super().__init__(message)


class UserCodeError(TrajguardError):
    """The user's code (a callable agent, a tool, a predicate) failed in a way Python code must
    not fail inside a batch: it raised ``SystemExit``, ``KeyboardInterrupt`` or
    ``GeneratorExit`` of its own, or did not return within its bound. It is that run's failure
    (``error_type`` names which), never the batch's."""

    def __init__(self, message: str, *, error_type: str, **kwargs: object) -> None:
        self.error_type = error_type
        super().__init__(message, **kwargs)  # type: ignore[arg-type]


class BatchInterrupted(TrajguardError):
    """A batch was interrupted (Ctrl-C); its finished runs are on disk and it can be resumed."""

    exit_code = 130
