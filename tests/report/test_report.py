"""The markdown report's wording: interval level, geometric means beside ratios, suite pass^k,
the detectable-drop column, and the notes shown next to verdicts."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from trajguard import comparison as mt
from trajguard.comparison import CompareConfig, compare_ab, compare_runsets
from trajguard.comparison._numeric import evaluate_shift
from trajguard.report import build_ab_document, build_document, render_ab_report, render_report
from trajguard.results import ReportKind
from trajguard.store import RunSet


def run(scenario="s", passed=True, steps=3, prompt=100, variant="main", tools=("calc",)):
    return {
        "scenario": scenario,
        "variant": variant,
        "status": "ok",
        "passed": passed,
        "step_count": steps,
        "tool_sequence": list(tools),
        "tool_counts": {t: list(tools).count(t) for t in set(tools)},
        "prompt_tokens": prompt,
        "completion_tokens": 20,
        "duration_s": 1.0,
    }


def render(base: list[dict], cand: list[dict], config: CompareConfig) -> str:
    b, c = pd.DataFrame(base), pd.DataFrame(cand)
    cmp = compare_runsets(b, c, config=config)
    document = build_document(
        cmp,
        kind=ReportKind.COMPARE,
        baseline=RunSet(path="b", manifest={"suite": "t"}, runs=b),
        candidate=RunSet(path="c", manifest={"suite": "t"}, runs=c),
    )
    return render_report(document)


def test_interval_header_states_the_level_used():
    base = [run(prompt=100 + i) for i in range(10)]
    cand = [run(prompt=120 + i) for i in range(10)]
    text = render(base, cand, CompareConfig(alpha=0.1))
    assert "| 90% CI |" in text and "95% CI" not in text
    assert "| 95% CI |" in render(base, cand, CompareConfig())


def test_ratio_metrics_show_geometric_means():
    prompts_b = [100, 100, 100, 100, 1000]
    prompts_c = [150, 150, 150, 150, 1500]
    text = render(
        [run(prompt=p) for p in prompts_b],
        [run(prompt=p) for p in prompts_c],
        CompareConfig(metrics=("pass_rate", "prompt_tokens")),
    )
    (row,) = [line for line in text.splitlines() if line.startswith("| prompt tokens")]
    gmean_b = stats.gmean(prompts_b)
    assert f"gmean {gmean_b:.3g} (n=5)" in row
    assert f"gmean {stats.gmean(prompts_c):.3g} (n=5)" in row
    assert "median" not in row
    assert "×1.50" in row


def test_suite_pass_k_and_dash_explained():
    base = [run("a", passed=i < 2) for i in range(3)] + [run("b", passed=False) for _ in range(3)]
    cand = [run("a") for _ in range(3)] + [run("b") for _ in range(3)]
    text = render(base, cand, CompareConfig(metrics=("pass_rate", "crash_rate")))
    assert "Suite pass^k (mean over scenarios" in text
    summary = next(line for line in text.splitlines() if line.startswith("| a |"))
    assert summary.endswith("| — |")
    assert "— means none is" in text
    assert "baseline passed no run" in text  # scenario b: 0/3 baseline


def test_complete_separation_note_and_clipped_a_interval():
    b = np.array([3.0, 4, 5])
    c = np.array([6.0, 7, 8])
    ev = evaluate_shift(
        b,
        c,
        margin=0.1,
        alpha=0.05,
        rng=np.random.default_rng(0),
        resampling=mt.Resampling(),
        label="steps",
    )
    assert ev.ci is None
    (note,) = ev.notes
    assert "do not overlap" in note and "constant" not in note
    # Near separation: the t interval of A would pass 1.0; A is a probability.
    near = evaluate_shift(
        np.array([1.0, 2, 3, 4, 5, 6]),
        np.array([5.0, 7, 8, 9, 10, 11]),
        margin=0.1,
        alpha=0.05,
        rng=np.random.default_rng(0),
        resampling=mt.Resampling(),
        label="steps",
    )
    assert near.ci is not None and 0.0 <= near.ci[0] <= near.ci[1] <= 1.0


def test_ab_report_level_and_token_floor_match_compare():
    rows = []
    for i in range(10):
        rows.append(run(variant="A", prompt=0, passed=i < 5))
        rows.append(run(variant="B", prompt=1, passed=i < 6))
    frame = pd.DataFrame(rows)
    config = CompareConfig(alpha=0.1, metrics=("pass_rate", "crash_rate", "prompt_tokens"))
    result = compare_ab(frame, "A", "B", config=config)
    # Below the token floor (1 token) both count as 1: no change, as in compare.
    assert result.metric("prompt_tokens").estimate == pytest.approx(1.0)
    per_scenario = result.per_scenario.scenario("s").metric("prompt_tokens")
    assert per_scenario.estimate == pytest.approx(1.0)
    runs = RunSet(path="r", manifest={"suite": "t"}, runs=frame)
    text = render_ab_report(build_ab_document(result, runs=runs))
    assert "| 90% CI |" in text and "95% CI" not in text
    assert math.isfinite(result.metric("pass_rate").p_value)


def test_ab_provenance_compares_the_variants_definitions():
    """Both sides of an A/B are one batch: its provenance compares variant A's definition of a
    scenario with variant B's, instead of claiming one manifest equals itself."""
    rows = [run(variant="A") for _ in range(10)] + [run(variant="B") for _ in range(10)]
    result = compare_ab(pd.DataFrame(rows), "A", "B")
    hashes = {"s/A": "aaaa", "s/B": "bbbb"}
    runs = RunSet(
        path="runs", manifest={"suite": "t", "config_hashes": hashes}, runs=pd.DataFrame(rows)
    )
    text = render_ab_report(build_ab_document(result, runs=runs))
    assert "Scenario definitions differ between the variants (config hash):" in text
    assert "- s: aaaa → bbbb" in text
    assert "identical" not in text.split("## Provenance")[1]
    same = RunSet(
        path="runs",
        manifest={"suite": "t", "config_hashes": {"s/A": "cccc", "s/B": "cccc"}},
        runs=pd.DataFrame(rows),
    )
    assert "identical in both variants" in render_ab_report(build_ab_document(result, runs=same))


