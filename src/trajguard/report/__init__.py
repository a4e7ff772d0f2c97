"""Results to text: the markdown reports (compare / nightly, A/B, sequential), JUnit XML, the
distribution plots, and the per-scenario summary of a run set (``trajguard show``).

Renderers return text; :mod:`trajguard.pipeline` decides where it goes. Model-produced text is
escaped (:func:`md`) before it enters a table.
"""

from trajguard.report._ab import render_ab_report
from trajguard.report._escalation import escalation_section
from trajguard.report._format import MARK, interval_label, md
from trajguard.report._junit import junit_xml
from trajguard.report._markdown import render_report
from trajguard.report._plots import write_plots
from trajguard.report._sequential import sequential_section
from trajguard.report._summary import ArmSummary, summarize

__all__ = [
    "MARK",
    "ArmSummary",
    "escalation_section",
    "interval_label",
    "junit_xml",
    "md",
    "render_ab_report",
    "render_report",
    "sequential_section",
    "summarize",
    "write_plots",
]
