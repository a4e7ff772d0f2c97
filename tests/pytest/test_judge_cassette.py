"""Frozen mode replays a judged test's verdicts from its cassette: recorded once from a
scripted judge on 127.0.0.1, then replayed without it (issue 25)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest

import trajguard.pytest._cassette  # noqa: F401  (imported once, see test_cassette_fixture)

pytest_plugins = ["pytester"]

_STUB = Path(__file__).resolve().parents[1] / "reliability" / "provider_stub.py"
_spec = importlib.util.spec_from_file_location("trajguard_provider_stub", _STUB)
assert _spec is not None and _spec.loader is not None
stub: Any = sys.modules.get(_spec.name) or importlib.util.module_from_spec(_spec)
if _spec.name not in sys.modules:
    sys.modules[_spec.name] = stub
    _spec.loader.exec_module(stub)

TEST = """
import asyncio, os

from trajguard.judge import JudgeSettings, decide, grade


def test_judged(llm_cassette):
    judge = llm_cassette.model("openai/judge", name="judge", api_base=os.environ["JUDGE_API"],
                               api_key="sk-stub")
    settings = JudgeSettings(rubric="The answer names Paris.", model="openai/judge", samples=3)
    judgement = asyncio.run(grade(judge, settings, "Paris"))
    assert judgement.verdicts == (True, False, True)
    assert decide(judgement.verdicts, "majority")
"""


def test_a_judged_test_records_once_and_replays(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makeini(
        "[pytest]\naddopts = -p no:cacheprovider -p no:asyncio -p no:hypothesispytest\n"
    )
    pytester.makepyfile(test_agent=TEST)
    with stub.faulty_provider() as judge:
        replies = ["VERDICT: PASS", "VERDICT: FAIL\nREASON: no", "PASS - Paris"]
        judge.then(*[stub.Fault(kind="ok", reply=r) for r in replies])
        monkeypatch.setenv("JUDGE_API", judge.api_base)
        pytester.runpytest("--llm-record-mode=once").assert_outcomes(passed=1)
        assert len(judge.seen) == 3
        cassette = pytester.path / "cassettes" / "test_agent" / "test_judged.judge.json"
        assert cassette.exists() and "VERDICT: FAIL" in cassette.read_text()
        # replayed in a process of its own, as a CI run would
        pytester.runpytest_subprocess().assert_outcomes(passed=1)
        assert len(judge.seen) == 3  # no new call reached the judge
    monkeypatch.setenv("JUDGE_API", "http://127.0.0.1:9/v1")  # nothing there
    pytester.runpytest_subprocess().assert_outcomes(passed=1)
