"""The distribution figure of each plotted scenario, drawn from the document (matplotlib, no
pyplot state): pass and crash rates with their Wilson intervals, steps as discrete counts,
prompt tokens and latency as ECDFs, the tool mix side by side. The markdown report links the
PNGs; the HTML report inlines the same PNG bytes."""

from __future__ import annotations

import io
import re
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from trajguard._metric_table import metric_description
from trajguard._text import counted, printable
from trajguard.comparison import ScenarioResult
from trajguard.results import ReportDocument, ScenarioFacts
from trajguard.stats import wilson_interval

__all__ = ["SIDE_COLOURS", "draw_figures", "plot_path", "write_plots"]

SIDE_COLOURS = {"baseline": "#0072B2", "candidate": "#E69F00"}  # Okabe-Ito blue and orange
_TOOLS_SHOWN = 8


def plot_path(scenario: str) -> str:
    """Where a scenario's plot goes, relative to the report (``plots/<slug>.png``)."""
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "_", scenario).strip("_") or "scenario"
    return f"plots/{slug}.png"


def _label(text: str, width: int) -> str:
    """A scenario or tool name as drawn: control characters escaped (matplotlib would warn
    of each missing glyph on stderr, raw character and all), cut to ``width``."""
    shown = printable(text)
    return shown if len(shown) <= width else shown[: width - 1] + "…"


def _new_figure() -> Any:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(10, 5.0), dpi=100)
    FigureCanvasAgg(figure)
    return figure


def _rate(result: ScenarioResult | None, name: str, side: str) -> tuple[int, int] | None:
    if result is None:
        return None
    found = [m for m in result.metrics if m.metric == name]
    if not found:
        return None
    summary = found[0].baseline if side == "baseline" else found[0].candidate
    if not summary.n or summary.mean is None:
        return None
    return round(summary.mean * summary.n), summary.n


def _rates(axis: Any, result: ScenarioResult | None, confidence: float) -> None:
    names = ("pass_rate", "crash_rate")
    for offset, side in enumerate(SIDE_COLOURS):
        for i, name in enumerate(names):
            count = _rate(result, name, side)
            if count is None:
                continue
            hits, n = count
            low, high = wilson_interval(hits, n, confidence)
            x, y = i + (offset - 0.5) * 0.3, hits / n
            axis.errorbar(
                [x],
                [y],
                yerr=[[y - low], [high - y]],
                fmt="o" if offset == 0 else "s",
                color=SIDE_COLOURS[side],
                capsize=4,
                markersize=6,
                label=f"{side}" if i == 0 else None,
            )
            axis.annotate(
                f"{100 * y:.0f}%\n{hits}/{n}",
                (x, high),
                fontsize=6.5,
                ha="right" if offset == 0 else "left",
                va="bottom",
                xytext=(0, 2),
                textcoords="offset points",
            )
    axis.set_xticks([0, 1], [metric_description(n).label for n in names])
    axis.set_xlim(-0.6, 1.6)
    axis.set_ylim(0, 1.12)
    axis.set_title(f"rates, {100 * confidence:.4g}% Wilson intervals", fontsize=9)


