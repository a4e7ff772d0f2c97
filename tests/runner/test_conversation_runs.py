"""Conversations through ``run_batch`` on a scripted model (issue 37): scripted turns and a
simulated user, for the builtin, callable and command agents; per-turn criteria, the user's
calls kept out of the agent's counts, ``stop_reason`` and ``user_turns`` in the row."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import Any

import pytest
from trajguard_testkit.scripted import Scripted

from trajguard.agent import user_seed
from trajguard.atif import load_trajectory
from trajguard.capture import Message
from trajguard.errors import SuiteError
from trajguard.normative import check_normative

from .test_agent_kinds import Project, batch, project  # noqa: F401  (the fixture)

USER_SYSTEM = "You are a user talking to an AI assistant"


def last_user(messages: Sequence[Message]) -> str:
    return next(str(m["content"]) for m in reversed(messages) if m["role"] == "user")


def support_agent(messages: Sequence[Message], _: dict[str, Any]) -> str:
    """The agent's side: asks for the order number until it has one (json mode)."""
    said = " ".join(str(m["content"]) for m in messages if m["role"] == "user")
    if "1234" in said:
        return json.dumps({"tool": "final_answer", "answer": "Refund issued for order 1234."})
    return json.dumps({"tool": "final_answer", "answer": "What is your order number?"})


BUILTIN_TURNS = """  - id: refund
    agent: {kind: builtin, mode: json, system_prompt: You handle refunds.}
    turns:
      - I want a refund.
      - say: It is order 1234.
        criteria:
          - final_output_contains: refund issued
      - say: Thanks!
        criteria:
          - final_output_contains: order number
    pass:
      - final_output_contains: "1234"
"""


async def test_scripted_turns_on_the_builtin_agent(project: Project) -> None:  # noqa: F811
    model = Scripted(support_agent)
    _, runs = await batch(project.suite(BUILTIN_TURNS), project.runset(), model, seed=3)
    assert len(runs) == 2
    for _, row in runs.iterrows():
        assert (row["status"], row["stop_reason"], row["user_turns"]) == ("ok", "user_done", 3)
        trajectory = load_trajectory(row["trajectory"])
        assert check_normative(trajectory) == []
        assert [s.source for s in trajectory.steps] == [
            "system", "user", "agent", "user", "agent", "user", "agent"
        ]  # fmt: skip
        # one episode: the third call holds the whole conversation, answers included
        assert row["llm_calls"] == 3
        criteria = {c["criterion"]: c["held"] for c in row["criteria"]}
        assert criteria == {
            'final_output_contains: "1234"': True,
            'turn 2: final_output_contains: "refund issued"': True,
            'turn 3: final_output_contains: "order number"': False,
        }
        assert not row["passed"]
        assert any(f.startswith("final_output_contains: turn 3:") for f in row["failed_criteria"])
    third_call = [m for m in model.calls[2][0] if m["role"] in ("user", "assistant")]
    assert [m["role"] for m in third_call] == ["user", "assistant"] * 2 + ["user"]


def simulated_user_world(messages: Sequence[Message], _: dict[str, Any]) -> str:
    """Both sides on one scripted model: the user (its system prompt says so) gives the order
    number when asked and says the done token once the refund is issued."""
    if USER_SYSTEM in str(messages[0]["content"]):
        read = last_user(messages)
        if "Refund issued" in read:
            return "Great, thank you. ###STOP###"
        if "order number" in read:
            return "It is 1234."
        return "Hi, I need a refund."
    return support_agent(messages, _)


SIMULATED = """  - id: simulated
    agent: {kind: builtin, mode: json}
    user:
      goal: get a refund for order 1234
      persona: brief
      facts: {order number: "1234"}
      max_turns: 5
    pass:
      - final_output_contains: "1234"
"""


async def test_a_simulated_user_until_it_is_done(project: Project) -> None:  # noqa: F811
    model = Scripted(simulated_user_world)
    _, runs = await batch(project.suite(SIMULATED), project.runset(), model, seed=5)
    for _, row in runs.iterrows():
        assert (row["status"], row["stop_reason"], row["user_turns"]) == ("ok", "user_done", 3)
        assert row["passed"]
        trajectory = load_trajectory(row["trajectory"])
        assert check_normative(trajectory) == []
        users = [s for s in trajectory.steps if s.source == "user"]
        assert [s.message for s in users] == [
            "Hi, I need a refund.",
            "It is 1234.",
            "Great, thank you.",
        ]
        calls = [s.extra["simulated_user"] for s in users]
        assert [c["seed"] for c in calls] == [user_seed(int(row["seed"]), i) for i in range(3)]
        assert calls[-1]["said_done"] is True
        # the user's three calls are the user's: the agent made two, and only its tokens count
        assert (row["llm_calls"], row["prompt_tokens"], row["completion_tokens"]) == (2, 80, 16)
        assert all(s.metrics is None and s.model_name is None for s in users)
        assert trajectory.extra["conversation"] == {"stop_reason": "user_done", "user_turns": 3}
    assert len(model.calls) == 2 * 5  # per run: 3 user calls, 2 agent calls


