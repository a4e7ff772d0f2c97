"""Cost end to end: run sets whose answers are replayed from cassettes (no network), priced from
litellm's map (``openai/gpt-4o-mini``) and from the suite's own table (``local/smollm2``); a
candidate whose completions are twice as long is flagged on cost, and only on cost, in the report,
comparison.json, the store of nights and ``trajguard trend``."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import jsonschema
import pandas as pd
import pytest
from trajguard_testkit.priced import LOCAL_PRICE, priced_runset

from trajguard import pipeline
from trajguard.cli import main
from trajguard.comparison import DEFAULT_GATING, CompareConfig, Verdict
from trajguard.nights import trend
from trajguard.pipeline import ReportOptions, StoreRequest
from trajguard.report import render_trend
from trajguard.report._format import usd
from trajguard.results import SCHEMA_FILE

MINI_PRICE = (0.15, 0.60)  # litellm's bundled map: gpt-4o-mini, US dollars per million tokens


@pytest.fixture(scope="module")
def night(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("cost")
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
            store=StoreRequest(location=str(root / "nights"), date="2026-12-01"),
        )
    return {"root": root, "base": base, "cand": cand, "outcome": outcome}


def _rows(runset: Path) -> pd.DataFrame:
    return pd.read_parquet(runset / "runs.parquet")


def _geometric_ratio(base: pd.DataFrame, cand: pd.DataFrame, scenario: str) -> float:
    logs = [
        frame.loc[frame["scenario"] == scenario, "cost_usd"].map(math.log).mean()
        for frame in (base, cand)
    ]
    return math.exp(logs[1] - logs[0])


def test_every_run_is_priced_from_litellms_map_and_the_judge_apart(night: dict[str, Any]) -> None:
    rows = _rows(night["base"])
    expected = rows["prompt_tokens"] * MINI_PRICE[0] + rows["completion_tokens"] * MINI_PRICE[1]
    assert rows["cost_usd"].to_numpy() == pytest.approx((expected / 1e6).to_numpy(), rel=1e-12)
    assert rows["judge_cost_usd"].isna().all()  # no judge: unknown, never 0


def test_the_embedded_model_is_priced_from_the_suites_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    rows = _rows(priced_runset(tmp_path, "local", completion=20, seed=3, model="local/smollm2"))
    assert set(rows["model"]) == {"local/smollm2"}
    expected = (
        rows["prompt_tokens"] * LOCAL_PRICE["input"]
        + rows["completion_tokens"] * LOCAL_PRICE["output"]
    ) / 1e6
    assert rows["cost_usd"].to_numpy() == pytest.approx(expected.to_numpy(), rel=1e-12)


def test_doubled_completions_are_flagged_on_cost_and_only_on_cost(night: dict[str, Any]) -> None:
    outcome = night["outcome"]
    base, cand = _rows(night["base"]), _rows(night["cand"])
    assert (base["passed"].all(), cand["passed"].all()) == (True, True)  # the same pass rate
    for scenario in outcome.comparison.scenarios:
        moved = {
            m.metric
            for m in scenario.metrics
            if m.kind == "gating" and m.verdict in (Verdict.REGRESSED, Verdict.CHANGED)
        }
        assert moved == {"cost"}, scenario.scenario
        cost = scenario.metric("cost")
        assert cost.estimate == pytest.approx(_geometric_ratio(base, cand, scenario.scenario))
        assert cost.ci is not None and 1.15 < cost.ci[0] < cost.estimate < cost.ci[1]
    assert outcome.exit_code == 1


def test_the_report_shows_each_sides_cost_and_the_cost_row(night: dict[str, Any]) -> None:
    text = night["outcome"].report.read_text(encoding="utf-8")
    base, cand = _rows(night["base"]), _rows(night["cand"])
    total = usd(float(base["cost_usd"].sum()))
    per_run = usd(float(base["cost_usd"].mean()))
    assert f"| cost (USD) | {total} ({per_run} per run) | {usd(float(cand['cost_usd'].sum()))}" in (
        text
    )
    rows = [line for line in text.splitlines() if line.startswith("| cost (USD) | gmean")]
    assert len(rows) == 2  # one per scenario
    assert all("🔴 regressed" in row for row in rows)


def test_comparison_json_holds_the_cost_metric_and_each_sides_cost(night: dict[str, Any]) -> None:
    document = json.loads((night["outcome"].report.parent / "comparison.json").read_text())
    jsonschema.Draft202012Validator(json.loads(SCHEMA_FILE.read_text())).validate(document)
    base = _rows(night["base"])
    assert document["baseline"]["cost"] == {
        "runs": 24,
        "priced": 24,
        "agent_usd": pytest.approx(float(base["cost_usd"].sum())),
        "judge_usd": None,
        "models": [],
        "user_usd": None,
    }
    for scenario in document["comparison"]["scenarios"]:
        (cost,) = [m for m in scenario["metrics"] if m["metric"] == "cost"]
        assert cost["kind"] == "gating" and cost["verdict"] == "regressed"
        assert cost["baseline"]["n"] == 12


def test_the_store_of_nights_and_trend_show_the_cost(
    night: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    cand = _rows(night["cand"])
    store = night["root"] / "nights"
    facts = trend(store)
    points = {s.scenario: s.points[-1] for s in facts.scenarios}
    for scenario, point in points.items():
        mean = float(cand.loc[cand["scenario"] == scenario, "cost_usd"].mean())
        assert point.mean_cost_usd == pytest.approx(mean)
    text = render_trend(facts)
    assert "cost per run (USD)" in text
    assert usd(points["multiply"].mean_cost_usd) in text
    assert main(["trend", str(store)]) == 0
    printed = capsys.readouterr().out
    assert "cost per run (USD)" in printed and usd(points["again"].mean_cost_usd) in printed
