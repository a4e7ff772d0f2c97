"""The cost clause of an A/B answer: "B was 40 % cheaper per run" when the overall cost test
says so — the behaviour verdict stays the answer, the cost is said beside it."""

from __future__ import annotations

from trajguard.comparison._ab_overall import Overall

__all__ = ["cost_clause"]


def cost_clause(b: str, cost: Overall | None, alpha: float) -> str:
    """A sentence to append to the answer: B's cost per run against A's when their ratio is
    significant at ``alpha`` (BH-adjusted with the other overall metrics), else ""."""
    if cost is None or cost.estimate is None or cost.p_adjusted > alpha:
        return ""
    ratio = cost.estimate
    change = (
        f"{100 * (1 - ratio):.0f} % cheaper" if ratio < 1 else f"{100 * (ratio - 1):.0f} % dearer"
    )
    level = f"{100 * (1 - alpha):.4g}%"
    interval = f"{level} CI ×{cost.ci[0]:.2f} to ×{cost.ci[1]:.2f}; " if cost.ci is not None else ""
    return (
        f" Cost: {b} was {change} per run (geometric-mean ratio ×{ratio:.2f}, {interval}"
        f"adjusted p = {cost.p_adjusted:.3g})."
    )
