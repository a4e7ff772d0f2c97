"""The trajguard pytest plugin: golden trajectories (and, with capture, cassettes).

Registered through the ``pytest11`` entry point, so installing trajguard is enough. This module
is imported by every pytest session of every user: it imports only pytest and the standard
library at load time; the work happens in :mod:`trajguard.golden`, imported on first use.

Settings, highest precedence first: the command-line option, then the ini option.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from trajguard.golden import GoldenResult

# The cassette fixture (llm_cassette) and its options live in their own plugin module.
pytest_plugins = ["trajguard.pytest_cassette"]

_RESULTS = pytest.StashKey[list["GoldenResult"]]()
# Every golden file this session has checked, and the test (node id) it belongs to.
_OWNERS = pytest.StashKey[dict[str, str]]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("trajguard", "trajguard: golden trajectories")
    group.addoption(
        "--golden-update",
        action="store_true",
        dest="trajguard_golden_update",
        default=False,
        help="write missing golden trajectory files and rewrite those that differ",
    )
    group.addoption(
        "--golden-dir",
        action="store",
        dest="trajguard_golden_dir",
        default=None,
        help="directory (relative to each test file) holding golden files; default 'golden'",
    )
    parser.addini(
        "trajguard_golden_dir",
        "directory (relative to each test file) holding golden trajectory files",
        default="golden",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.stash[_RESULTS] = []
    config.stash[_OWNERS] = {}


def _golden_dir(config: pytest.Config) -> str:
    option = config.getoption("trajguard_golden_dir")
    return str(option if option is not None else config.getini("trajguard_golden_dir"))


def _dir_set_on_command_line(config: pytest.Config) -> bool:
    """Whether the golden dir came from the command line rather than the ini file found.

    ``--golden-dir``, ``-o trajguard_golden_dir=...`` and ``-c <ini file>`` all set it there; a
    printed command that left them out would write the golden to another directory.
    """
    if config.getoption("trajguard_golden_dir") is not None:
        return True
    if config.getoption("inifilename", None) is not None:
        return True
    overrides = config.getoption("override_ini", None) or []
    return any(o.split("=", 1)[0].strip() == "trajguard_golden_dir" for o in overrides)


def _update_command(config: pytest.Config, nodeid: str) -> str:
    """The command that re-runs one test with ``--golden-update``, writing where this run reads."""
    command = f"pytest {shlex.quote(nodeid)} --golden-update"
    if _dir_set_on_command_line(config):
        command += " " + shlex.quote(f"--golden-dir={_golden_dir(config)}")
    return command


def _claim(config: pytest.Config, path: Path, nodeid: str, used: dict[str, str]) -> str | None:
    """Register ``path`` as this call's golden; the reason when another call already uses it."""
    key = os.path.normcase(str(path))
    if key in used:
        return (
            f"golden_trajectory: {path} is already the golden of {used[key]} of this test\n"
            "  hint: give each call of golden_trajectory in a test its own name="
        )
    owner = config.stash[_OWNERS].setdefault(key, nodeid)
    if owner != nodeid:
        return (
            f"golden_trajectory: {path} is already the golden of {owner}; {nodeid} maps to the "
            "same file\n  hint: give one of them a distinct name= (or parametrize id)"
        )
    return None


@pytest.fixture
def golden_trajectory(request: pytest.FixtureRequest) -> Callable[..., None]:
    """Compare a trajectory with this test's golden file; fail with the shape deltas if it moved.

    Call it as ``golden_trajectory(trajectory, *, name=None, token_tolerance=0.0,
    compare_content=True, scrubbers=(), sort_subagents=True)``. ``trajectory`` is an ATIF
    :class:`~trajguard.atif.Trajectory`, a dict, a JSON string or a path. Calling it twice in one
    test without ``name`` numbers the files ``<test>.json``, ``<test>.2.json`` ...
    """
    config = request.config
    update = bool(config.getoption("trajguard_golden_update"))
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
            golden_dir=_golden_dir(config),
        )
        nodeid: str = request.node.nodeid
        command = _update_command(config, nodeid)
        problem = _claim(config, path, nodeid, used)
        if problem is not None:
            pytest.fail(problem, pytrace=False)
        used[os.path.normcase(str(path))] = call
        try:
            actual = normalize(
                load_trajectory(trajectory), sort_subagents=sort_subagents, scrubbers=scrubbers
            )
            result = check_golden(
                path,
                actual,
                update=update,
                token_tolerance=token_tolerance,
                compare_content=compare_content,
            )
        except _InvalidGolden as error:
            problem = f"golden_trajectory: {error}\nRe-record it with:\n    {command}"
        except TrajguardError as error:
            problem = f"golden_trajectory: {error}"
        if problem is not None:
            pytest.fail(problem, pytrace=False)
        config.stash[_RESULTS].append(result)
        if not result.passed:
            pytest.fail(result.failure_message(command), pytrace=False)

    return check


def pytest_terminal_summary(
    terminalreporter: pytest.TerminalReporter, exitstatus: int, config: pytest.Config
) -> None:
    results = config.stash.get(_RESULTS, [])
    written = [r for r in results if r.status in ("created", "updated")]
    if not written:
        return
    rootdir = Path(str(config.rootpath))
    terminalreporter.section("trajguard golden files")
    for result in written:
        try:
            shown = result.path.relative_to(rootdir)
        except ValueError:
            shown = result.path
        terminalreporter.write_line(f"{result.status}: {shown}")
        if result.replaced_error is not None:
            terminalreporter.write_line(f"    replaced, it was unreadable: {result.replaced_error}")
        for delta in result.deltas:
            terminalreporter.write_line(f"    {delta}")
    created = sum(r.status == "created" for r in written)
    terminalreporter.write_line(
        f"{created} created, {len(written) - created} updated: review them in the diff "
        "before committing"
    )
