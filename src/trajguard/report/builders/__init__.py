"""What a report is built from: the report document computed from a comparison's run sets
(pandas, numpy), the distribution figures drawn from the document (matplotlib), and the
per-scenario summary of a run set (``trajguard show``).

Everything that reads a run table or draws a figure is here; the renderers of
:mod:`trajguard.report` read only the :class:`trajguard.results.ReportDocument` built here and
import neither pandas nor matplotlib.
"""

from typing import TYPE_CHECKING

from trajguard._lazy import lazy_face

if TYPE_CHECKING:
    from trajguard.report.builders._arm_summary import ArmSummary, summarize
    from trajguard.report.builders._document import Explain, build_ab_document, build_document
    from trajguard.report.builders._failed_criteria import failed_labels
    from trajguard.report.builders._plots import SIDE_COLOURS, draw_figures, plot_path, write_plots

__all__ = [
    "SIDE_COLOURS",
    "ArmSummary",
    "Explain",
    "build_ab_document",
    "build_document",
    "draw_figures",
    "failed_labels",
    "plot_path",
    "summarize",
    "write_plots",
]

__getattr__ = lazy_face(__name__)
