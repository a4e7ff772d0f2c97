"""The page shows cost: each side's cost in the provenance table, the cost row of each scenario
and the cost panel of the forest plot when cost gates (real Chromium, the run sets priced from
cassette replays: tests/support/trajguard_testkit/priced.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from trajguard_testkit.browser import open_report
from trajguard_testkit.priced import priced_runset

from trajguard import pipeline
from trajguard.comparison import DEFAULT_GATING, CompareConfig
from trajguard.pipeline import ReportOptions
from trajguard.report._format import usd


@pytest.fixture(scope="module")
def priced_night(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("costpage")
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(root)
        patch.syspath_prepend(str(root))
        patch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        base = priced_runset(root, "base", completion=20, seed=1)
        cand = priced_runset(root, "cand", completion=40, seed=2)
        outcome = pipeline.compare(
            base,
            cand,
            config=CompareConfig(gating=DEFAULT_GATING | {"cost"}),
            report=root / "report" / "report.md",
            options=ReportOptions(plots=False),
        )
    return {"base": base, "cand": cand, "page": outcome.report.parent / "report.html"}


def _cells(page: Any, selector: str) -> list[list[str]]:
    rows = page.locator(selector).all()
    return [[" ".join(c.split()) for c in r.locator("td").all_inner_texts()] for r in rows]


def test_the_page_shows_each_sides_cost_and_the_cost_rows(
    priced_night: dict[str, Path], browser: Any
) -> None:
    # priced_night first: its batches run their own event loop, before Playwright's starts
    opened = open_report(browser, priced_night["page"])
    assert opened.errors == [] and opened.requests == []
    rows = _cells(opened.page, "table tr")
    base = pd.read_parquet(priced_night["base"] / "runs.parquet")["cost_usd"]
    (provenance,) = [r for r in rows if r and r[0] == "cost (USD)" and "per run" in r[1]]
    assert provenance[1] == f"{usd(float(base.sum()))} ({usd(float(base.mean()))} per run)"
    metric_rows = [r for r in rows if r and r[0] == "cost (USD)" and r[1].startswith("gmean")]
    assert len(metric_rows) == 2  # one per scenario
    assert all(r[3].startswith("×1.") and "regressed" in r[-1] for r in metric_rows)
    panels = opened.page.locator("#forest text").all_text_contents()
    assert any("cost" in t for t in panels)