def _steps(axis: Any, facts: ScenarioFacts) -> None:
    samples = [np.asarray(facts.baseline.plot.steps), np.asarray(facts.candidate.plot.steps)]
    values = sorted({int(v) for s in samples for v in s})
    for offset, (side, sample) in enumerate(zip(SIDE_COLOURS, samples, strict=True)):
        if not sample.size:
            continue
        shares = [float(np.mean(sample == v)) for v in values]
        axis.bar(
            np.arange(len(values)) + (offset - 0.5) * 0.4,
            shares,
            width=0.4,
            color=SIDE_COLOURS[side],
        )
    if values:
        shown = values if len(values) <= 12 else values[:: max(1, len(values) // 12)]
        axis.set_xticks([values.index(v) for v in shown], [str(v) for v in shown])
    axis.set_title("steps per run (share of runs)", fontsize=9)


def _ecdf(axis: Any, samples: list[tuple[str, tuple[float, ...]]], title: str) -> None:
    for side, sample in samples:
        data = np.sort(np.asarray(sample, dtype=float))
        if data.size:
            y = np.arange(1, data.size + 1) / data.size
            axis.step(
                np.concatenate([[data[0]], data]),
                np.concatenate([[0.0], y]),
                where="post",
                color=SIDE_COLOURS[side],
                linewidth=1.6,
            )
    axis.set_ylim(0, 1.02)
    axis.set_title(title, fontsize=9)


def _tools(axis: Any, facts: ScenarioFacts) -> None:
    calls = [facts.baseline.tools.calls, facts.candidate.tools.calls]
    names = sorted(
        set(calls[0]) | set(calls[1]), key=lambda t: -(calls[0].get(t, 0.0) + calls[1].get(t, 0.0))
    )
    names = names[:_TOOLS_SHOWN]
    y = np.arange(len(names))
    for offset, (side, counts) in enumerate(zip(SIDE_COLOURS, calls, strict=True)):
        axis.barh(
            y + (offset - 0.5) * 0.4,
            [counts.get(t, 0.0) for t in names],
            height=0.4,
            color=SIDE_COLOURS[side],
        )
    axis.set_yticks(y, [_label(t, 18) for t in names])
    axis.invert_yaxis()
    axis.set_title("tool mix (mean calls per run)", fontsize=9)


def _draw(figure: Any, document: ReportDocument, scenario: str) -> bytes:
    figure.clear()
    axes = figure.subplots(2, 3)
    facts = document.scenarios[scenario]
    result = next((s for s in document.comparison.scenarios if s.scenario == scenario), None)
    confidence = 1 - document.comparison.config.alpha
    _rates(axes[0][0], result, confidence)
    _steps(axes[0][1], facts)
    _tools(axes[0][2], facts)
    sides = (("baseline", facts.baseline.plot), ("candidate", facts.candidate.plot))
    _ecdf(axes[1][0], [(s, p.prompt_tokens) for s, p in sides], "prompt tokens per run (ECDF)")
    _ecdf(axes[1][1], [(s, p.latency) for s, p in sides], "latency per run, s (ECDF)")
    for row in axes:
        for axis in row:
            axis.tick_params(labelsize=7)
    legend = axes[1][2]
    legend.axis("off")
    for i, side in enumerate(SIDE_COLOURS):
        plot = facts.baseline.plot if side == "baseline" else facts.candidate.plot
        legend.add_patch(_patch(0.05, 0.75 - 0.2 * i, SIDE_COLOURS[side]))
        legend.text(
            0.2,
            0.78 - 0.2 * i,
            f"{side}\n{counted(plot.judged, 'run')} judged",
            fontsize=8,
            va="center",
        )
    figure.suptitle(_label(scenario, 90), fontsize=10)
    figure.subplots_adjust(left=0.07, right=0.98, bottom=0.07, top=0.88, wspace=0.32, hspace=0.45)
    out = io.BytesIO()
    with warnings.catch_warnings():  # this block's filters only: the user's are put back
        # a glyph the font lacks (a name in a script DejaVu Sans does not cover) is drawn as
        # a box; the warning would name a line of this file on the user's stderr
        warnings.filterwarnings("ignore", r"Glyph \d+ .* missing from font", UserWarning)
        figure.savefig(out, format="png", metadata={"Software": None})
    return out.getvalue()


def _patch(x: float, y: float, colour: str) -> Any:
    from matplotlib.patches import Rectangle

    return Rectangle((x, y), 0.1, 0.08, color=colour)


def draw_figures(document: ReportDocument) -> dict[str, bytes]:
    """The PNG of every scenario the document links (its ``plots``), by scenario."""
    if not document.plots:  # a quiet night of a large suite: no figure, no matplotlib import
        return {}
    figure = _new_figure()  # one figure, cleared per scenario: creating figures dominates
    return {scenario: _draw(figure, document, scenario) for scenario in document.plots}


def write_plots(
    out_dir: Path, document: ReportDocument, figures: Mapping[str, bytes] | None = None
) -> list[Path]:
    """Write the PNG of every scenario the document links under ``out_dir``, the report's
    folder (``figures``: already drawn by :func:`draw_figures`); returns the files written.
    ``out_dir/plots`` is made even when there are none."""
    (out_dir / "plots").mkdir(parents=True, exist_ok=True)
    drawn = draw_figures(document) if figures is None else figures
    written: list[Path] = []
    for scenario, relative in document.plots.items():
        path = out_dir / relative
        path.write_bytes(drawn[scenario])
        written.append(path)
    return written