def test_a_criterion_naming_a_tool_no_candidate_run_called_is_warned_about():
    criteria = [
        {"criterion": "tool_called: capital_lookupp", "held": False, "reason": "", "error": False}
    ]
    base = [{**run(tools=("capital_lookup",)), "criteria": criteria} for _ in range(5)]
    cand = [{**run(tools=("capital_lookup", "calculator")), "criteria": criteria} for _ in range(5)]
    text = render(base, cand, CompareConfig())
    assert (
        "- **Warning:** tool\\_called: capital\\_lookupp — no run called a tool of that name "
        "(did you mean 'capital\\_lookup'?); tools seen: calculator, capital\\_lookup" in text
    ), text


def test_results_are_grouped_by_tag_with_the_stratified_test_per_tag():
    base, cand = [], []
    for s in ("a1", "a2", "a3"):  # tag "fine": unchanged
        base += [run(scenario=s, passed=i % 2 == 0) for i in range(20)]
        cand += [run(scenario=s, passed=i % 2 == 0) for i in range(20)]
    for s in ("b1", "b2", "b3"):  # tag "broken": 95% -> 10%
        base += [run(scenario=s, passed=i != 0) for i in range(20)]
        cand += [run(scenario=s, passed=i < 2) for i in range(20)]
    tags = {
        **{f"a{i}": ["fine", "all"] for i in (1, 2, 3)},
        **{f"b{i}": ["broken", "all"] for i in (1, 2, 3)},
    }
    b, c = pd.DataFrame(base), pd.DataFrame(cand)
    groups = {g.tag: g for g in compare_runsets(b, c, tags=tags).tags}
    assert sorted(groups) == ["all", "broken", "fine"]
    assert groups["broken"].scenarios == 3
    assert groups["broken"].pass_rate_baseline == pytest.approx(57 / 60)
    assert groups["broken"].pass_rate_candidate == pytest.approx(6 / 60)
    assert groups["broken"].p_adjusted is not None and groups["broken"].p_adjusted < 0.01
    assert groups["fine"].estimate == 0 and groups["fine"].p_value is not None
    assert groups["fine"].p_value > 0.5
    assert groups["all"].scenarios == 6
    cmp = compare_runsets(b, c, tags=tags)
    document = build_document(
        cmp,
        kind=ReportKind.COMPARE,
        baseline=RunSet(path="b", manifest={"suite": "t"}, runs=b),
        candidate=RunSet(path="c", manifest={"suite": "t"}, runs=c),
    )
    text = render_report(document)
    assert "## By tag" in text
    assert "| broken | 3 | 95% → 10% | -85.0 pts |" in text
    assert "## By tag" not in render(base, cand, CompareConfig())
