"""What one side's runs cost, as the report shows it (plain data)."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["BatchCost"]


@dataclass(frozen=True, kw_only=True)
class BatchCost:
    """The cost of one side's runs, in US dollars."""

    runs: int
    """its runs (harness errors included: a failed call may still have been paid)."""
    priced: int
    """those whose agent cost is known."""
    agent_usd: float
    """the agent's calls of the priced runs, summed."""
    judge_usd: float | None = None
    """the judge's calls, summed over the runs where it is known (``None``: no run has a known judge
    cost)."""
    models: tuple[str, ...] = ()
    """the models of the runs whose cost is unknown (what needs a price)."""
    user_usd: float | None = None
    """the simulated user's calls, summed over the runs where it is known (``None``: no run has a
    known user cost, e.g. no conversation with a simulated user)."""

    @property
    def per_run_usd(self) -> float | None:
        """The agent's mean cost per priced run (``None``: none priced)."""
        return self.agent_usd / self.priced if self.priced else None
