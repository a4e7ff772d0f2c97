"""Tools of the conversational demo suite (suites/demo-conversations.yaml): a tiny shop whose
orders and refunds live in the run's state (the scenario's ``state:``, a deep copy per run).

The tools change the world the ``final_state`` criteria check afterwards. Like demo_tools, the
module is small and stable: a tool's signature and docstring are part of the agent's prompt.
"""

from __future__ import annotations

from typing import Any

__all__ = ["issue_refund", "lookup_order"]


def _order(order_id: str, state: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    key = order_id.strip().upper().lstrip("#")
    orders = state.get("orders", {})
    if key not in orders:
        known = ", ".join(sorted(orders))
        raise KeyError(f"unknown order {order_id!r}; known: {known}")
    return key, orders[key]


def lookup_order(order_id: str, *, state: dict[str, Any]) -> str:
    """Look up an order: what was bought, what was paid and its status.

    Args:
        order_id: the order number, e.g. A-1042.
    """
    key, order = _order(order_id, state)
    return (
        f"Order {key}: {order['item']}, paid {order['paid']} EUR, status {order['status']}. "
        "Before refunding, ask the customer to confirm."
    )


def issue_refund(order_id: str, *, state: dict[str, Any]) -> str:
    """Refund an order in full. Only call this after the customer confirmed the refund.

    Args:
        order_id: the order number, e.g. A-1042.
    """
    key, order = _order(order_id, state)
    if order["status"] == "refunded":
        return f"Order {key} was already refunded."
    order["status"] = "refunded"
    state.setdefault("refunds", []).append({"order": key, "amount": order["paid"]})
    return f"Refunded {order['paid']} EUR for order {key}."
