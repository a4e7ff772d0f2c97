"""The report section of a pooled baseline: which batches each scenario got, and whether they
agree (a drifting baseline is named)."""

from __future__ import annotations

from trajguard._metric_table import metric_description
from trajguard.comparison import Comparison, Drift
from trajguard.report._format import md, p_cell
from trajguard.results import HistoryFacts

__all__ = ["history_section"]


def _values(d: Drift) -> str:
    m = metric_description(d.metric)
    if m.kind == "rate":
        return " / ".join(f"{100 * v:.0f}%" for v in d.values)
    if m.kind in ("tools", "paths"):
        return " / ".join(f"{v:.2f}" for v in d.values) + " (TVD from the pooled mix)"
    return " / ".join(f"{v:.3g}" for v in d.values)


def history_section(comparison: Comparison, pooled: HistoryFacts | None) -> list[str]:
    """Empty without a history; otherwise the pooling, the agreement tests and the drift."""
    if pooled is None:
        return []
    counts = sorted({len(b) for b in pooled.batches.values()})
    shown = ", ".join(map(str, counts))
    lines = [
        "",
        "## Baseline history",
        "",
        f"The baseline keeps {pooled.available} promoted batches; each scenario pools those "
        f"that ran its current definition (config hash): {shown} batch(es) per scenario.",
    ]
    if pooled.changed:
        names = ", ".join(md(s) for s in pooled.changed)
        lines.append(
            f"The candidate changed the definition of {names} (its config hash matches no kept "
            "batch): compared with the batches of the latest definition instead."
        )
    drifting = sorted({d.scenario for d in comparison.drift if d.drifting})
    if drifting:
        lines += [
            "",
            f"**Drifting baseline: {', '.join(md(s) for s in drifting)}** — the pooled batches "
            "disagree with each other (adjusted p at most "
            f"{comparison.config.q:g}); the pooled runs are not one distribution, so consider "
            "promoting a fresh baseline.",
        ]
    elif comparison.drift:
        lines += ["", "The pooled batches agree with each other on every gating metric."]
    if comparison.drift:
        lines += [
            "",
            "| scenario | metric | per batch (newest first) | test | p | adj. p (BH) | drifting |",
            "|---|---|---|---|---:|---:|---|",
        ]
        for d in comparison.drift:
            lines.append(
                f"| {md(d.scenario, limit=40)} | {metric_description(d.metric).label} | "
                f"{_values(d)} | "
                f"{d.test} | {p_cell(d.p_value)} | {p_cell(d.p_adjusted)} | "
                f"{'yes' if d.drifting else 'no'} |"
            )
    return lines
