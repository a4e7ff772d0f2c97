"""Golden files: read, compare, write.

A golden file is the canonical JSON (sorted keys, two-space indent, trailing newline) of a
normalised trajectory, committed next to the test that produced it and reviewed in the diff. A
missing golden is a failure on a normal run, never created silently; ``--golden-update`` writes
it. Writes are atomic (temp file in the same directory, then rename).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from trajguard._files import atomic_write_text, test_artifact_path
from trajguard._json import MAX_DOCUMENT_BYTES, loads_bounded, read_regular_bytes
from trajguard.core.diff import Delta, diff, render_diff
from trajguard.core.normalize import Normalized, canonical_json, normalize
from trajguard.core.shape import Shape, shape
from trajguard.errors import GoldenError

__all__ = [
    "GoldenResult",
    "check_golden",
    "golden_path",
    "golden_text",
    "read_golden",
    "write_golden",
]

Status = Literal["match", "created", "updated", "missing", "mismatch", "schema_mismatch"]


def golden_path(
    test_file: Path, test_name: str, *, name: str | None = None, golden_dir: str = "golden"
) -> Path:
    """A test's golden: ``<test dir>/<golden_dir>/<module>/<test>[.<name>].json``."""
    return test_artifact_path(test_file, test_name, name=name, folder=golden_dir)


def golden_text(normalized: Mapping[str, Any]) -> str:
    """The exact text of a golden file for a normalised trajectory."""
    return canonical_json(normalized, indent=2) + "\n"


class _InvalidGolden(GoldenError):
    """A golden file that exists but does not hold a trajectory: ``--golden-update`` replaces it."""


_RERECORD = "re-record it with --golden-update"
_RESOLVE = "resolve the merge conflict or re-record it with --golden-update"


def _read_bytes(path: Path) -> bytes | None:
    try:
        return read_regular_bytes(path, max_bytes=MAX_DOCUMENT_BYTES)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise GoldenError(f"cannot read golden file: {exc}", file=path) from None


def _parse(data: bytes, path: Path) -> dict[str, Any]:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _InvalidGolden(
            f"golden file is not UTF-8 text (byte {exc.start})", file=path, hint=_RERECORD
        ) from None
    try:
        golden = loads_bounded(text)
    except json.JSONDecodeError as exc:
        raise _InvalidGolden(
            f"golden file is not valid JSON: {exc.msg}", file=path, line=exc.lineno, hint=_RESOLVE
        ) from None
    except ValueError as exc:  # nested too deep, or a number Python will not convert
        raise _InvalidGolden(
            f"golden file is not readable: {exc}", file=path, hint=_RERECORD
        ) from None
    if not isinstance(golden, dict):
        raise _InvalidGolden("golden file does not hold a JSON object", file=path, hint=_RERECORD)
    return golden


def read_golden(path: Path) -> dict[str, Any] | None:
    """The golden's content, or ``None`` when the file does not exist."""
    data = _read_bytes(path)
    return None if data is None else _parse(data, path)


def _expected(golden: Mapping[str, Any], path: Path) -> tuple[Normalized, Shape]:
    """The normalised trajectory a golden holds, and its shape."""
    steps = golden.get("steps")
    if not isinstance(steps, list) or not all(isinstance(step, dict) for step in steps):
        raise _InvalidGolden(
            "golden file does not hold a trajectory: steps must be a list of step objects",
            file=path,
            path="$.steps",
            hint=_RERECORD,
        )
    try:
        expected = normalize(golden)
        return expected, shape(expected)
    except (AttributeError, KeyError, TypeError, ValueError) as exc:
        raise _InvalidGolden(
            f"golden file does not hold a valid trajectory ({type(exc).__name__}: {exc})",
            file=path,
            hint=_RERECORD,
        ) from None


def write_golden(path: Path, normalized: Mapping[str, Any]) -> None:
    """Write a golden file atomically, creating its directory."""
    try:
        atomic_write_text(path, golden_text(normalized))
    except OSError as exc:
        raise GoldenError(f"cannot write golden file: {exc}", file=path) from None


@dataclass(frozen=True, kw_only=True)
class GoldenResult:
    """The outcome of checking (or updating) one golden file."""

    status: Status
    path: Path
    deltas: tuple[Delta, ...] = ()
    text_diff: str = ""
    recorded_version: str | None = None
    running_version: str | None = None
    replaced_error: str | None = None
    """Why the old golden could not be read, when ``--golden-update`` replaced it."""

    @property
    def passed(self) -> bool:
        """Whether the test should pass."""
        return self.status in ("match", "created", "updated")

    def failure_message(self, update_command: str) -> str:
        """What a failing test prints: deltas, then the diff, then the command to update."""
        if self.status == "missing":
            return (
                f"golden file missing: {self.path}\n"
                "A missing golden is never created on a normal run. Review the run, then create "
                f"it with:\n    {update_command}"
            )
        if self.status == "schema_mismatch":
            return (
                f"golden recorded under {self.recorded_version}, running "
                f"{self.running_version}: re-record\n    {update_command}\n(golden: {self.path})"
            )
        lines = [f"trajectory differs from golden {self.path}", "", "Shape changes:"]
        lines += [f"  {delta}" for delta in self.deltas] or ["  (none)"]
        if self.text_diff:
            lines += ["", "Diff of the normalised trajectory (golden → actual):", self.text_diff]
        lines += ["If this change is intended, update the golden with:", f"    {update_command}"]
        return "\n".join(lines)


def check_golden(
    path: Path,
    actual: Mapping[str, Any],
    *,
    update: bool = False,
    token_tolerance: float = 0.0,
    compare_content: bool = True,
) -> GoldenResult:
    """Compare a normalised trajectory with its golden file, or write it when ``update``.

    With ``update``, a golden the run still matches is left untouched (status ``match``, so that
    tolerances do not churn the file); a failing one is rewritten (``updated``, with the deltas it
    had); a missing one is written (``created``); one that is not a trajectory (a merge
    conflict, say) is replaced (``updated``, with ``replaced_error`` saying what was wrong).

    Raises:
        GoldenError: the golden cannot be read or written, or (without ``update``) does not
            hold a trajectory.
    """
    current = actual if isinstance(actual, Normalized) else normalize(actual)
    data = _read_bytes(path)
    if data is None:
        if update:
            write_golden(path, current)
            return GoldenResult(status="created", path=path)
        return GoldenResult(status="missing", path=path)
    try:
        expected, expected_shape = _expected(_parse(data, path), path)
    except _InvalidGolden as error:
        if not update:
            raise
        write_golden(path, current)
        return GoldenResult(status="updated", path=path, replaced_error=error.message)
    recorded, running = expected.get("schema_version"), current.get("schema_version")
    if recorded != running and not update:
        return GoldenResult(
            status="schema_mismatch", path=path, recorded_version=recorded, running_version=running
        )
    deltas = tuple(
        diff(
            expected_shape,
            current,
            token_tolerance=token_tolerance,
            compare_content=compare_content,
        )
    )
    if update:
        if not deltas and recorded == running:
            return GoldenResult(status="match", path=path)
        write_golden(path, current)
        return GoldenResult(status="updated", path=path, deltas=deltas)
    if not deltas:
        return GoldenResult(status="match", path=path)
    return GoldenResult(
        status="mismatch",
        path=path,
        deltas=deltas,
        text_diff=render_diff(expected, current, golden_name=f"golden/{path.name}"),
    )
