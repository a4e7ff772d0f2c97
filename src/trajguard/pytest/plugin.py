"""The trajguard pytest plugin: hooks and fixtures only (golden trajectories, LLM cassettes,
tool faults).

Registered through the ``pytest11`` entry point, so installing trajguard is enough. This module
is imported by every pytest session of every user: it imports only pytest and the standard
library (and its own small helpers) at load time; trajguard's golden and capture code is
imported when a test first uses a fixture. All state lives in one
:class:`~trajguard.pytest._session.TrajguardSession` per session (per worker under xdist).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Generator, Iterator
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from trajguard.pytest._cassette import LLMCassette
from trajguard.pytest._golden import GoldenCheck, golden_check
from trajguard.pytest._options import add_options, read_settings
from trajguard.pytest._session import TrajguardSession

if TYPE_CHECKING:
    from trajguard.faults import ToolFaults

_SESSION = pytest.StashKey[TrajguardSession]()
_CASSETTE = pytest.StashKey[LLMCassette]()
_CALL_PASSED = pytest.StashKey[bool]()


def pytest_addoption(parser: pytest.Parser) -> None:
    add_options(parser)


def pytest_configure(config: pytest.Config) -> None:
    config.stash[_SESSION] = TrajguardSession(settings=read_settings(config))


@pytest.hookimpl(tryfirst=True)  # before -k / -m / --deselect drop items: see every test
def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    config.stash[_SESSION].record_collection(items, config.args)


@pytest.fixture
def golden_trajectory(request: pytest.FixtureRequest) -> GoldenCheck:
    """Compare a trajectory with this test's golden file; fail with the shape deltas if it moved.

    Call it as ``golden_trajectory(trajectory, *, name=None, token_tolerance=0.0,
    compare_content=True, scrubbers=(), sort_subagents=True)``. ``trajectory`` is an ATIF
    :class:`~trajguard.atif.Trajectory`, a dict, a JSON string or a path. Calling it twice in one
    test without ``name`` numbers the files ``<test>.json``, ``<test>.2.json`` ...
    """
    return golden_check(request, request.config.stash[_SESSION])


@pytest.fixture
def llm_cassette(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LLMCassette]:
    """Models for frozen tests: replayed from ``cassettes/<module>/<test>.json``, or recorded.

    ``llm_cassette.model()`` returns a ``ChatModel`` to hand to the agent; see
    :class:`~trajguard.pytest._cassette.LLMCassette`. Works with ``golden_trajectory``::

        async def test_weather(llm_cassette, golden_trajectory):
            result = await run(llm_cassette.model(), "What is the weather in Paris?")
            golden_trajectory(result.trajectory)
    """
    state = LLMCassette(request, request.config.stash[_SESSION], tmp_path_factory)
    request.node.stash[_CASSETTE] = state
    yield state
    if state.models and _CALL_PASSED not in request.node.stash:
        pytest.fail(
            "llm_cassette: the trajguard.pytest.plugin hooks are not registered, so the test "
            "outcome is unknown and nothing was saved; register the module as a plugin "
            "(pytest_plugins = ['trajguard.pytest.plugin']), not only its fixture",
            pytrace=False,
        )
    state.finish(request.node.stash[_CALL_PASSED] if state.models else False)


@pytest.fixture
def tool_faults(
    request: pytest.FixtureRequest,
) -> Callable[..., AbstractContextManager[ToolFaults]]:
    """Inject tool faults into an agent run against a live model (not a cassette: a replay
    cannot show how a model reacts to a fault).

    ``with tool_faults({"kind": "timeout", "tools": ["search"], "at_call": 1}) as faults:``
    runs the block under that plan (:func:`trajguard.faults.inject_faults`, seeded by the test's
    id): the reference agent picks it up; a callable agent wraps its tools with
    ``faults.wrap``. The block fails the test when no fault was injected.
    """
    if "llm_cassette" in request.fixturenames:
        pytest.fail(
            "tool_faults needs a live model: a cassette replays answers recorded without the "
            "fault, so it cannot show how the model reacts to it; use the embedded model "
            "(trajguard.local_model) in this test instead of llm_cassette",
            pytrace=False,
        )
    from trajguard.faults import inject_faults

    return functools.partial(inject_faults, scenario=request.node.nodeid)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    if call.when == "call":
        item.stash[_CALL_PASSED] = bool(report.passed)
        if report.passed:
            item.config.stash[_SESSION].record_pass(item)
        state = item.stash.get(_CASSETTE, None)
        if state is not None and report.failed:
            shown = str(report.longrepr)
            errors = [e for e in state.cassette_errors() if e not in shown]  # swallowed ones
            notes = errors + state.keep_failed_recordings()
            if notes:
                report.sections.append(("trajguard cassette", "\n".join(notes)))
    return report


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    state = session.config.stash[_SESSION]
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:  # an xdist worker: the controller reports
        workeroutput["trajguard"] = state.to_worker_output()
        return
    if state.conflicts:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: object, error: object) -> None:
    """xdist (controller): merge what a worker used, wrote and passed."""
    output = getattr(node, "workeroutput", None) or {}
    if "trajguard" in output:
        config: pytest.Config = node.config  # type: ignore[attr-defined]
        config.stash[_SESSION].merge_worker_output(output["trajguard"])


def pytest_terminal_summary(
    terminalreporter: pytest.TerminalReporter, exitstatus: int, config: pytest.Config
) -> None:
    if hasattr(config, "workerinput"):
        return
    from trajguard.pytest._summary import write_summary

    write_summary(terminalreporter, config.stash[_SESSION], Path(str(config.rootpath)))
