"""A scenario's explanation in markdown: what broke, what it looks like, where the runs went."""

from __future__ import annotations

import re
from collections.abc import Sequence

from trajguard._text import printable
from trajguard.report._format import interval_label, md
from trajguard.results import CriterionShift, Exemplars, Explanation, PathShare, RateCount, RunRef

__all__ = ["explanation_lines", "explanation_section", "headline_shift", "what_broke"]


def _rate(count: RateCount) -> str:
    if not count.n:
        return "—"
    return (
        f"{100 * count.hits / count.n:.0f}% ({count.hits}/{count.n}) "
        f"[{100 * count.low:.0f}–{100 * count.high:.0f}%]"
    )


def headline_shift(shift: CriterionShift) -> str:
    """One criterion's move in words: ``tool_not_called: get_weather failed 35% → 75%``."""
    rates = [c.hits / c.n if c.n else None for c in (shift.baseline, shift.candidate)]
    shown = ["—" if r is None else f"{100 * r:.0f}%" for r in rates]
    return f"{printable(shift.criterion)} failed {shown[0]} → {shown[1]}"


def what_broke(explanation: Explanation | None) -> CriterionShift | None:
    """The criterion whose failure rate rose the most (``None``: none rose)."""
    if explanation is None:
        return None
    rising = [s for s in explanation.criteria if s.moved > 0]
    return max(rising, key=lambda s: s.moved, default=None)


def explanation_lines(explanation: Explanation | None) -> list[str]:
    """The explanation as plain lines (for JUnit and other text outputs)."""
    if explanation is None:
        return []
    lines = [f"what broke: {headline_shift(s)}" for s in explanation.criteria if s.moved > 0]
    exemplars = explanation.exemplars
    if exemplars is not None:
        for run in (exemplars.baseline, exemplars.candidate):
            if run is not None:
                lines.append(f"{run.side} run {printable(run.run_id)}: {printable(run.command)}")
        if exemplars.shared_path:
            lines.append("the sides share their typical path")
    return lines


def _sequence(seq: Sequence[str]) -> str:
    return " → ".join(md(name, limit=30) for name in seq) if seq else "(no tools)"


def _criteria(explanation: Explanation, alpha: float) -> list[str]:
    if not explanation.criteria:
        return ["", "**What broke:** no run of either side recorded a failed pass criterion."]
    lines = [
        "",
        f"**What broke** — how often each pass criterion failed ({interval_label(alpha)}, "
        "Wilson), largest move first:",
        "",
        "| criterion | baseline | candidate | change |",
        "|---|---:|---:|---:|",
    ]
    for shift in explanation.criteria:
        lines.append(
            f"| {md(shift.criterion, limit=60)} | {_rate(shift.baseline)} | "
            f"{_rate(shift.candidate)} | {100 * shift.moved:+.0f} pts |"
        )
    if not explanation.criteria_known:
        lines += [
            "",
            "<sub>Some runs were stored before trajguard kept each criterion's result: their "
            "failed criteria are read from the failure's text.</sub>",
        ]
    return lines


def _outcome(run: RunRef) -> str:
    return {True: "passed", False: "failed", None: "not judged"}[run.passed]


def _code(text: str) -> str:
    """An inline code span no backtick in ``text`` can close (code spans show HTML as text)."""
    value = " ".join(printable(text).split())
    longest = max((len(run) for run in re.findall(r"`+", value)), default=0)
    fence = "`" * (longest + 1)
    return f"{fence} {value} {fence}" if longest else f"`{value}`"


def _run_line(run: RunRef) -> str:
    return (
        f"- {run.side}: run {_code(run.run_id)} {_outcome(run)}, "
        f"{_sequence(run.sequence)} — open it with {_code(run.command)}"
    )


def _fenced(lines: Sequence[str]) -> list[str]:
    """Lines in a code block whose fence no line can close."""
    body = [printable(line) for line in lines]
    longest = max((len(run) for line in body for run in re.findall(r"`+", line)), default=0)
    fence = "`" * max(3, longest + 1)
    return [f"{fence}text", *body, fence]


def _exemplars(exemplars: Exemplars) -> list[str]:
    lines = ["", f"**What it looks like** — {md(exemplars.rule, limit=300)}:", ""]
    lines += [_run_line(run) for run in (exemplars.baseline, exemplars.candidate) if run]
    if exemplars.shared_path and exemplars.candidate is not None:
        lines += [
            "",
            f"Both runs called {_sequence(exemplars.candidate.sequence)}: the sides share "
            "their typical path, so the change is not in the tools called.",
        ]
    elif exemplars.diff:
        lines += [
            "",
            "<details><summary>Their diff, baseline → candidate (shape deltas first, then the "
            "steps aligned: <code>-</code> baseline only, <code>+</code> candidate only, "
            "<code>~</code> both, changed: A baseline, B candidate)"
            "</summary>",
            "",
            *_fenced(exemplars.diff),
            "",
            "</details>",
        ]
    return lines


def _path_row(path: PathShare) -> str:
    passed = f"{path.passed}/{path.judged}" if path.judged else "—"
    return (
        f"| {path.side} | {_sequence(path.sequence)} | {path.runs} ({100 * path.share:.0f}%) "
        f"| {passed} |"
    )


def _paths(paths: Sequence[PathShare]) -> list[str]:
    if not paths:
        return []
    return [
        "",
        "**Where the runs went** — each side's most common tool sequences:",
        "",
        "| side | tool sequence | runs | passed |",
        "|---|---|---:|---:|",
        *(_path_row(p) for p in paths),
    ]


def explanation_section(explanation: Explanation | None, alpha: float) -> list[str]:
    """The markdown of a scenario's explanation (nothing for a scenario not explained)."""
    if explanation is None:
        return []
    lines = _criteria(explanation, alpha)
    if explanation.exemplars is not None:
        lines += _exemplars(explanation.exemplars)
    return lines + _paths(explanation.paths)
