"""Criteria that name a tool no run called: likely a misspelt tool name (issue 25).

A builtin agent's tools are known at load time, so ``load_suite`` refuses a criterion naming a
tool the agent is never given. A callable or command agent's tools are learnt only from its
runs: after a batch, a ``tool_called`` / ``tool_called_with`` criterion whose tool appears in no
run of the batch is warned about (``trajguard run``'s summary, the compare report) — it fails
every run, and a typo would otherwise cost a night.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

__all__ = ["TOOL_CRITERIA", "unseen_tool_warnings"]

TOOL_CRITERIA = ("tool_called", "tool_called_with")
"""The criteria that hold only if the agent called the tool they name."""


def unseen_tool_warnings(labels: Iterable[str], seen: Iterable[str]) -> tuple[str, ...]:
    """One warning per criterion label (``tool_called: capital_lookupp``) of
    :data:`TOOL_CRITERIA` whose tool is not among ``seen`` (the tools the batch's runs called),
    in label order, each once."""
    called = sorted(set(seen))
    warnings: dict[str, str] = {}
    for label in labels:
        kind, _, name = label.partition(": ")
        if kind not in TOOL_CRITERIA or not name or name in called or label in warnings:
            continue
        close = difflib.get_close_matches(name, called, n=1)
        guess = f" (did you mean {close[0]!r}?)" if close else ""
        warnings[label] = (
            f"{label} — no run called a tool of that name{guess}; "
            f"tools seen: {', '.join(called) or 'none'}"
        )
    return tuple(warnings[label] for label in sorted(warnings))
