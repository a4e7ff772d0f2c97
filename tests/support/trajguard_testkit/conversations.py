"""Two nights of a refund desk on a scripted model (issue 37's reports): the baseline's agent
looks the order up and asks to confirm before refunding; the candidate's refunds at once.
The suite is the demo's world (trajguard.examples.refund_tools, orders in the run's state):
one scripted scenario whose turn 1 checks the confirmation step, one with a simulated user
that says yes when asked and stops once refunded (max_turns 2), so the baseline's
conversations end at the turn limit and the candidate's when the user is done."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from trajguard import pipeline
from trajguard.capture import Message
from trajguard.pipeline import ReportOptions
from trajguard.runner import BatchOptions, run_batch
from trajguard.suite import load_suite
from trajguard_testkit.scripted import Scripted

__all__ = ["RUNS", "SUITE", "compared_refund_nights", "refund_nights"]

RUNS = 6
SUITE = f"""name: refunds
defaults: {{runs: {RUNS}, concurrency: 2, max_steps: 4}}
scenarios:
  - id: request
    agent: &agent
      kind: builtin
      mode: json
      system_prompt: Refund desk.
      tools:
        - trajguard.examples.refund_tools:lookup_order
        - trajguard.examples.refund_tools:issue_refund
    state: &shop
      orders: {{A-1042: {{item: a blue kettle, paid: 20, status: delivered}}}}
      refunds: []
    turns:
      - say: I want a refund for order A-1042.
        criteria:
          - tool_not_called: issue_refund
      - Yes, I confirm.
    pass:
      - final_state: {{expected: {{refunds: [{{order: A-1042, amount: 20}}]}}, match: contains}}
  - id: simulated
    agent: *agent
    state: *shop
    user:
      goal: a refund for order A-1042
      opening: I want a refund for order A-1042.
      max_turns: 2
    pass:
      - tool_called: issue_refund
"""
_USER = "You are a user talking to an AI assistant"


def _call(tool: str) -> str:
    return json.dumps({"tool": tool, "arguments": {"order_id": "A-1042"}})


def _answer(text: str) -> str:
    return json.dumps({"tool": "final_answer", "answer": text})


def _user(messages: Sequence[Message]) -> str:
    read = next(str(m["content"]) for m in reversed(messages) if m["role"] == "user")
    if "Refunded" in read:
        return "Thank you. ###STOP###"
    return "Yes." if "Shall I" in read else "I want a refund for order A-1042."


def careful(messages: Sequence[Message], _: dict[str, Any]) -> str:
    """Looks up, asks to confirm, refunds on a yes."""
    if _USER in str(messages[0]["content"]):
        return _user(messages)
    last = str(messages[-1]["content"])
    if last.startswith("Result of lookup_order"):
        return _answer("It is a blue kettle. Shall I refund it?")
    if last.startswith("Result of issue_refund"):
        return _answer("Refunded 20 EUR.")
    return _call("issue_refund" if last.lower().startswith("yes") else "lookup_order")


def hasty(messages: Sequence[Message], _: dict[str, Any]) -> str:
    """Refunds at once."""
    if _USER in str(messages[0]["content"]):
        return _user(messages)
    last = str(messages[-1]["content"])
    if last.startswith("Result of issue_refund"):
        return _answer("Refunded 20 EUR.")
    if any("Result of issue_refund" in str(m["content"]) for m in messages):
        return _answer("It is already refunded.")
    return _call("issue_refund")


def refund_nights(root: Path) -> dict[str, Path]:
    """The baseline's and the candidate's run sets under ``root`` (the suite beside them)."""
    suite_file = root / "refunds.yaml"
    suite_file.write_text(SUITE, encoding="utf-8")
    suite = load_suite(suite_file)
    out = {}
    for name, reply, seed in (("baseline", careful, 1), ("candidate", hasty, 2)):
        model = Scripted(reply)
        out[name] = root / name
        asyncio.run(
            run_batch(suite, out[name], BatchOptions(seed=seed), make_model=lambda _, m=model: m)
        )
    return out


def compared_refund_nights(root: Path) -> dict[str, Path]:
    """:func:`refund_nights` compared (no plots), run from ``root`` as a user would: the two run
    sets, ``report`` (report.md) and ``page`` (report.html)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(root)
        sides = refund_nights(root)
        outcome = pipeline.compare(
            sides["baseline"],
            sides["candidate"],
            report=root / "report" / "report.md",
            options=ReportOptions(plots=False),
        )
    return {**sides, "report": outcome.report, "page": outcome.report.parent / "report.html"}
