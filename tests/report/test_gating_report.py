"""The report's headline (what failed and why), the gating, history and escalation sections,
and the latency label."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
from trajguard_testkit.rows import pass_rows

from trajguard.comparison import (
    CompareConfig,
    EscalationLook,
    EscalationStop,
    compare_runsets,
    pool_history,
)
from trajguard.comparison._escalation import escalation_plan
from trajguard.report import build_document, escalation_section, render_report
from trajguard.results import ReportKind
from trajguard.store import RunSet


def rows(scenario, passes, n, tools=("calc",), batch="b", config_hash="h", duration=1.0):
    return pass_rows(
        scenario, passes, n, tools, batch=batch, config_hash=config_hash, duration=duration
    )


def render(base, cand, config=None, *, manifests=({}, {}), history=None):
    cmp = compare_runsets(base, cand, config=config or CompareConfig())
    document = build_document(
        cmp,
        kind=ReportKind.NIGHTLY,
        baseline=RunSet(path="base", manifest={"suite": "demo", **manifests[0]}, runs=base),
        candidate=RunSet(path="cand", manifest={"suite": "demo", **manifests[1]}, runs=cand),
        history=history,
    )
    return cmp, render_report(document)


def test_headline_leads_with_what_failed_and_why():
    base = pd.DataFrame(rows("multiply", 14, 20) + rows("capital", 9, 20))
    cand = pd.DataFrame(rows("multiply", 2, 20, tools=("get_weather",)) + rows("capital", 9, 20))
    cmp, text = render(base, cand)
    assert cmp.regressed
    head = text.split("\n## ")[0]
    assert "**Verdict: 🔴 regressed** — the night failed on" in head
    line = next(ln for ln in head.splitlines() if ln.startswith("- **multiply**"))
    gate = cmp.scenario("multiply").gate
    assert "pass rate 70% → 10% (Δ -60 pts), band ±10 pts" in line
    assert "tool usage TVD = 0.50, band TVD ≤ 0.1" in line
    assert line.endswith(f"scenario test adj. p {'<0.001' if gate.p_adjusted < 1e-3 else ''}")


def test_quiet_night_says_nothing_moved_beyond_its_band():
    base = pd.DataFrame(rows("a", 10, 20) + rows("b", 10, 20))
    cmp, text = render(base, base.copy())
    assert not cmp.regressed
    assert "no gating metric moved beyond its band with significance" in text


def test_gating_section_states_the_suite_share_of_alpha():
    base = pd.DataFrame(rows("a", 10, 20) + rows("b", 10, 20))
    _, text = render(base, base.copy(), CompareConfig(suite_share=0.2))
    assert "the scenarios' tests use 0.04 and the suite-level tests 0.01 (20% of α)" in text
    assert "| pass rate | Cochran-Mantel-Haenszel, stratified permutation" in text
    one = pd.DataFrame(rows("a", 10, 20))
    _, single = render(one, one.copy())
    assert "(none with a single scenario)" in single


def test_suite_regression_is_in_the_headline():
    rng = np.random.default_rng(0)
    base, cand = [], []
    for s in range(20):
        base += rows(f"s{s}", int(rng.binomial(20, 0.5)), 20)
        cand += rows(f"s{s}", int(rng.binomial(20, 0.3)), 20)
    cmp, text = render(pd.DataFrame(base), pd.DataFrame(cand))
    assert any(t.verdict.value == "regressed" for t in cmp.family.suite)
    assert "- **suite** pass rate:" in text.split("\n## ")[0]


def test_history_section_names_a_drifting_baseline():
    nights = [
        ("n3", pd.DataFrame(rows("a", 1, 20, batch="n3") + rows("b", 10, 20, batch="n3"))),
        ("n2", pd.DataFrame(rows("a", 10, 20, batch="n2") + rows("b", 10, 20, batch="n2"))),
        ("n1", pd.DataFrame(rows("a", 18, 20, batch="n1") + rows("b", 10, 20, batch="n1"))),
    ]
    cand = pd.DataFrame(rows("a", 5, 20, batch="c") + rows("b", 10, 20, batch="c"))
    pooled = pool_history(nights, cand)
    _, text = render(pooled.runs, cand, history=pooled)
    assert "## Baseline history" in text
    assert "The baseline keeps 3 promoted batches" in text
    assert "**Drifting baseline: a**" in text
    assert "| a | pass rate | 5% / 50% / 90% |" in text


def test_latency_is_labelled_when_machines_differ():
    base = pd.DataFrame(rows("a", 10, 20, duration=1.0))
    cand = pd.DataFrame(rows("a", 10, 20, duration=2.0))
    same = {"machine": {"host": "x", "cpu": "EPYC"}}
    other = {"machine": {"host": "y", "cpu": "Xeon"}}
    _, differ = render(base, cand, manifests=(same, other))
    assert "latency (s) ·diag ·machines may differ" in differ
    assert "the batches ran on different machines (EPYC against Xeon)" in differ
    _, alike = render(base, cand, manifests=(same, same))
    assert "machines may differ" not in alike
    cmp, _ = render(base, cand, manifests=(same, other))
    assert cmp.scenario("a").metric("latency").kind == "diagnostic"


def test_escalation_section_states_design_runs_and_reasons():
    design = escalation_plan(first=20, max_runs=60, alpha=0.05, scenarios=2)
    stops = {
        "a": EscalationStop(scenario="a", runs=20, reason="quiet at the first look (p 0.6)"),
        "b": EscalationStop(
            scenario="b",
            runs=60,
            reason="regressed at look 3",
            regressed=("pass_rate",),
            looks=(
                EscalationLook(runs=40, p_value=0.01, threshold=0.0025),
                EscalationLook(runs=60, p_value=0.001, threshold=0.0025),
            ),
        ),
    }
    text = escalation_section(design, stops)
    assert "**1 of 2 scenarios got more runs; 80 candidate runs in all (budget 60" in text
    assert "the whole report at α = 0.04" in text and "looks at 40, 60 runs" in text
    assert (
        "| b | 60 | 40: 0.01 / 0.0025; 60: 0.001 / 0.0025 | regressed at look 3 | pass rate |"
        in text
    )


def test_escalation_section_names_the_scenarios_with_their_own_first_look():
    design = escalation_plan(first=20, max_runs=60, alpha=0.05, scenarios=2)
    own = replace(design, own_looks={"b": (40, 50, 60)})
    stops = {s: EscalationStop(scenario=s, runs=20, reason="quiet") for s in "ab"}
    assert "their own" not in escalation_section(design, stops)
    text = escalation_section(own, stops)
    assert "Scenarios with their own `runs:` have their own looks (runs): b at 40, 50, 60." in text
