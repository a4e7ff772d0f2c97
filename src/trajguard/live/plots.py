"""Distribution plots for the report: one PNG per scenario (matplotlib, no pyplot state)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pandas as pd

__all__ = ["write_plots"]

_COLORS = {"baseline": "#6b7b8c", "candidate": "#d9822b"}


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("_") or "scenario"


def _values(frame: pd.DataFrame, scenario: str, column: str) -> np.ndarray:
    rows = frame[(frame["scenario"] == scenario) & (frame["status"] != "harness_error")]
    return pd.to_numeric(rows[column], errors="coerce").dropna().to_numpy(dtype=float)


def _rate(frame: pd.DataFrame, scenario: str, column: str) -> tuple[float, int]:
    rows = frame[(frame["scenario"] == scenario) & (frame["status"] != "harness_error")]
    values = rows[column].dropna().astype(bool)
    return (float(values.mean()) if len(values) else 0.0), len(values)


def _plot_one(baseline: pd.DataFrame, candidate: pd.DataFrame, scenario: str, path: Path) -> None:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(10, 2.8), dpi=100)
    FigureCanvasAgg(figure)
    rates, steps, tokens = figure.subplots(1, 3)
    sides = (("baseline", baseline), ("candidate", candidate))
    for offset, (label, frame) in enumerate(sides):
        for position, column in enumerate(("passed", "crashed")):
            value, n = _rate(frame, scenario, column)
            rates.bar(position + offset * 0.38, value, width=0.36, color=_COLORS[label],
                      label=label if position == 0 else None)
            rates.text(position + offset * 0.38, value + 0.02, f"n={n}", ha="center", fontsize=7)
    rates.set_xticks([0.19, 1.19], ["pass rate", "crash rate"])
    rates.set_ylim(0, 1.1)
    rates.legend(fontsize=7, loc="upper right")
    for axis, column, title in ((steps, "step_count", "steps per run"),
                                (tokens, "prompt_tokens", "prompt tokens per run")):
        data = [_values(frame, scenario, column) for _, frame in sides]
        present = [d for d in data if d.size]
        if present:
            joined = np.concatenate(present)
            bins = np.histogram_bin_edges(joined, bins=min(15, max(3, len(np.unique(joined)))))
            for (label, _), values in zip(sides, data, strict=True):
                if values.size:
                    axis.hist(values, bins=bins, alpha=0.6, color=_COLORS[label], label=label)
        axis.set_title(title, fontsize=9)
        axis.tick_params(labelsize=7)
    figure.suptitle(scenario, fontsize=10)
    figure.tight_layout()
    figure.savefig(path, format="png")


def write_plots(
    out_dir: Path, baseline: pd.DataFrame, candidate: pd.DataFrame, scenarios: Iterable[str]
) -> dict[str, str]:
    """Draw one PNG per scenario into ``out_dir/plots``; returns scenario → path relative to
    ``out_dir`` (for links in the report)."""
    plots_dir = out_dir / "plots"
    plots_dir.mkdir(parents=True, exist_ok=True)
    links = {}
    for scenario in scenarios:
        name = f"{_slug(scenario)}.png"
        _plot_one(baseline, candidate, scenario, plots_dir / name)
        links[scenario] = f"plots/{name}"
    return links
