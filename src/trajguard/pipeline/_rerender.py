"""``trajguard report comparison.json``: a report rendered again from its document alone."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from trajguard._json import read_regular_bytes
from trajguard.errors import StoreError
from trajguard.pipeline._outputs import ReportOptions, write_outputs
from trajguard.results import COMPARISON_FILE, ReportDocument, ReportKind, read_document

__all__ = ["Rerendered", "rerender"]

# A 100-scenario comparison with a 5-batch history writes about 2 MB.
_MAX_BYTES = 512 * 1024 * 1024
# A plot is about 60 kB; a file far larger is not one a comparison wrote.
_MAX_PLOT_BYTES = 16 * 1024 * 1024


@dataclass(frozen=True, kw_only=True)
class Rerendered:
    """What was rendered again."""

    document: ReportDocument
    report: Path
    junit: Path | None = None


def _read(source: Path) -> bytes:
    try:
        return read_regular_bytes(source, max_bytes=_MAX_BYTES)
    except OSError as exc:
        message = str(exc.strerror or exc).replace(str(source), "it")
        raise StoreError(
            f"cannot read: {message}",
            file=source,
            hint=f"pass the {COMPARISON_FILE} a comparison wrote beside its report",
        ) from None


def _kept_figures(document: ReportDocument, folder: Path) -> dict[str, bytes] | None:
    """The PNG of every plot the document links, as the comparison wrote it into ``folder``;
    ``None`` when one cannot be read (then all are drawn again)."""
    figures: dict[str, bytes] = {}
    for scenario, relative in document.plots.items():
        try:
            figures[scenario] = read_regular_bytes(folder / relative, max_bytes=_MAX_PLOT_BYTES)
        except OSError:
            return None
    return figures


def rerender(
    source: Path,
    *,
    out: Path | None = None,
    junit: Path | None = None,
    plots: bool = True,
    html: bool = False,
    redraw: bool = False,
) -> Rerendered:
    """Render the report of ``source`` (a ``comparison.json``) again: the markdown report
    (``report.md``, or ``ab.md`` for an A/B), its plots and, if asked, JUnit XML, byte for byte
    what the comparison wrote, without its run sets.

    Args:
        source: the ``comparison.json``.
        out: the folder to write into (default: ``source``'s own folder; the document is
            written there as ``comparison.json`` too).
        junit: also write JUnit XML here.
        plots: write the PNGs the report links to.
        redraw: draw every PNG again; otherwise the ones the comparison wrote beside
            ``source`` are kept (copied to ``out``), and they are drawn only when one is missing.
        html: also write ``report.html`` — without its run explorer, which needs the run
            sets (off by default: it would replace the page the comparison wrote).

    Raises:
        StoreError: ``source`` cannot be read, or a target cannot be written.
        InvalidResultData: ``source`` is not a comparison document of this schema version.
    """
    document = read_document(_read(source), file=source)
    folder = source.parent if out is None else out
    name = "ab.md" if document.kind is ReportKind.AB else "report.md"
    report = folder / name
    options = ReportOptions(plots=plots and bool(document.plots), junit=junit, html=html)
    kept = None if redraw or not options.plots else _kept_figures(document, source.parent)
    write_outputs(document, report, options=options, figures=kept)
    return Rerendered(document=document, report=report, junit=junit)
