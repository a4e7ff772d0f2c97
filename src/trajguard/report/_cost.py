"""The provenance table's cost row: what each side's runs cost, and what could not be priced."""

from __future__ import annotations

from trajguard._text import counted
from trajguard.report._format import md, usd
from trajguard.results import BatchCost

__all__ = ["cost_cell", "cost_row"]


def cost_cell(cost: BatchCost | None) -> str:
    """One side's cost: the agent's total, per run, the judge's, the simulated user's, and
    what is unknown."""
    if cost is None or cost.runs == 0:
        return "—"
    if cost.priced == 0:
        return md(f"unknown (no price for {', '.join(cost.models) or 'its model'})", limit=120)
    text = f"{usd(cost.agent_usd)} ({usd(cost.per_run_usd)} per run)"
    if cost.priced < cost.runs:
        text += f", {counted(cost.runs - cost.priced, 'run')} unknown"
    if cost.judge_usd is not None:
        text += f"; judge {usd(cost.judge_usd)}"
    if cost.user_usd is not None:
        text += f"; simulated user {usd(cost.user_usd)}"
    return md(text, limit=160)


def cost_row(baseline: BatchCost | None, candidate: BatchCost | None) -> list[str]:
    """The row, when some run of either side has a known cost (none: no row; the cost metric's
    absence from the tables says the same)."""
    if not any(c is not None and c.priced for c in (baseline, candidate)):
        return []
    return [f"| cost (USD) | {cost_cell(baseline)} | {cost_cell(candidate)} |"]
