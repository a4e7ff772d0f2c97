"""The conversational demo suite's tools (suites/demo-conversations.yaml): they read and change
the run's state, and the suite loads with them."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from trajguard.examples.refund_tools import issue_refund, lookup_order
from trajguard.suite import load_suite

REPO = Path(__file__).resolve().parents[2]
SHOP = {
    "orders": {"A-1042": {"item": "a blue kettle", "paid": 20, "status": "delivered"}},
    "refunds": [],
}


def test_a_refund_changes_the_state_once() -> None:
    state = copy.deepcopy(SHOP)
    assert lookup_order("#a-1042 ", state=state).startswith("Order A-1042: a blue kettle, paid 20")
    assert issue_refund("A-1042", state=state) == "Refunded 20 EUR for order A-1042."
    assert issue_refund("A-1042", state=state) == "Order A-1042 was already refunded."
    assert state["refunds"] == [{"order": "A-1042", "amount": 20}]
    assert state["orders"]["A-1042"]["status"] == "refunded"
    assert SHOP["refunds"] == []  # the seed is untouched


def test_an_unknown_order_names_the_known_ones() -> None:
    with pytest.raises(KeyError, match="unknown order 'Z-1'; known: A-1042"):
        issue_refund("Z-1", state=copy.deepcopy(SHOP))


@pytest.mark.parametrize(
    "name", ["demo-conversations.yaml", "demo-conversations-skip-confirmation.yaml"]
)
def test_the_demo_suites_load_with_the_same_name(name: str) -> None:
    suite = load_suite(REPO / "suites" / name)
    assert suite.name == "demo-conversations"
    assert [s.id for s in suite.scenarios] == [
        "refund_request",
        "refund_declined",
        "refund_simulated",
    ]
