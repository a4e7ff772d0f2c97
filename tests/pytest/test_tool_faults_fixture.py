"""The ``tool_faults`` fixture, driven through pytester: it injects, it fails a block that
injected nothing, and it refuses to pair with a cassette."""

from __future__ import annotations

import pytest

# Imported once here: pytester restores sys.modules after every in-process run.
import trajguard.faults  # noqa: F401

pytest_plugins = ["pytester"]


@pytest.fixture(autouse=True)
def _quiet_inner_sessions(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:asyncio -p no:hypothesispytest -p no:cacheprovider")


TOOLS = """
import pytest
from trajguard.faults import ToolFault

def search(query):
    return f"results for {query}"
"""


def test_the_fixture_injects_into_a_wrapped_tool(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        TOOLS
        + """
def test_retry(tool_faults):
    with tool_faults({"kind": "rate_limited", "at_call": 1, "tools": ["search"]}) as faults:
        wrapped = faults.wrap(search)
        with pytest.raises(ToolFault, match="retry after 2 s"):
            wrapped("x")
        assert wrapped("x") == "results for x"
    assert [(e.tool, e.call, e.kind) for e in faults.events] == [("search", 1, "rate_limited")]
"""
    )
    pytester.runpytest_inprocess().assert_outcomes(passed=1)


def test_a_block_that_injected_nothing_fails_the_test(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        TOOLS
        + """
def test_never_called(tool_faults):
    with tool_faults({"kind": "timeout", "at_call": 1, "tools": ["search"]}):
        pass
"""
    )
    result = pytester.runpytest_inprocess()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*FaultsNotInjected: no fault was injected*search*"])


def test_the_fixture_refuses_a_cassette(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
def test_replayed(llm_cassette, tool_faults):
    pass
"""
    )
    result = pytester.runpytest_inprocess()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*tool_faults needs a live model*"])


def test_each_test_gets_its_own_reproducible_draws(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        TOOLS
        + """
DRAWS = {}

def draw(tool_faults):
    with tool_faults({"kind": "empty_result", "probability": 0.5}, require_injected=False) as f:
        wrapped = f.wrap(search)
        for _ in range(40):
            wrapped("x")
    return tuple(e.call for e in f.events)

def test_a(tool_faults):
    DRAWS["a"] = draw(tool_faults)
    assert draw(tool_faults) == DRAWS["a"]

def test_b(tool_faults):
    DRAWS["b"] = draw(tool_faults)
    assert DRAWS["b"] != DRAWS["a"]
"""
    )
    pytester.runpytest_inprocess("-p", "no:randomly").assert_outcomes(passed=2)
