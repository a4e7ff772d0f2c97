"""The Floors section of report.html in a real browser: its table on a regressed night whose
candidate has floors, a hostile scenario name shown as text, no console error, no request."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from trajguard_testkit.browser import open_report
from trajguard_testkit.html_nights import HOSTILE, night_rows, write_night

from trajguard import pipeline, store


def test_the_floors_table_shows_in_the_page(browser: Any, tmp_path: Path) -> None:
    baseline = write_night(tmp_path, "baseline", night_rows(regressed=False), "base1")
    candidate = write_night(tmp_path, "candidate", night_rows(regressed=True), "cand1")
    manifest = json.loads((candidate / store.MANIFEST_FILE).read_text(encoding="utf-8"))
    manifest["floors"] = {
        "capital": {"min_pass_rate": 0.8},
        f"x{HOSTILE}": {"min_pass_rate": 0.5, "max_crash_rate": 0.5},
    }
    store.write_manifest(candidate, manifest)
    outcome = pipeline.compare(baseline, candidate, report=tmp_path / "report" / "report.md")
    assert outcome.exit_code == 1

    opened = open_report(browser, tmp_path / "report" / "report.html")
    page = opened.page
    assert opened.errors == [] and opened.requests == []
    assert page.evaluate("window.__pwned") is None
    heading = page.locator("h2", has_text="Floors")
    assert heading.count() == 1
    table = page.locator("h2[id$='-Floors'] ~ div.tablewrap table").first
    rows = [" ".join(r.split()) for r in table.locator("tr").all_inner_texts()]
    capital = next(r for r in rows if r.startswith("capital"))
    assert "pass rate ≥ 80%" in capital and "breached" in capital
    assert "4/12 passed (33.3%)" in capital
    hostile = [r for r in rows if r.startswith("x<img")]
    assert len(hostile) == 2  # the name shown as text, once per bar
    assert "pass rate ≥ 50% breached 0/12 passed" in hostile[0]  # its runs never pass
    assert "crash rate ≤ 50% met 0/12 crashed" in hostile[1]
