"""The markdown of a report document, whatever job made it (the report file and the CI job
summary)."""

from __future__ import annotations

from trajguard.report._ab import render_ab_report
from trajguard.report._markdown import render_report
from trajguard.results import ReportDocument, ReportKind

__all__ = ["render_markdown"]


def render_markdown(document: ReportDocument) -> str:
    """The A/B report of an ``ab`` document, the comparison report of any other."""
    if document.kind is ReportKind.AB:
        return render_ab_report(document)
    return render_report(document)
