"""Results to text: the report document of a comparison, and what is rendered from it (the
markdown reports of compare / nightly and A/B, JUnit XML, the distribution plots), the design
sections of sequential and escalated runs, and the per-scenario summary of a run set
(``trajguard show``).

Two halves: :mod:`trajguard.report.builders` computes (the document from the run sets with pandas,
the figures with matplotlib, the run-set summary); the modules of this package and
:mod:`trajguard.report.html` render, pure functions of the document that import neither pandas
nor matplotlib. :func:`build_document` and :func:`build_ab_document` read the run sets once;
every renderer reads only the :class:`trajguard.results.ReportDocument` they return. Renderers
return text; :mod:`trajguard.pipeline` decides where it goes. Model-produced text is escaped
(:func:`md`) before it enters a table.
"""

from typing import TYPE_CHECKING

from trajguard._lazy import lazy_face

if TYPE_CHECKING:
    from trajguard.report._ab import render_ab_report
    from trajguard.report._escalation import escalation_section
    from trajguard.report._floors import floor_words, floors_section, floors_summary
    from trajguard.report._format import MARK, interval_label, md
    from trajguard.report._junit import junit_xml
    from trajguard.report._markdown import render_report
    from trajguard.report._pr_comment import (
        COMMENT_LIMIT,
        comment_marker,
        comment_size,
        render_not_compared,
        render_pr_comment,
    )
    from trajguard.report._render import render_markdown
    from trajguard.report._sequential import sequential_section
    from trajguard.report._trend_markdown import render_trend
    from trajguard.report.builders._arm_summary import ArmSummary, summarize
    from trajguard.report.builders._document import Explain, build_ab_document, build_document
    from trajguard.report.builders._plots import SIDE_COLOURS, draw_figures, plot_path, write_plots

__all__ = [
    "COMMENT_LIMIT",
    "MARK",
    "SIDE_COLOURS",
    "ArmSummary",
    "Explain",
    "build_ab_document",
    "build_document",
    "comment_marker",
    "comment_size",
    "draw_figures",
    "escalation_section",
    "floor_words",
    "floors_section",
    "floors_summary",
    "interval_label",
    "junit_xml",
    "md",
    "plot_path",
    "render_ab_report",
    "render_markdown",
    "render_not_compared",
    "render_pr_comment",
    "render_report",
    "render_trend",
    "sequential_section",
    "summarize",
    "write_plots",
]

__getattr__ = lazy_face(__name__)
