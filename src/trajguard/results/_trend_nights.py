"""The nights of a trend as the store recorded them: what a page of the series links to and
where the baseline was promoted (computed by :mod:`trajguard.nights`)."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["TrendNight"]


@dataclass(frozen=True, kw_only=True)
class TrendNight:
    """One night of a suite in the store.

    Attributes:
        date: the night's date (``YYYY-MM-DD``).
        night_id: its key within the date.
        report: the night's report as the command that kept it named it (a path, relative to
            the directory it ran in, or absolute; ``None``: not recorded).
        runset: the night's run set (``None``: not recorded).
        verdict: the night's verdict.
        exit_code: its exit code.
        baseline_batch: the batch of the baseline it was compared with.
        baseline_pinned: that baseline was promoted by hand (not by ``--promote-if-clean``).
        model: the model(s) it ran.
        git_sha: the commit it ran at.
    """

    date: str
    night_id: str
    report: str | None = None
    runset: str | None = None
    verdict: str | None = None
    exit_code: int | None = None
    baseline_batch: str | None = None
    baseline_pinned: bool | None = None
    model: str | None = None
    git_sha: str | None = None
