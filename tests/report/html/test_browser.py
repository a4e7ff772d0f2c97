"""The HTML report in a real browser: a regressed night, a quiet night and an A/B comparison
open with no console error and no request; the explorer filters and opens runs; hostile text
stays text."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from trajguard_testkit.browser import open_report
from trajguard_testkit.html_nights import HOSTILE, ab_compared, compared

from trajguard.report.builders._failed_criteria import failed_labels
from trajguard.results import ReportDocument, read_document


@pytest.fixture(scope="module")
def nights(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("nights")
    regressed = compared(root / "regressed", regressed=True)
    quiet = compared(root / "quiet", regressed=False)
    assert regressed.regressed and not quiet.regressed
    return {
        "regressed": regressed.report.parent,
        "quiet": quiet.report.parent,
        "ab": ab_compared(root / "ab"),
        "root": root,
    }


def _document(folder: Path) -> ReportDocument:
    return read_document((folder / "comparison.json").read_bytes())


@pytest.mark.parametrize("kind", ["regressed", "quiet", "ab"])
def test_a_report_opens_with_no_error_and_no_request(
    browser: Any, nights: dict[str, Path], kind: str, tmp_path: Path
) -> None:
    folder = nights[kind]
    document = _document(folder)
    opened = open_report(browser, folder / "report.html")
    page = opened.page
    assert opened.errors == []
    assert opened.requests == []
    verdict = " ".join(page.locator("#verdict").inner_text().split())
    expected = "Answer: b " if kind == "ab" else f"Verdict: {document.comparison.verdict.value}"
    assert expected in verdict
    headings = page.locator("h3").all_text_contents()
    for s in document.comparison.scenarios:
        assert any(h.startswith(f"{s.scenario} — ") for h in headings), s.scenario
    drawn = page.locator("#forest g.effect")
    gating = [
        m
        for s in document.comparison.scenarios
        for m in s.metrics
        if m.kind == "gating" and m.estimate is not None
    ]
    assert drawn.count() == len(gating) > 0
    regressions = page.locator('#forest g.effect[data-verdict="regressed"]').count()
    assert regressions == sum(m.verdict.value == "regressed" for m in gating)
    assert (regressions > 0) == (kind != "quiet")  # the A/B's variant b breaks capital
    assert page.locator("#forest").bounding_box()["height"] > 50
    page.screenshot(path=tmp_path / f"{kind}-1280.png", full_page=True)
    narrow = open_report(browser, folder / "report.html", width=390)
    assert narrow.errors == [] and narrow.requests == []
    overflow = narrow.page.evaluate("document.documentElement.scrollWidth")
    assert overflow <= 390, "the narrow page scrolls sideways (tables and plot must scroll inside)"
    narrow.page.screenshot(path=tmp_path / f"{kind}-390.png", full_page=True)
    assert (tmp_path / f"{kind}-1280.png").stat().st_size > 10_000
    assert (tmp_path / f"{kind}-390.png").stat().st_size > 10_000


def _shown(page: Any) -> set[tuple[str, str, str]]:
    rows = page.locator("#runs tbody tr")
    return {
        (
            r.get_attribute("data-side"),
            r.get_attribute("data-batch"),
            r.get_attribute("data-run-id"),
        )
        for r in rows.all()
    }


def _failed_runs(runset: Path, scenario: str, criterion: str) -> set[tuple[str, str]]:
    rows = pq.read_table(runset / "runs.parquet").to_pylist()
    return {
        (r["batch_id"], r["run_id"])
        for r in rows
        if r["scenario"] == scenario and r["passed"] is False and criterion in failed_labels(r)[0]
    }


def test_filtering_to_failed_runs_of_one_criterion_shows_exactly_those(
    browser: Any, nights: dict[str, Path]
) -> None:
    document = _document(nights["regressed"])
    page = open_report(browser, nights["regressed"] / "report.html").page
    criterion = "tool_not_called: get_weather"
    page.select_option("#x-scenario", "capital")
    page.select_option("#x-passed", "false")
    page.select_option("#x-criterion", criterion)
    shown = _shown(page)
    root = nights["root"] / "regressed"
    expected = {
        (document.baseline.label, *key)
        for key in _failed_runs(root / "baseline", "capital", criterion)
    } | {
        (document.candidate.label, *key)
        for key in _failed_runs(root / "candidate", "capital", criterion)
    }
    assert len(expected) == 8  # the night's 8 broken candidate runs
    assert shown == expected
    assert (page.locator("#x-count").text_content() or "").startswith("8 of ")


def test_opening_a_run_shows_its_steps_and_tool_calls(
    browser: Any, nights: dict[str, Path]
) -> None:
    page = open_report(browser, nights["regressed"] / "report.html").page
    page.select_option("#x-scenario", "capital")
    page.select_option("#x-passed", "false")
    row = page.locator("#runs tbody tr").first
    run_id, batch = row.get_attribute("data-run-id"), row.get_attribute("data-batch")
    row.locator("button.open").click()
    page.wait_for_selector("#steps")
    stored = next(
        r
        for r in pq.read_table(
            nights["root"] / "regressed" / "candidate" / "runs.parquet"
        ).to_pylist()
        if r["run_id"] == run_id and r["batch_id"] == batch
    )
    steps = json.loads(stored["trajectory"])["steps"]
    assert page.locator("#steps > details.step").count() == len(steps)
    viewer = page.locator("#x-viewer").inner_text()
    assert "tool call: lookup_country" in viewer and "tool call: get_weather" in viewer
    assert '"x": 1' in viewer  # the second call's arguments
    assert stored["final_output"] in viewer
    page.locator("#steps > details.step summary").first.click()  # steps collapse and open
    assert page.locator("#steps > details.step").first.get_attribute("open") is not None


def test_hostile_text_is_shown_as_text_and_nothing_runs(
    browser: Any, nights: dict[str, Path]
) -> None:
    opened = open_report(browser, nights["regressed"] / "report.html")
    page = opened.page
    name = f"x{HOSTILE}"
    assert any(h.startswith(name) for h in page.locator("h3").all_text_contents())
    # the scenario description from the suite: its markup and its escape shown as text
    body = page.locator("body").inner_text()
    assert "Description: Capitals " + HOSTILE + "\\x1b[31mred" in body
    page.select_option("#x-scenario", name)
    page.locator("#runs tbody tr button.open").first.click()
    page.wait_for_selector("#steps")
    viewer = page.locator("#x-viewer").inner_text()
    assert HOSTILE in viewer  # final output, tool arguments and results: literally
    assert "\\x1b[31mred" in viewer and "\x1b" not in viewer
    assert page.evaluate("typeof window.__pwned") == "undefined"
    assert page.evaluate("document.querySelectorAll('script:not([type])').length") == 1
    sources = page.evaluate("[...document.images].map(i => i.getAttribute('src').slice(0, 22))")
    assert set(sources) <= {"data:image/png;base64,"}
    assert opened.errors == [] and opened.requests == []


def test_the_headline_and_tables_read_without_javascript(
    browser: Any, nights: dict[str, Path], tmp_path: Path
) -> None:
    page = open_report(browser, nights["regressed"] / "report.html", script=False).page
    assert "Verdict: regressed" in " ".join(page.locator("#verdict").inner_text().split())
    assert page.locator("table").count() > 5
    assert page.locator("#forest g.effect").count() > 0
    explorer = page.locator("#explorer")
    explorer.scroll_into_view_if_needed()
    explorer.screenshot(path=tmp_path / "no-script.png")  # laid out once on screen
    assert "needs JavaScript" in explorer.inner_text()


def test_an_ab_pages_pairwise_section_shows_the_judges_answer_and_its_text_stays_text(
    browser: Any, tmp_path: Path
) -> None:
    from trajguard.comparison import AskedOrder, PairJudgement, Preferences

    pairs = tuple(
        PairJudgement(
            scenario="capital",
            run_index=i,
            orders=(AskedOrder(b_first=True, choice="first"),)
            + ((AskedOrder(b_first=False, choice="second"),) if i < 4 else ()),
        )
        for i in range(10)
    )
    preferences = Preferences(
        rubric="Fuller is better " + HOSTILE,
        model="openai/judge",
        judgements=pairs,
        judge_failures=1,
        failures=("the judge answered no preference: " + HOSTILE,),
    )
    folder = ab_compared(tmp_path, preferences=preferences)
    opened = open_report(browser, folder / "report.html")
    page = opened.page
    assert opened.errors == [] and opened.requests == []
    assert page.evaluate("window.__pwned") is None
    section = page.locator("h2", has_text="Pairwise judge")
    assert section.count() == 1
    text = " ".join(page.locator("main").inner_text().split())
    assert "By the pairwise judge, b helped compared with base" in text
    assert (
        "on the 4 pairs asked in both orders, the answer shown first was preferred by +0.00" in text
    )
    assert "Fuller is better " + HOSTILE in text  # the rubric, as text
    assert "1 pair the judge failed on" in text
