"""The run explorer shows a conversation as one (issue 37): opening a conversational run lists
the user's and the agent's turns in the trajectory's order, the simulated user's marked, the
agent's tool calls named; the conversations section reaches the page (real Chromium)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from trajguard_testkit.browser import open_report
from trajguard_testkit.conversations import compared_refund_nights


@pytest.fixture(scope="module")
def night(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return compared_refund_nights(tmp_path_factory.mktemp("conversationpage"))


def _open_run(page: Any, scenario: str, side: str) -> dict[str, Any]:
    page.select_option("#x-scenario", scenario)
    page.select_option("#x-side", side)
    row = page.locator("#runs tbody tr").first
    run_id, batch = row.get_attribute("data-run-id"), row.get_attribute("data-batch")
    row.locator("button.open").click()
    page.wait_for_selector("#steps")
    return {"run_id": run_id, "batch": batch}


def _stored(path: Path, run_id: str) -> dict[str, Any]:
    rows = pq.read_table(path / "runs.parquet").to_pylist()
    return next(r for r in rows if r["run_id"] == run_id)


def test_a_conversational_run_reads_as_a_conversation(night, browser: Any) -> None:
    # night first: its batches run their own event loop, before Playwright's starts
    opened = open_report(browser, night["page"])
    assert opened.errors == [] and opened.requests == []
    page = opened.page
    picked = _open_run(page, "simulated", "0")
    steps = json.loads(_stored(night["baseline"], picked["run_id"])["trajectory"])["steps"]
    turns = page.locator("#conversation > .turn")
    users = [s for s in steps if s["source"] == "user"]
    answers = [s for s in steps if s["source"] == "agent"]
    assert turns.count() == len(users) + len(answers)
    kinds = [c.split()[-1] for c in turns.evaluate_all("ts => ts.map(t => t.className)")]
    assert kinds == [s["source"] for s in steps if s["source"] in ("user", "agent")]
    texts = turns.all_inner_texts()
    # the opening is the suite's text; the second message the user model's
    assert texts[0].startswith("user · turn 1\n") and "(simulated)" not in texts[0]
    assert "I want a refund for order A-1042." in texts[0]
    assert "user · turn 2 (simulated)" in texts[3] and "Yes." in texts[3]
    assert '→ lookup_order({"order_id":"A-1042"})' in texts[1]
    assert "Shall I refund it?" in texts[2]
    assert '→ issue_refund({"order_id":"A-1042"})' in texts[4]
    # the steps stay below, whole
    assert page.locator("#steps > details.step").count() == len(steps)


def test_the_conversations_section_is_in_the_page(night, browser: Any) -> None:
    page = open_report(browser, night["page"]).page
    headings = page.locator("h2").all_inner_texts()
    assert "Conversations" in headings
    cells = page.locator("table tr").all_inner_texts()
    assert any(c.startswith("1\ttool_not_called: issue_refund\t100% (6/6") for c in cells)


def test_scripted_turns_read_as_a_conversation_too(night, browser: Any) -> None:
    page = open_report(browser, night["page"]).page
    _open_run(page, "request", "1")  # the candidate: refunds at once
    texts = page.locator("#conversation > .turn").all_inner_texts()
    assert texts[0].startswith("user · turn 1\n") and "(simulated)" not in texts[0]
    assert '→ issue_refund({"order_id":"A-1042"})' in texts[1]
    assert any(t.startswith("user · turn 2\n") and "Yes, I confirm." in t for t in texts)
