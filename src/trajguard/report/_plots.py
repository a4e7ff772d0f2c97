"""Distribution plots for the report: one PNG per scenario (matplotlib, no pyplot state)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from trajguard.compare import metric
from trajguard.outcome import HARNESS_ERROR, tally

__all__ = ["write_plots"]

_COLORS = {"baseline": "#6b7b8c", "candidate": "#d9822b"}


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("_") or "scenario"


def _values(rows: pd.DataFrame, column: str) -> np.ndarray:
    return pd.to_numeric(rows[column], errors="coerce").dropna().to_numpy(dtype=float)


def _rates(rows: pd.DataFrame) -> tuple[float, float, int]:
    """Pass rate, crash rate and judged runs, counted as every table counts them."""
    counts = tally(rows)
    return counts.pass_rate or 0.0, counts.crash_rate or 0.0, counts.judged


def _new_figure() -> Any:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(10, 2.8), dpi=80)
    FigureCanvasAgg(figure)
    return figure


def _plot_one(
    figure: Any,
    groups: tuple[dict[str, pd.DataFrame], dict[str, pd.DataFrame]],
    scenario: str,
    path: Path,
) -> None:
    figure.clear()
    rates, steps, tokens = figure.subplots(1, 3)
    empty = pd.DataFrame(columns=["status", "passed", "crashed", "step_count", "prompt_tokens"])
    sides = [
        (label, group.get(scenario, empty)) for label, group in zip(_COLORS, groups, strict=True)
    ]
    for offset, (label, rows) in enumerate(sides):
        pass_rate, crash_rate, n = _rates(rows)
        heights = [pass_rate, crash_rate]
        rates.bar(
            [offset * 0.38, 1 + offset * 0.38],
            heights,
            width=0.36,
            color=_COLORS[label],
            label=f"{label} (n={n})",
        )
    rates.set_xticks([0.19, 1.19], [metric("pass_rate").label, metric("crash_rate").label])
    rates.set_ylim(0, 1.05)
    rates.legend(fontsize=7, loc="upper right")
    for axis, name in ((steps, "step_count"), (tokens, "prompt_tokens")):
        column, title = metric(name).column, f"{metric(name).label} per run"
        data = [_values(rows, column) for _, rows in sides]
        present = [d for d in data if d.size]
        if present:
            joined = np.concatenate(present)
            bins = np.histogram_bin_edges(joined, bins=min(15, max(3, len(np.unique(joined)))))
            for (label, _), sample in zip(sides, data, strict=True):
                if sample.size:
                    counts, _ = np.histogram(sample, bins=bins)
                    axis.stairs(counts, bins, fill=True, alpha=0.55, color=_COLORS[label])
        axis.set_title(title, fontsize=9)
        axis.tick_params(labelsize=7)
    figure.suptitle(scenario, fontsize=10)
    figure.subplots_adjust(left=0.05, right=0.98, bottom=0.12, top=0.82, wspace=0.25)
    figure.savefig(path, format="png")


def _by_scenario(frame: pd.DataFrame) -> dict[str, pd.DataFrame]:
    behavioural = frame[frame["status"] != HARNESS_ERROR]
    return {str(name): rows for name, rows in behavioural.groupby("scenario", sort=False)}


def write_plots(
    out_dir: Path, baseline: pd.DataFrame, candidate: pd.DataFrame, scenarios: Iterable[str]
) -> dict[str, str]:
    """Draw one PNG per scenario into ``out_dir/plots``; returns scenario → path relative to
    ``out_dir`` (for links in the report)."""
    plots_dir = out_dir / "plots"
    plots_dir.mkdir(parents=True, exist_ok=True)
    links: dict[str, str] = {}
    wanted = list(scenarios)
    if not wanted:  # a quiet night of a large suite: no figure, no matplotlib import
        return links
    figure = _new_figure()  # one figure, cleared per scenario: creating figures dominates
    groups = (_by_scenario(baseline), _by_scenario(candidate))
    for scenario in wanted:
        name = f"{_slug(scenario)}.png"
        _plot_one(figure, groups, scenario, plots_dir / name)
        links[scenario] = f"plots/{name}"
    return links