async def test_a_user_that_never_says_done_is_bounded_by_max_turns(project: Project) -> None:  # noqa: F811
    def chatty(messages: Sequence[Message], _: dict[str, Any]) -> str:
        if USER_SYSTEM in str(messages[0]["content"]):
            return "And another thing."
        return json.dumps({"tool": "final_answer", "answer": "Noted."})

    suite = project.suite(SIMULATED.replace("max_turns: 5", "max_turns: 4"))
    model = Scripted(chatty)
    _, runs = await batch(suite, project.runset(), model, seed=1)
    assert runs["stop_reason"].tolist() == ["max_turns"] * 2
    assert runs["user_turns"].tolist() == [4, 4]
    assert runs["llm_calls"].tolist() == [4, 4]  # the agent answered each of the four
    assert len(model.calls) == 2 * 8


async def test_an_agent_that_gives_up_ends_the_conversation(project: Project) -> None:  # noqa: F811
    def looping(messages: Sequence[Message], _: dict[str, Any]) -> str:
        return json.dumps({"tool": "nope", "arguments": {}})

    suite = project.suite(BUILTIN_TURNS.replace("  pass:", "  max_steps: 2\n    pass:"))
    _, runs = await batch(suite, project.runset(), Scripted(looping), seed=1)
    assert runs["status"].tolist() == ["agent_error"] * 2
    assert runs["stop_reason"].tolist() == ["agent_ended"] * 2
    assert runs["user_turns"].tolist() == [1, 1]
    # turn 2 was never reached: its criterion fails and says so
    reasons = [c["reason"] for c in runs["criteria"][0] if c["criterion"].startswith("turn 2")]
    assert reasons == ["turn 2: the conversation ended after 1 user message(s)"]


CALLABLE_AGENT = """
import json, urllib.request

async def agent(ctx):
    message = ctx.input
    while message is not None:
        reply = await ctx.model.complete(ctx.conversation.messages)
        answer = json.loads(reply.content)["answer"]
        ctx.recorder.user(message)
        ctx.recorder.agent_step(reply, message=answer)
        message = await ctx.conversation.areply(answer)
    return answer

def sync_agent(ctx):  # through the run's endpoint, as a framework's client would
    message = ctx.input
    while message is not None:
        body = {"model": ctx.model_name, "messages": ctx.conversation.messages}
        request = urllib.request.Request(
            ctx.base_url + "/chat/completions", data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request) as answer:
            content = json.load(answer)["choices"][0]["message"]["content"]
        message = ctx.conversation.reply(json.loads(content)["answer"])
"""


async def test_a_callable_agent_takes_its_turns(project: Project) -> None:  # noqa: F811
    module = project.module(CALLABLE_AGENT)
    scenarios = (
        f'  - id: async\n    agent: {{kind: callable, function: "{module}:agent"}}\n'
        + SIMULATED.split("\n", 2)[2]
    )
    model = Scripted(simulated_user_world)
    _, runs = await batch(project.suite(scenarios), project.runset(), model, seed=2)
    for _, row in runs.iterrows():
        assert (row["status"], row["stop_reason"], row["user_turns"]) == ("ok", "user_done", 3)
        assert row["passed"] and row["llm_calls"] == 2
        trajectory = load_trajectory(row["trajectory"])
        assert check_normative(trajectory) == []
        users = [s for s in trajectory.steps if s.source == "user"]
        assert all("simulated_user" in (s.extra or {}) for s in users)
        assert users[-1].message == "Great, thank you."  # said after the agent's last call
    sync = project.suite(
        f'  - id: sync\n    agent: {{kind: callable, function: "{module}:sync_agent"}}\n'
        "    turns: [I want a refund., It is order 1234.]\n"
        "    pass: [{final_output_contains: order 1234}]\n"
    )
    _, runs = await batch(sync, project.runset(), Scripted(support_agent), seed=2)
    for _, row in runs.iterrows():
        assert (row["status"], row["stop_reason"], row["user_turns"]) == ("ok", "user_done", 2)
        assert row["passed"] and row["llm_calls"] == 2
        steps = load_trajectory(row["trajectory"]).steps
        assert [s.source for s in steps] == ["user", "agent", "user", "agent"]


