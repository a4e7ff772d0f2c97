"""`trend --html` with cost (issue 38): a store whose nights were priced shows each priced
scenario's cost per run night by night (a chart in dollars, and the readout of a night), in a
real browser with no console error and no request; a scenario never priced gets no cost chart
(its cost is unknown, not 0)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from trajguard_testkit.browser import open_report
from trajguard_testkit.nights import night

from trajguard.nights import record_night, trend
from trajguard.pipeline import write_trend_page
from trajguard.report._format import usd
from trajguard.results import TrendFacts

NIGHTS = 10
DEARER_FROM = 6
RATES = {"capital": 0.5, "multiply": 0.8, "unpriced": 0.6}


def _priced_night(i: int) -> Any:
    made = night(f"n{i:02d}", date=f"2026-11-{i + 1:02d}", rates=RATES, seed=i)
    runs = made.runs.copy()
    per_run = 0.000125 * (2 if i >= DEARER_FROM else 1)  # the prompt edit doubles the cost
    runs["cost_usd"] = [
        None if s == "unpriced" else per_run * (1 + 0.1 * (k % 3))
        for k, s in enumerate(runs["scenario"])
    ]
    return replace(made, runs=runs)


@pytest.fixture(scope="module")
def page_file(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, TrendFacts]:
    root = tmp_path_factory.mktemp("costtrend")
    for i in range(NIGHTS):
        record_night(root / "store", _priced_night(i))
    facts = trend(root / "store")
    return write_trend_page(facts, root / "trend.html"), facts


def test_each_priced_scenario_shows_its_cost_per_run_over_the_nights(
    browser: Any, page_file: tuple[Path, TrendFacts]
) -> None:
    path, facts = page_file
    opened = open_report(browser, path)
    page = opened.page
    assert opened.errors == [] and opened.requests == []
    costs = page.locator('svg.chart[aria-label$=": cost per run"]')
    assert costs.count() == 2  # capital and multiply; unpriced has none
    unpriced = page.locator("section.scenario", has_text="unpriced (base)")
    assert unpriced.locator("svg.chart").count() == 4
    assert unpriced.locator("figcaption", has_text="cost").count() == 0
    points = {s.scenario: s.points for s in facts.scenarios}
    assert all(p.mean_cost_usd is None for p in points["unpriced"])
    multiply = page.locator("section.scenario", has_text="multiply (base)")
    chart = multiply.locator('svg.chart[aria-label="multiply: cost per run"]')
    # the axis is in dollars, its top above the dearest night
    top = max(p.mean_cost_usd or 0.0 for p in points["multiply"])
    ticks = chart.locator("text.tick").all_text_contents()
    assert usd(0.0) in ticks and usd(top * 1.1) in ticks
    # pointing at the last night reads its cost per run, as `trend` writes it
    chart.scroll_into_view_if_needed()
    box = chart.bounding_box()
    page.mouse.move(box["x"] + box["width"] - 9, box["y"] + box["height"] / 2)
    last = points["multiply"][-1]
    assert last.mean_cost_usd is not None
    readout = multiply.locator(".readout").text_content() or ""
    assert readout.startswith(f"2026-11-{NIGHTS:02d} (n{NIGHTS - 1:02d}): pass ")
    assert readout.endswith(f"cost {usd(last.mean_cost_usd)} per run")
    # the first night, before the edit: half the cost
    page.mouse.move(box["x"] + 46, box["y"] + box["height"] / 2)
    first = points["multiply"][0]
    assert first.mean_cost_usd is not None
    assert last.mean_cost_usd == pytest.approx(2 * first.mean_cost_usd, rel=0.15)
    assert (multiply.locator(".readout").text_content() or "").endswith(
        f"cost {usd(first.mean_cost_usd)} per run"
    )


def test_the_cost_chart_reads_without_javascript(
    browser: Any, page_file: tuple[Path, TrendFacts]
) -> None:
    path, _ = page_file
    opened = open_report(browser, path, script=False)
    assert opened.errors == [] and opened.requests == []
    lines = opened.page.locator('svg.chart[aria-label$=": cost per run"] path.line')
    assert lines.count() == 2
    assert all(d for d in lines.evaluate_all("els => els.map(e => e.getAttribute('d'))"))
