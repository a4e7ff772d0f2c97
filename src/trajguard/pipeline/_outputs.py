"""Where reports go, and the one writer that checks every target before it writes any."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from trajguard._files import atomic_write_text
from trajguard._text import json_safe, printable
from trajguard.comparison import Comparison, Verdict
from trajguard.errors import StoreError
from trajguard.report import draw_figures, junit_xml, render_markdown, write_plots
from trajguard.report.html import (
    HTML_FILE,
    RunPayload,
    RunSource,
    collect_runs,
    exemplar_keys,
    render_html,
)
from trajguard.results import COMPARISON_FILE, ReportDocument, document_json
from trajguard.store import MANIFEST_FILE, RunSet

if TYPE_CHECKING:
    from trajguard.report import Explain

__all__ = [
    "ALL_PLOTS_UP_TO",
    "ReportOptions",
    "append_step_summary",
    "check_targets",
    "plotted_scenarios",
    "report_dir",
    "run_payload",
    "timestamped",
    "write_outputs",
    "write_texts",
]

ALL_PLOTS_UP_TO = 20
_QUIET = frozenset({Verdict.UNCHANGED, Verdict.INCONCLUSIVE})


@dataclass(frozen=True, kw_only=True)
class ReportOptions:
    """What a report comes with.

    Attributes:
        plots: draw the distribution plots (PNG, beside the report).
        all_plots: plot every scenario (default: all up to 20 scenarios, else the changed ones).
        explain: the scenarios the report explains (``changed``: those that regressed, improved
            or changed; ``all``; ``none``).
        junit: also write JUnit XML here.
        command: the command that reproduces the report (shown in it).
        step_summary: append the report to ``$GITHUB_STEP_SUMMARY`` when that is set.
        html: also write ``report.html`` beside the report (``--no-html`` turns it off).
    """

    plots: bool = True
    all_plots: bool = False
    explain: Explain = "changed"
    junit: Path | None = None
    command: str | None = None
    step_summary: bool = False
    html: bool = True


def plotted_scenarios(comparison: Comparison, *, all_plots: bool = False) -> list[str]:
    """Scenarios that get a distribution plot: all of them in suites of up to 20 scenarios (or
    with ``all_plots``), otherwise those whose verdict is neither unchanged nor inconclusive —
    a hundred PNGs of quiet scenarios cost 0.1 s each and nobody opens them."""
    scenarios = comparison.scenarios
    if all_plots or len(scenarios) <= ALL_PLOTS_UP_TO:
        return [s.scenario for s in scenarios]
    return [s.scenario for s in scenarios if s.verdict not in _QUIET]


def timestamped(root: Path, name: str) -> Path:
    """``root/<name>-<UTC time>``."""
    return root / f"{name}-{datetime.now(UTC):%Y%m%dT%H%M%SZ}"


def report_dir(root: Path, suffix: str = "") -> Path:
    """``reports/<date><suffix>/``, or with the time appended when that already exists."""
    now = datetime.now(UTC)
    folder = root / f"{now:%Y-%m-%d}{suffix}"
    if folder.exists():
        folder = root / f"{now:%Y-%m-%d}{suffix}-{now:%H%M%S}"
    return folder


def resumable_folder(runset: Path) -> Path:
    """The report folder of an interrupted ``nightly`` or ``ab`` whose run set is ``runset``
    (the folder that holds it: the report is written beside it).

    Raises:
        StoreError: ``runset`` holds no batch (no manifest).
    """
    if not (runset / MANIFEST_FILE).is_file():
        raise StoreError(
            f"no interrupted batch to resume here (no {MANIFEST_FILE})",
            file=runset,
            hint="pass the run set the interrupted command named: reports/<date>/runs",
        )
    return runset.parent


def _check_target(path: Path) -> None:
    """A path a text file can be written at (its directory created if needed)."""
    if path.is_dir():
        raise StoreError(
            "the output path is a directory", file=path, hint="pass a file path, e.g. report.md"
        )
    parent = path.absolute().parent
    while not parent.exists():
        parent = parent.parent
    if not parent.is_dir():
        raise StoreError(f"cannot write there: {parent} is not a directory", file=path)
    if not os.access(parent, os.W_OK | os.X_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise StoreError("cannot write there: permission denied", file=path)


def check_targets(*paths: Path | None) -> None:
    """Refuse, before anything is written, a target a text file cannot be written at.

    Raises:
        StoreError: a target is a directory, or under a file, or not writable.
    """
    for path in paths:
        if path is not None:
            _check_target(path)


def write_texts(texts: Mapping[Path, str]) -> None:
    """Write text files atomically, after checking that every one of them can be written; no
    control character but newline and tab is ever written (text from a model or a run set is
    escaped: :func:`trajguard._text.printable`)."""
    check_targets(*texts)
    for path, text in texts.items():
        try:
            clean = json_safe(text) if path.suffix == ".json" else printable(text, keep="\n\t")
            atomic_write_text(path, clean)
        except OSError as exc:
            raise StoreError(f"cannot write: {exc.strerror or exc}", file=path) from None


def _source(runset: RunSet, paths: Mapping[str, str] | None = None) -> RunSource:
    frame = runset.runs
    keys = zip(
        frame["batch_id"].astype(str).tolist(), frame["run_id"].astype(str).tolist(), strict=True
    )
    where = {"": str(runset.path)}
    kept = runset.manifest.get("history_paths")
    if isinstance(kept, Mapping):
        where.update({str(k): str(v) for k, v in kept.items()})
    return RunSource(
        keys=frozenset(keys), paths=tuple(Path(p) for p in dict.fromkeys((paths or where).values()))
    )


def run_payload(
    document: ReportDocument, baseline: RunSet, candidate: RunSet, *, path: Path | None = None
) -> RunPayload:
    """The runs behind ``document`` for the HTML report's explorer, read from the run sets'
    files (``path``: the one run set holding both sides, as in an A/B)."""
    paths = None if path is None else {"": str(path)}
    return collect_runs(
        (_source(baseline, paths), _source(candidate, paths)),
        [s.scenario for s in document.comparison.scenarios],
        exemplars=exemplar_keys(document),
    )


def write_outputs(
    document: ReportDocument,
    report: Path,
    *,
    options: ReportOptions,
    runs: RunPayload | None = None,
    figures: Mapping[str, bytes] | None = None,
) -> str:
    """The one output tail of every comparison: the plots, then the report, its
    ``comparison.json`` and ``report.html`` beside it (the runs' explorer from ``runs``) and
    the JUnit file (every target checked before any is written, each written atomically), then
    the job summary. Returns the report's text. ``figures``: the plots' PNGs already at hand,
    by scenario (written instead of drawn)."""
    html_target = report.with_name(HTML_FILE) if options.html else None
    check_targets(report, options.junit, html_target)
    if not options.plots:
        figures = {}
    elif figures is None:
        figures = draw_figures(document)
    if options.plots:
        write_plots(report.parent, document, figures)
    text = render_markdown(document)
    texts = {report: text, report.with_name(COMPARISON_FILE): document_json(document)}
    if html_target is not None:
        texts[html_target] = render_html(document, runs=runs, figures=figures)
    if options.junit is not None:
        texts[options.junit] = junit_xml(document)
    write_texts(texts)
    if options.step_summary:
        append_step_summary(text)
    return text


def append_step_summary(text: str) -> None:
    """Append to GitHub Actions' job summary when running there (``$GITHUB_STEP_SUMMARY``)."""
    target = os.environ.get("GITHUB_STEP_SUMMARY")
    if target:
        with open(target, "a", encoding="utf-8") as summary:
            summary.write(printable(text, keep="\n\t") + "\n")