COMMAND = r"""
import json, os, sys, urllib.request

def ask(url, body):
    request = urllib.request.Request(url, data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request) as answer:
        return json.load(answer)

messages, message = [], os.environ["TRAJGUARD_INPUT"]
while message is not None:
    messages.append({"role": "user", "content": message})
    reply = ask(os.environ["TRAJGUARD_API_BASE"] + "/chat/completions",
                {"model": os.environ["TRAJGUARD_MODEL"], "messages": messages})
    content = reply["choices"][0]["message"]["content"]
    messages.append({"role": "assistant", "content": content})
    message = ask(os.environ["TRAJGUARD_CONVERSATION_URL"], {"answer": content})["message"]
"""


async def test_a_command_agent_asks_for_each_message(project: Project) -> None:  # noqa: F811
    script = project.script("talker.py", COMMAND)
    argv = json.dumps([sys.executable, script])
    suite = project.suite(
        f"  - id: cmd\n    agent: {{kind: command, argv: {argv}}}\n"
        "    turns: [I want a refund., It is order 1234.]\n"
        "    pass: [{final_output_contains: order 1234}]\n"
    )
    _, runs = await batch(suite, project.runset(), Scripted(support_agent), seed=4)
    for _, row in runs.iterrows():
        assert (row["status"], row["stop_reason"], row["user_turns"]) == ("ok", "user_done", 2)
        assert row["passed"] and row["llm_calls"] == 2
        trajectory = load_trajectory(row["trajectory"])
        assert [s.source for s in trajectory.steps] == ["user", "agent", "user", "agent"]


@pytest.mark.parametrize(
    ("scenario", "expected"),
    [
        ("    input: hi\n    turns: [a, b]\n", "got input and turns"),
        ("", "required field 'input' is missing"),
        ("    turns: []\n", "turns"),
        ("    turns: [{say: a, criteria: [{tool_caled: x}]}]\n", "did you mean 'tool_called'"),
        ("    user: {persona: x}\n", "goal"),
        ("    user: {goal: g, max_turns: 0}\n", "max_turns"),
    ],
)
def test_a_conversation_is_checked_on_load(
    project: Project,  # noqa: F811
    scenario: str,
    expected: str,
) -> None:
    with pytest.raises(SuiteError) as raised:
        project.suite(f"  - id: x\n    agent: {{kind: builtin}}\n{scenario}")
    assert expected in str(raised.value)
    assert "suite_" in str(raised.value)  # the file is named


def test_a_command_agent_without_the_endpoint_cannot_converse(project: Project) -> None:  # noqa: F811
    with pytest.raises(SuiteError, match="uses_model: false cannot hold a conversation"):
        project.suite(
            "  - id: x\n    agent: {kind: command, uses_model: false, argv: [x]}\n    turns: [a]\n"
        )


def test_a_turns_criteria_are_checked_like_the_scenarios(project: Project) -> None:  # noqa: F811
    with pytest.raises(SuiteError) as raised:
        project.suite(
            "  - id: x\n    agent:\n      kind: builtin\n"
            "      tools: [trajguard.examples.demo_tools:calculator]\n"
            "    turns:\n      - hi\n      - say: more\n"
            "        criteria: [{tool_called: calculater}]\n"
        )
    assert "scenarios[0].turns[1].criteria[0]" in str(raised.value)
    assert "did you mean 'calculator'?" in str(raised.value)


async def test_a_callable_that_stops_asking_ended_the_conversation(project: Project) -> None:  # noqa: F811
    module = project.module(
        "async def agent(ctx):\n"
        "    reply = await ctx.model.complete(ctx.conversation.messages)\n"
        "    ctx.recorder.user(ctx.input)\n"
        "    ctx.recorder.agent_step(reply, message='done')\n"
        "    return 'done'\n"
    )
    suite = project.suite(
        f'  - id: early\n    agent: {{kind: callable, function: "{module}:agent"}}\n'
        "    turns: [one, two]\n"
        f'  - id: whole\n    agent: {{kind: callable, function: "{module}:agent"}}\n'
        "    turns: [only one]\n",
        defaults="runs: 1",
    )
    _, runs = await batch(suite, project.runset(), Scripted(support_agent), seed=1)
    by_scenario = dict(zip(runs["scenario"], runs["stop_reason"], strict=True))
    assert by_scenario == {"early": "agent_ended", "whole": "user_done"}
    assert runs["user_turns"].tolist() == [1, 1]
