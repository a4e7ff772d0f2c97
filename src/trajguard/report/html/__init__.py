"""A comparison's report as one self-contained HTML page (``report.html``).

:func:`render_html` renders it from the :class:`trajguard.results.ReportDocument` alone (the
headline, the forest plot, every table and section the markdown has) and, when given, a
:class:`RunPayload` of the runs behind it (:func:`collect_runs` reads it from the run sets) for
the run explorer. Styles, script, figures and data are inline; a content security policy lets
the page load nothing and run no script but its own. docs/reference/report-html.md describes it.

:func:`render_trend_page` renders a suite's nights (``trend --html``) with the same conventions.
"""

from collections.abc import Mapping

from trajguard.report.html._anchors import failed_runs_fragment, run_fragment
from trajguard.report.html._page import render_page
from trajguard.report.html._pairs import exemplar_keys
from trajguard.report.html._payload import ROW_FIELDS, RunPayload, RunSource, collect_runs
from trajguard.report.html._trend_page import render_trend_page
from trajguard.results import ReportDocument

__all__ = [
    "HTML_FILE",
    "ROW_FIELDS",
    "RunPayload",
    "RunSource",
    "collect_runs",
    "exemplar_keys",
    "failed_runs_fragment",
    "render_html",
    "render_trend_page",
    "run_fragment",
]

HTML_FILE = "report.html"
"""The page's name, beside ``report.md`` or ``ab.md``."""


def render_html(
    document: ReportDocument,
    *,
    runs: RunPayload | None = None,
    figures: Mapping[str, bytes] | None = None,
) -> str:
    """The report page of ``document``.

    Args:
        document: the comparison's result document.
        runs: the runs behind it, for the run explorer (``None``: the page says they are not
            in it).
        figures: scenario → the PNG of its distribution plot (the markdown report's figure,
            inlined as a ``data:`` image).
    """
    return render_page(document, runs=runs, figures=figures or {})
