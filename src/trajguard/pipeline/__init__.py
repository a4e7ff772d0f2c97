"""The jobs: each command's work as one library call (run, compare and write).

:func:`run` (a batch), :func:`compare` (two run sets → report, exit flag), :func:`nightly`
(run + compare with the baseline + report), :func:`ab` (two variants → did B help?),
:func:`show`, :func:`plan` and :func:`estimate_night` (read-only), :func:`promote` (a run set
becomes the baseline), :func:`promote_from_store` (a night of the store of nights becomes it);
:func:`check_runset_floors` (a run set against its scenarios' floors, no baseline); a
:class:`StoreRequest` keeps a comparison's night in the store of nights; :func:`write_trend_page`
writes the page of its series.
The command line only maps options to these and prints what they return.
"""

from typing import TYPE_CHECKING

from trajguard._lazy import lazy_face
from trajguard.store import promote

if TYPE_CHECKING:
    from trajguard.pipeline._ab import ABOutcome, ab
    from trajguard.pipeline._budget import NightEstimate, estimate_night
    from trajguard.pipeline._compare import CompareOutcome, compare, with_suite_tolerances
    from trajguard.pipeline._floors import FloorOutcome, check_runset_floors
    from trajguard.pipeline._inspect import RunSetView, plan, show
    from trajguard.pipeline._nightly import nightly
    from trajguard.pipeline._nights import ROLLING, StoreRequest, promote_from_store
    from trajguard.pipeline._outputs import ReportOptions, plotted_scenarios
    from trajguard.pipeline._pr_comment import PostedComment, pr_comment_text, publish_pr_comment
    from trajguard.pipeline._rerender import Rerendered, rerender
    from trajguard.pipeline._run import dry_run, run
    from trajguard.pipeline._trend_page import write_trend_page


__all__ = [
    "ROLLING",
    "ABOutcome",
    "CompareOutcome",
    "FloorOutcome",
    "NightEstimate",
    "PostedComment",
    "ReportOptions",
    "Rerendered",
    "RunSetView",
    "StoreRequest",
    "ab",
    "check_runset_floors",
    "compare",
    "dry_run",
    "estimate_night",
    "nightly",
    "plan",
    "plotted_scenarios",
    "pr_comment_text",
    "promote",
    "promote_from_store",
    "publish_pr_comment",
    "rerender",
    "run",
    "show",
    "with_suite_tolerances",
    "write_trend_page",
]

__getattr__ = lazy_face(__name__)
