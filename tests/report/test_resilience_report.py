"""Resilience rates as comparison metrics (over the runs that met a fault, with their tolerance
band) and the report's per-fault-kind section, on hand-built run tables checked against exact
counts and scipy's Fisher test."""

from __future__ import annotations

from typing import Any

import pandas as pd
from scipy import stats

from trajguard.comparison import CompareConfig, Verdict, compare_runsets, metric, tolerance
from trajguard.report import build_document, render_report
from trajguard.results import ReportKind
from trajguard.stats import wilson_interval
from trajguard.store import RunSet


def run(
    *,
    passed: bool = True,
    kinds: dict[str, int] | None = None,
    retried: bool | None = None,
    recovered: bool | None = None,
    variant: str = "flaky",
) -> dict[str, Any]:
    return {
        "scenario": "s",
        "variant": variant,
        "status": "ok",
        "passed": passed,
        "step_count": 3,
        "tool_sequence": ["calc"],
        "tool_counts": {"calc": 1},
        "prompt_tokens": 100,
        "completion_tokens": 20,
        "duration_s": 1.0,
        "faults_injected": None if kinds is None else sum(kinds.values()),
        "fault_kinds": kinds,
        "retried_after_fault": retried,
        "recovered_or_escalated": recovered,
        "no_fabricated_result": None,
    }


def side(retried: int, met: int, untouched: int, *, variant: str = "flaky") -> pd.DataFrame:
    rows = [
        run(kinds={"timeout": 1}, retried=i < retried, recovered=i < retried, variant=variant)
        for i in range(met)
    ]
    rows += [run(kinds={}, variant=variant) for _ in range(untouched)]
    return pd.DataFrame(rows)


def render(base: pd.DataFrame, cand: pd.DataFrame) -> str:
    document = build_document(
        compare_runsets(base, cand, config=CompareConfig()),
        kind=ReportKind.COMPARE,
        baseline=RunSet(path="b", manifest={"suite": "t"}, runs=base),
        candidate=RunSet(path="c", manifest={"suite": "t"}, runs=cand),
    )
    return render_report(document)


def test_retry_rate_is_compared_over_the_runs_that_met_a_fault() -> None:
    base, cand = side(18, 20, 10), side(6, 20, 10)
    comparison = compare_runsets(base, cand, config=CompareConfig())
    (scenario,) = comparison.scenarios
    retry = scenario.metric("retry_rate")
    assert (retry.baseline.n, retry.candidate.n) == (20, 20), "untouched runs are not judged"
    assert retry.baseline.mean == 0.9 and retry.candidate.mean == 0.3
    assert retry.estimate is not None and abs(retry.estimate + 0.6) < 1e-12
    fisher = stats.fisher_exact([[18, 2], [6, 14]], alternative="greater").pvalue
    assert retry.p_value is not None and retry.p_value <= fisher + 1e-9  # Boschloo ≤ Fisher
    assert retry.verdict is Verdict.REGRESSED
    assert metric("retry_rate").tolerance == "resilience" == tolerance("resilience").name
    assert scenario.metric("no_fabrication_rate").baseline.n == 0


def test_a_scenario_without_faults_leaves_the_resilience_rows_out() -> None:
    calm = pd.DataFrame([run(variant="base") for _ in range(5)])
    text = render(calm, calm)
    assert "| pass rate |" in text
    assert "retried after a fault" not in text and "Resilience by fault kind" not in text


def test_the_report_shows_resilience_rates_per_fault_kind_with_intervals() -> None:
    base, cand = side(18, 20, 10, variant="base"), side(6, 20, 10)
    text = render(base, cand)
    assert "| retried after a fault ·diag | 90% (n=20) | 30% (n=20) | Δ -60 pts |" in text
    section = text.split("## Resilience by fault kind", 1)[1].split("\n## ", 1)[0]
    low, high = wilson_interval(6, 20, 0.95)
    expected = (
        f"| candidate (flaky) | timeout | 20 | 100% [84, 100] (n=20) | 30% [{100 * low:.0f}, "
    )
    assert expected + f"{100 * high:.0f}] (n=20) |" in section
    assert "| baseline (base) | (none met) | 10 | 100% [72, 100] (n=10) | — | — | — |" in section
