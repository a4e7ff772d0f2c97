"""A command agent in another language holding a conversation (issue 37): the Node example
(``examples/node_command``, the openai npm package) answers two scripted messages in one
episode, asking for the second at its run's conversation endpoint. The model is scripted
behind the wire endpoint, so what each answer says is known."""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from trajguard_testkit.scripted import Scripted

from trajguard import store
from trajguard.atif import load_trajectory
from trajguard.capture import Message
from trajguard.normative import check_normative
from trajguard.runner import BatchOptions, run_batch
from trajguard.suite import load_suite

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "node_command"


def arithmetic(messages: Sequence[Message], _: dict[str, Any]) -> str:
    question = next(str(m["content"]) for m in reversed(messages) if m["role"] == "user")
    return "17 * 23 = 391" if "17 * 23" in question else "6 * 7 = 42"


@pytest.mark.skipif(
    shutil.which("node") is None or not (EXAMPLE / "node_modules" / "openai").is_dir(),
    reason="node and `npm install` in examples/node_command are needed",
)
async def test_the_node_agent_holds_a_conversation(tmp_path: Path) -> None:
    model = Scripted(arithmetic)
    suite = load_suite(EXAMPLE / "conversation.yaml")
    result = await run_batch(
        suite, tmp_path / "runs", BatchOptions(runs=2, seed=7), make_model=lambda _: model
    )
    assert result.counts == {"ok": 2}
    runs = store.read_runs(tmp_path / "runs")
    for _, row in runs.iterrows():
        assert row["passed"], list(row["failed_criteria"])
        assert (row["stop_reason"], row["user_turns"], row["llm_calls"]) == ("user_done", 2, 2)
        held = {c["criterion"]: c["held"] for c in row["criteria"]}
        assert held == {
            'final_output_contains: "42"': True,
            'turn 1: final_output_contains: "391"': True,
            'turn 2: final_output_contains: "42"': True,
        }
        trajectory = load_trajectory(row["trajectory"])
        assert check_normative(trajectory) == []
        assert trajectory.extra is not None and trajectory.extra["capture"] == "wire"
        assert [s.source for s in trajectory.steps] == ["system", "user", "agent", "user", "agent"]
    # one episode: the second call of each run holds the first question and its answer
    seconds = [messages for messages, _ in model.calls if len(messages) > 2]
    assert len(seconds) == 2
    for messages in seconds:
        assert [m["role"] for m in messages] == ["system", "user", "assistant", "user"]
        assert messages[2]["content"] == "17 * 23 = 391"
