"""What a side's runs cost, from its run table (the builder's part; renderers read
:class:`~trajguard.results.BatchCost`)."""

from __future__ import annotations

import pandas as pd

from trajguard.results import BatchCost

__all__ = ["batch_cost"]


def batch_cost(runs: pd.DataFrame) -> BatchCost:
    """The agent's, the judge's and the simulated user's dollars of a run table (costs unknown
    stay out of the sums, and their runs' models are named)."""
    agent = _numbers(runs, "cost_usd")
    judge = _numbers(runs, "judge_cost_usd")
    user = _numbers(runs, "user_cost_usd")
    known = agent.notna()
    models = runs["model"] if "model" in runs.columns else pd.Series("", index=runs.index)
    unpriced = sorted({str(m) for m in models[~known] if isinstance(m, str) and m})
    return BatchCost(
        runs=len(runs),
        priced=int(known.sum()),
        agent_usd=float(agent[known].sum()),
        judge_usd=float(judge.sum()) if judge.notna().any() else None,
        models=tuple(unpriced),
        user_usd=float(user.sum()) if user.notna().any() else None,
    )


def _numbers(runs: pd.DataFrame, column: str) -> pd.Series:
    if column not in runs.columns:
        return pd.Series(float("nan"), index=runs.index, dtype=float)
    return pd.to_numeric(runs[column], errors="coerce").astype(float)
