"""``trend --html PATH``: the trend's page, with each night linked to its report where that report
is reachable from the page."""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import quote

from trajguard.errors import StoreError
from trajguard.nights import trend_nights
from trajguard.pipeline._outputs import check_targets, write_texts
from trajguard.report.html import HTML_FILE, render_trend_page
from trajguard.results import TrendFacts, TrendNight

__all__ = ["night_links", "write_trend_page"]


def _report_of(night: TrendNight) -> Path | None:
    """The night's report on this machine: the HTML page beside the report it named (or that
    report), else the page a nightly writes beside its run set; ``None`` when none exists. A
    relative path is the directory this command runs in's, as it was the nightly's."""
    found: list[Path] = []
    if night.report:
        named = Path(night.report)
        found += [named.with_name(HTML_FILE), named]
    if night.runset:
        found.append(Path(night.runset).parent / HTML_FILE)
    return next((p for p in found if p.is_file()), None)


def night_links(nights: tuple[TrendNight, ...], page: Path) -> dict[tuple[str, str], str]:
    """(date, night id) → the href, relative to ``page``'s directory, of each night's report
    that exists."""
    base = page.absolute().parent
    links = {}
    for night in nights:
        target = _report_of(night)
        if target is None:
            continue
        try:
            relative = os.path.relpath(target.absolute(), base)
        except ValueError:  # another drive (Windows): no relative path
            continue
        links[(night.date, night.night_id)] = quote(Path(relative).as_posix(), safe="/")
    return links


def write_trend_page(facts: TrendFacts, page: Path) -> Path:
    """Write the page of ``facts`` (as :func:`trajguard.nights.trend` returned it) to ``page``.

    Raises:
        StoreError: ``page`` cannot be written, or the store changed while it was read (run
            again).
    """
    check_targets(page)
    nights = trend_nights(facts.store, suite=facts.suite, newest=facts.nights)
    known = {(n.date, n.night_id) for n in nights}
    points = {(p.date, p.night_id) for s in facts.scenarios for p in s.points}
    if len(nights) != facts.nights or not points <= known:
        raise StoreError(
            "the store's nights changed while the trend page was made",
            file=facts.store,
            hint="run the command again",
        )
    write_texts({page: render_trend_page(facts, nights, links=night_links(nights, page))})
    return page
