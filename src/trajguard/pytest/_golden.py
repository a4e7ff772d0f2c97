"""The ``golden_trajectory`` check: a trajectory against its test's golden file.

A missing golden fails and prints the command that creates it; ``--golden-update`` writes
missing goldens and rewrites differing ones; a mismatch fails with the shape deltas, the trimmed
diff and the update command.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest

from trajguard.pytest._session import TrajguardSession, Written

__all__ = ["GoldenCheck", "golden_check"]

GoldenCheck = Callable[..., None]


def _update_command(session: TrajguardSession, nodeid: str) -> str:
    """The command that re-runs one test with ``--golden-update``, writing where this run reads."""
    command = f"pytest {shlex.quote(nodeid)} --golden-update"
    if session.settings.golden_dir_given:
        command += " " + shlex.quote(f"--golden-dir={session.settings.golden_dir}")
    return command


def golden_check(request: pytest.FixtureRequest, session: TrajguardSession) -> GoldenCheck:
    """The function the ``golden_trajectory`` fixture returns, for one test."""
    calls = 0
    used: dict[str, str] = {}  # golden file → the call of this test that uses it

    def check(
        trajectory: Any,
        *,
        name: str | None = None,
        token_tolerance: float = 0.0,
        compare_content: bool = True,
        scrubbers: Iterable[Any] = (),
        sort_subagents: bool = True,
    ) -> None:
        __tracebackhide__ = True
        nonlocal calls
        from trajguard.atif import load_trajectory
        from trajguard.core.normalize import normalize
        from trajguard.errors import TrajguardError
        from trajguard.golden import _InvalidGolden, check_golden, golden_path

        calls += 1
        call = f"call {calls} (name={name!r})"
        if name is None and calls > 1:
            name = str(calls)
        path = golden_path(
            Path(str(request.node.path)),
            request.node.name,
            name=name,
            golden_dir=session.settings.golden_dir,
        )
        nodeid: str = request.node.nodeid
        command = _update_command(session, nodeid)
        key = os.path.normcase(str(path))
        if key in used:
            pytest.fail(
                f"golden_trajectory: {path} is already the golden of {used[key]} of this test\n"
                "  hint: give each call of golden_trajectory in a test its own name=",
                pytrace=False,
            )
        owner = session.claim(path, nodeid)
        if owner is not None:
            pytest.fail(
                f"golden_trajectory: {path} is already the golden of {owner}; {nodeid} maps to "
                "the same file\n  hint: give one of them a distinct name= (or parametrize id)",
                pytrace=False,
            )
        used[key] = call
        problem = None
        try:
            actual = normalize(
                load_trajectory(trajectory), sort_subagents=sort_subagents, scrubbers=scrubbers
            )
            result = check_golden(
                path,
                actual,
                update=session.settings.golden_update,
                token_tolerance=token_tolerance,
                compare_content=compare_content,
            )
        except _InvalidGolden as error:
            problem = f"golden_trajectory: {error}\nRe-record it with:\n    {command}"
        except TrajguardError as error:
            problem = f"golden_trajectory: {error}"
        if problem is not None:
            pytest.fail(problem, pytrace=False)
        if result.status in ("created", "updated"):
            details = [f"replaced, it was unreadable: {result.replaced_error}"]
            details = details if result.replaced_error is not None else []
            details += [str(delta) for delta in result.deltas]
            session.written.append(
                Written(kind="golden", status=result.status, path=path, details=tuple(details))
            )
        if not result.passed:
            pytest.fail(result.failure_message(command), pytrace=False)

    return check
