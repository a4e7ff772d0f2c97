"""Distribution plots for the report: one PNG per scenario the document links (matplotlib, no
pyplot state), drawn from the document's plot samples."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np

from trajguard.compare import metric
from trajguard.results import PlotSample, ReportDocument

__all__ = ["plot_path", "write_plots"]

_COLORS = {"baseline": "#6b7b8c", "candidate": "#d9822b"}


def plot_path(scenario: str) -> str:
    """Where a scenario's plot goes, relative to the report (``plots/<slug>.png``)."""
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "_", scenario).strip("_") or "scenario"
    return f"plots/{slug}.png"


def _new_figure() -> Any:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(10, 2.8), dpi=80)
    FigureCanvasAgg(figure)
    return figure


def _plot_one(figure: Any, sides: list[tuple[str, PlotSample]], scenario: str, path: Path) -> None:
    figure.clear()
    rates, steps, tokens = figure.subplots(1, 3)
    for offset, (label, side) in enumerate(sides):
        heights = [side.pass_rate or 0.0, side.crash_rate or 0.0]
        rates.bar(
            [offset * 0.38, 1 + offset * 0.38],
            heights,
            width=0.36,
            color=_COLORS[label],
            label=f"{label} (n={side.judged})",
        )
    rates.set_xticks([0.19, 1.19], [metric("pass_rate").label, metric("crash_rate").label])
    rates.set_ylim(0, 1.05)
    rates.legend(fontsize=7, loc="upper right")
    for axis, name in ((steps, "step_count"), (tokens, "prompt_tokens")):
        title = f"{metric(name).label} per run"
        data = [
            np.asarray(s.steps if name == "step_count" else s.prompt_tokens, dtype=float)
            for _, s in sides
        ]
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


def write_plots(out_dir: Path, document: ReportDocument) -> list[Path]:
    """Draw the PNG of every scenario the document links (its ``plots``) under ``out_dir``, the
    report's folder; returns the files written. ``out_dir/plots`` is made even when there are
    none."""
    (out_dir / "plots").mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    if not document.plots:  # a quiet night of a large suite: no figure, no matplotlib import
        return written
    figure = _new_figure()  # one figure, cleared per scenario: creating figures dominates
    for scenario, relative in document.plots.items():
        facts = document.scenarios[scenario]
        sides = [("baseline", facts.baseline.plot), ("candidate", facts.candidate.plot)]
        path = out_dir / relative
        _plot_one(figure, sides, scenario, path)
        written.append(path)
    return written
