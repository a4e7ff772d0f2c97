"""`trend --html`: the trend page in a real browser. A month of nights with a drop, a new
baseline and a hostile scenario name opens with no console error and no request, shows every
alarm, links exactly the nights whose report exists, and shows the hostile name as text; a
year's store of 20 scenarios opens the same way."""

from __future__ import annotations

import json
import os
import re
from dataclasses import replace
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pytest
from trajguard_testkit.browser import open_report
from trajguard_testkit.html_nights import HOSTILE
from trajguard_testkit.nights import night
from trajguard_testkit.year_store import year_store

from trajguard.nights import record_night, trend
from trajguard.pipeline import write_trend_page
from trajguard.results import TrendFacts

NIGHTS = 24
DROP_AT = 14
PROMOTED_AT = 8


def _month(root: Path) -> Path:
    """24 nights; multiply drops from night 14; base2 (rolling) replaces base1 from night 8;
    the even nights left a report.html beside the report.md their comparison names (relative
    to ``root``, where the nightly ran), night 3 only its report.md."""
    for i in range(NIGHTS):
        day = f"2026-11-{i + 1:02d}"
        rates = {"capital": 0.5, "multiply": 0.9 if i < DROP_AT else 0.2, HOSTILE: 0.6}
        made = night(
            f"n{i:02d}",
            date=day,
            rates=rates,
            seed=i,
            baseline_batch="base1" if i < PROMOTED_AT else "base2",
            pinned=i < PROMOTED_AT,
        )
        folder = root / "reports" / day
        folder.mkdir(parents=True)
        if i % 2 == 0:
            (folder / "report.html").write_text("<!DOCTYPE html><title>night</title>")
        if i == 3:
            (folder / "report.md").write_text("# night\n")
        report = f"reports/{day}/report.md"
        record_night(
            root / "store",
            replace(
                made, runset=f"{root}/elsewhere/runs", comparison=json.dumps({"report": report})
            ),
        )
    return root / "store"


@pytest.fixture(scope="module")
def month(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, TrendFacts]:
    root = tmp_path_factory.mktemp("month")
    store = _month(root)
    before = Path.cwd()
    os.chdir(root)  # the nights named their reports relative to here
    try:
        facts = trend(store)
        write_trend_page(facts, root / "pages" / "trend.html")
    finally:
        os.chdir(before)
    return root / "pages" / "trend.html", facts


def _hrefs(page: Any) -> list[str]:
    return [
        h
        for h in page.locator("a[href]").evaluate_all("els => els.map(e => e.getAttribute('href'))")
        if not h.startswith("#")
    ]


def test_the_page_links_exactly_the_nights_whose_report_exists(
    month: tuple[Path, TrendFacts],
) -> None:
    page, _ = month
    html = page.read_text()
    linked = {unquote(h) for h in re.findall(r'href="([^"#][^"]*)"', html)}
    expected = {f"../reports/2026-11-{i + 1:02d}/report.html" for i in range(0, NIGHTS, 2)}
    expected.add("../reports/2026-11-04/report.md")
    assert linked == expected
    assert all((page.parent / h).is_file() for h in linked)
    assert "Content-Security-Policy" in html and "default-src 'none'" in html
    assert HOSTILE not in html  # only ever escaped


def test_the_page_opens_with_no_error_no_request_and_hostile_text_as_text(
    browser: Any, month: tuple[Path, TrendFacts], tmp_path: Path
) -> None:
    page_file, facts = month
    opened = open_report(browser, page_file)
    page = opened.page
    assert opened.errors == []
    assert opened.requests == []
    assert page.evaluate("window.__pwned === undefined")
    headings = page.locator("section.scenario h3").all_text_contents()
    assert any(h.startswith(f"{HOSTILE} (base): ") for h in headings), headings
    # every alarm of the procedure, dated and worded as `trend` words them
    alarms = [(a, s.scenario) for s in facts.scenarios for a in s.alarms]
    assert any(s == "multiply" and a.harmful and a.direction == "drop" for a, s in alarms)
    rows = page.locator("#alarms tbody tr")
    assert rows.count() == len(alarms)
    texts = " ".join(rows.all_text_contents())
    for a, scenario in alarms:
        assert a.raised in texts and scenario in texts
    assert "pass rate dropped since" in texts or "pass rate drifting down since" in texts
    assert page.locator("#alarms tr.harmful").count() == sum(a.harmful for a, _ in alarms)
    # the new baseline, and where it was promoted
    promotions = page.locator("#promotions li").all_text_contents()
    assert len(promotions) == 2
    assert "2026-11-09" in promotions[1] and "base2" in promotions[1]
    assert "rolling" in promotions[1]
    # four charts per scenario, the alarm marked on the multiply pass-rate chart
    assert page.locator("svg.chart").count() == 4 * len(facts.scenarios)
    marked = page.locator("section.scenario", has_text="multiply (base)").locator(
        "svg.chart line.flag.harmful"
    )
    assert marked.count() >= 1
    # the night table: every night, its link where reachable
    assert page.locator("#nights tbody tr").count() == NIGHTS
    assert page.locator("#nights tbody a[href]").count() == NIGHTS // 2 + 1
    # pointing at a chart reads that night
    chart = page.locator("section.scenario", has_text="capital (base)").locator("svg.chart").first
    chart.scroll_into_view_if_needed()
    box = chart.bounding_box()
    page.mouse.move(box["x"] + box["width"] - 9, box["y"] + box["height"] / 2)
    readout = page.locator("section.scenario", has_text="capital (base)").locator(".readout")
    assert readout.text_content().startswith(f"2026-11-{NIGHTS:02d} (n{NIGHTS - 1:02d}): pass ")
    page.screenshot(path=tmp_path / "trend-1280.png", full_page=True)
    assert (tmp_path / "trend-1280.png").stat().st_size > 10_000
    narrow = open_report(browser, page_file, width=390)
    assert narrow.errors == [] and narrow.requests == []
    assert narrow.page.evaluate("document.documentElement.scrollWidth") <= 390


def test_the_page_reads_without_javascript(browser: Any, month: tuple[Path, TrendFacts]) -> None:
    page_file, facts = month
    opened = open_report(browser, page_file, script=False)
    assert opened.errors == [] and opened.requests == []
    assert opened.page.locator("svg.chart path.line").count() == 4 * len(facts.scenarios)
    assert opened.page.locator("#alarms tbody tr").count() >= 1


def test_a_years_store_of_20_scenarios_opens_with_its_alarm_and_links(
    browser: Any, tmp_path_factory: pytest.TempPathFactory
) -> None:
    root = tmp_path_factory.mktemp("year")
    store = year_store(root, hostile=HOSTILE)
    before = Path.cwd()
    os.chdir(root)
    try:
        facts = trend(store)
        page_file = write_trend_page(facts, root / "trend.html")
    finally:
        os.chdir(before)
    assert facts.nights == 365 and len(facts.scenarios) == 20
    opened = open_report(browser, page_file)
    page = opened.page
    assert opened.errors == [] and opened.requests == []
    assert page.evaluate("window.__pwned === undefined")
    assert page.locator("svg.chart").count() == 80
    assert page.locator("#nights tbody tr").count() == 365
    # the 40-point drop of s00 from night 243 (2026-09-01) is named, as a drop of its pass rate
    rows = page.locator("#alarms tbody tr", has_text="s00")
    assert rows.count() >= 1
    assert "drop" in rows.first.text_content()
    # every 7th night left a report, every 90th a new baseline
    assert len(_hrefs(page)) >= 365 // 7 + 1
    assert page.locator("#promotions li").count() == 5
