"""The pull-request comment's links into report.html, followed in a real browser: a run link
opens that run, a scenario's link lists its failed candidate runs, a later link in the same page
is followed too, and a hostile scenario's link stays text."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from trajguard_testkit.browser import open_report
from trajguard_testkit.html_nights import HOSTILE, compared

from trajguard.report import render_pr_comment
from trajguard.results import read_document

SAMPLE = Path(__file__).resolve().parents[3] / "reports" / "sample-ab"


def _links(folder: Path) -> list[str]:
    """The comment's links into the page beside it, as fragments."""
    document = read_document((folder / "comparison.json").read_bytes())
    comment = render_pr_comment(document, page_url="report.html")
    return [m for m in re.findall(r"(?<!\\)\]\(report\.html(#[^)]*)\)", comment)]


def _failed_candidate_runs(scenario: str) -> set[str]:
    rows = pq.read_table(SAMPLE / "runs" / "runs.parquet").to_pylist()
    return {
        r["run_id"]
        for r in rows
        if r["scenario"] == scenario and r["variant"] == "weather_edit" and r["passed"] is False
    }


def test_a_run_link_opens_that_run_and_a_later_link_opens_another(browser: Any) -> None:
    runs = [link for link in _links(SAMPLE) if link.startswith("#run=")]
    assert runs[0] == "#run=multiply%2Fweather_edit%2F1&batch=sample-ab&side=candidate"
    opened = open_report(browser, SAMPLE / "report.html", fragment=runs[0])
    page = opened.page
    page.wait_for_selector("#steps")
    heading = page.locator("#x-viewer h3").inner_text()
    assert heading == "Run multiply/weather_edit/1 (candidate (weather_edit), batch sample-ab)"
    assert page.locator("#x-scenario").input_value() == "multiply"
    assert runs[1] == "#run=multiply%2Fbase%2F1&batch=sample-ab&side=baseline"
    page.evaluate(f"location.hash = {runs[1]!r}")
    page.wait_for_function(
        "document.querySelector('#x-viewer h3').textContent.startsWith('Run multiply/base/1')"
    )
    assert "(baseline (base), batch sample-ab)" in page.locator("#x-viewer h3").inner_text()
    assert opened.errors == [] and opened.requests == []


def test_a_scenarios_link_lists_exactly_its_failed_candidate_runs(browser: Any) -> None:
    link = next(link for link in _links(SAMPLE) if link.startswith("#explore=multiply"))
    assert link == "#explore=multiply&passed=false&side=candidate"
    opened = open_report(browser, SAMPLE / "report.html", fragment=link)
    rows = opened.page.locator("#runs tbody tr")
    shown = {rows.nth(i).get_attribute("data-run-id") for i in range(rows.count())}
    assert shown == _failed_candidate_runs("multiply") and len(shown) == 18  # 10% of 20 passed
    sides = {rows.nth(i).get_attribute("data-side") for i in range(rows.count())}
    assert sides == {"candidate (weather_edit)"}
    assert opened.errors == [] and opened.requests == []


def test_a_hostile_scenarios_link_is_followed_as_text(browser: Any, tmp_path: Path) -> None:
    folder = compared(tmp_path / "night", regressed=True).report.parent
    name = f"x{HOSTILE}"
    link = next(link for link in _links(folder) if link.startswith("#explore=x%3Cimg"))
    assert "<" not in link and " " not in link
    opened = open_report(browser, folder / "report.html", fragment=link)
    page = opened.page
    assert page.locator("#x-scenario").input_value() == name
    assert page.locator("#runs tbody tr").count() > 0
    assert page.evaluate("typeof window.__pwned") == "undefined"
    assert opened.errors == [] and opened.requests == []


@pytest.mark.parametrize("fragment", ["#run=nope&side=candidate", "#explore=", "#garbage=%"])
def test_a_link_to_nothing_leaves_the_page_as_it_opens(browser: Any, fragment: str) -> None:
    opened = open_report(browser, SAMPLE / "report.html", fragment=fragment)
    assert opened.page.locator("#x-viewer").is_hidden()
    assert opened.errors == [] and opened.requests == []
