"""Frozen mode records and replays both sides of a conversation (issue 37): the agent's calls
into the test's cassette, the simulated user's into its own (``name="user"``). Recorded once
from a scripted provider on 127.0.0.1, the conversation replays without it, and a changed
agent prompt fails the replay (request drift) instead of passing on a stale cassette."""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

import trajguard
import trajguard.pytest._cassette  # imported once, see test_cassette_fixture

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

from trajguard.agent import ReferenceAgent, SimulatedUser, converse


def test_conversation(llm_cassette, golden_trajectory):
    where = {"api_base": os.environ["PROVIDER"], "api_key": "sk-stub"}
    agent_model = llm_cassette.model("openai/agent", **where)
    user_model = llm_cassette.model("openai/user", name="user", **where)
    user = SimulatedUser(model=user_model, goal="a refund for order 1234",
                         facts="- order number: 1234", max_turns=4, seed=11)
    agent = ReferenceAgent(system_prompt=os.environ.get("PROMPT", "You handle refunds."),
                           mode="native")
    result = asyncio.run(converse(agent, agent_model, user, seed=11))
    assert (result.stop_reason, result.user_turns) == ("user_done", 3)
    assert result.final_answer == "Refund issued for order 1234."
    golden_trajectory(result.trajectory)
"""

SAID = [  # in call order: user, agent, user, agent, user
    "Hi, I need a refund.",
    "What is your order number?",
    "It is 1234.",
    "Refund issued for order 1234.",
    "Thanks! ###STOP###",
]


def test_a_recorded_conversation_replays_and_a_changed_prompt_fails(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makeini(
        "[pytest]\naddopts = -p no:cacheprovider -p no:asyncio -p no:hypothesispytest\n"
    )
    pytester.makepyfile(test_agent=TEST)
    with stub.faulty_provider() as provider:
        provider.then(*[stub.Fault(kind="ok", reply=text) for text in SAID])
        monkeypatch.setenv("PROVIDER", provider.api_base)
        recorded = pytester.runpytest("--llm-record-mode=once", "--golden-update")
        recorded.assert_outcomes(passed=1)
        assert len(provider.seen) == 5
    cassettes = pytester.path / "cassettes" / "test_agent"
    user_side = json.loads((cassettes / "test_conversation.user.json").read_text())
    agent_side = json.loads((cassettes / "test_conversation.json").read_text())
    assert len(user_side["interactions"]) == 3 and len(agent_side["interactions"]) == 2
    # the user model plays the user: it was told its goal, and read the agent's answers
    first_user_call = user_side["interactions"][0]["request"]["messages"]
    assert "a refund for order 1234" in first_user_call[0]["content"]
    golden = json.loads(
        (pytester.path / "golden" / "test_agent" / "test_conversation.json").read_text()
    )
    assert [s["source"] for s in golden["steps"]] == ["system", *["user", "agent"] * 2, "user"]

    monkeypatch.setenv("PROVIDER", "http://127.0.0.1:9/v1")  # nothing there: replay only
    # the subprocesses import the trajguard under test (a checkout's, or the installed one)
    source = str(Path(trajguard.__file__).resolve().parents[1])
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([source, os.environ.get("PYTHONPATH", "")]))
    pytester.runpytest_subprocess().assert_outcomes(passed=1)

    monkeypatch.setenv("PROMPT", "You handle refunds. Always confirm before refunding.")
    changed = pytester.runpytest_subprocess()
    changed.assert_outcomes(failed=1)
    assert "RequestDrift" in changed.stdout.str() or "drift" in changed.stdout.str().lower()
