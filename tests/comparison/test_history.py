"""Pooling a baseline history per scenario, and the agreement of its batches (drift)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from trajguard_testkit.rows import pass_rows, run_row

from trajguard.comparison import CompareConfig, compare_runsets, pool_history


def rows(scenario, batch, config_hash, passes, n, tools=("calc",)):
    return pass_rows(scenario, passes, n, tools, batch=batch, config_hash=config_hash)


def test_pools_the_batches_with_the_candidates_definition():
    newest = pd.DataFrame(rows("a", "n3", "h2", 5, 10) + rows("b", "n3", "g1", 5, 10))
    middle = pd.DataFrame(rows("a", "n2", "h2", 5, 10) + rows("b", "n2", "g1", 5, 10))
    oldest = pd.DataFrame(rows("a", "n1", "h1", 5, 10) + rows("b", "n1", "g1", 5, 10))
    candidate = pd.DataFrame(rows("a", "c", "h2", 5, 10) + rows("b", "c", "g1", 5, 10))
    pooled = pool_history([("n3", newest), ("n2", middle), ("n1", oldest)], candidate)
    assert pooled.batches == {"a": ("n3", "n2"), "b": ("n3", "n2", "n1")}
    assert pooled.changed == ()
    assert len(pooled.runs[pooled.runs["scenario"] == "b"]) == 30


def test_an_edited_scenario_is_compared_with_the_latest_definition():
    newest = pd.DataFrame(rows("a", "n2", "h1", 5, 10))
    older = pd.DataFrame(rows("a", "n1", "h1", 5, 10))
    oldest = pd.DataFrame(rows("a", "n0", "h0", 5, 10))
    edited = pd.DataFrame(rows("a", "c", "EDIT", 1, 10))
    pooled = pool_history([("n2", newest), ("n1", older), ("n0", oldest)], edited)
    assert pooled.batches == {"a": ("n2", "n1")}
    assert pooled.changed == ("a",)


def test_runs_without_hashes_pool_only_the_latest():
    a = pd.DataFrame(rows("a", "n2", None, 5, 10))
    b = pd.DataFrame(rows("a", "n1", None, 5, 10))
    cand = pd.DataFrame(rows("a", "c", None, 5, 10))
    assert pool_history([("n2", a), ("n1", b)], cand).batches == {"a": ("n2",)}


def _g_permutation_p(table_rows, labels, resamples=3000, seed=0):
    """Independent G test of homogeneity with scipy's statistic, labels permuted."""
    rng = np.random.default_rng(seed)
    values = np.asarray(table_rows, float)

    def g(lab):
        table = np.array([values[lab == k].sum(0) for k in np.unique(labels)])
        table = table[:, table.sum(0) > 0]
        return stats.chi2_contingency(table, correction=False, lambda_="log-likelihood").statistic

    observed = g(labels)
    hits = sum(g(rng.permutation(labels)) >= observed - 1e-9 for _ in range(resamples))
    return (hits + 1) / (resamples + 1)


def test_drift_is_tested_and_named():
    # Scenario "a" drifts (90 % -> 10 % over the nights), "b" does not.
    base = pd.DataFrame(
        rows("a", "n3", "h", 1, 20)
        + rows("a", "n2", "h", 10, 20)
        + rows("a", "n1", "h", 18, 20)
        + rows("b", "n3", "g", 10, 20)
        + rows("b", "n2", "g", 10, 20)
        + rows("b", "n1", "g", 11, 20)
    )
    cand = pd.DataFrame(rows("a", "c", "h", 5, 20) + rows("b", "c", "g", 10, 20))
    config = CompareConfig(metrics=("pass_rate", "crash_rate"), gating=frozenset({"pass_rate"}))
    cmp = compare_runsets(base, cand, config=config)
    drift = {(d.scenario, d.metric): d for d in cmp.drift}
    a, b = drift[("a", "pass_rate")], drift[("b", "pass_rate")]
    assert a.drifting and not b.drifting
    assert a.values == pytest.approx((0.05, 0.5, 0.9))  # newest first
    passed = np.r_[
        [i < 1 for i in range(20)], [i < 10 for i in range(20)], [i < 18 for i in range(20)]
    ]
    labels = np.repeat([0, 1, 2], 20)
    counts = np.column_stack([passed, ~passed])
    assert a.p_value == pytest.approx(_g_permutation_p(counts, labels), abs=0.005)
    passed_b = np.r_[
        [i < 10 for i in range(20)], [i < 10 for i in range(20)], [i < 11 for i in range(20)]
    ]
    ref_b = _g_permutation_p(np.column_stack([passed_b, ~passed_b]), labels)
    assert b.p_value == pytest.approx(ref_b, abs=0.04)
    assert [d.p_adjusted for d in cmp.drift] == pytest.approx(
        stats.false_discovery_control([d.p_value for d in cmp.drift], method="bh")
    )


def test_a_single_batch_baseline_has_no_drift_test():
    base = pd.DataFrame(rows("a", "n1", "h", 5, 10))
    cand = pd.DataFrame(rows("a", "c", "h", 5, 10))
    assert compare_runsets(base, cand).drift == ()


def test_failing_paths_drift_is_the_g_test_of_the_batches_path_by_outcome_tables():
    # Nights n3 and n2 fail along calc; n1 fails along search in 4 of its 10 failures.
    def night(batch, along_search):
        tools = [("calc",)] * 10 + [("search",)] * along_search + [("calc",)] * (10 - along_search)
        judged = [run_row("a", passed=i < 10, tools=t, batch=batch) for i, t in enumerate(tools)]
        return [*judged, run_row("a", passed=None, tools=("search",), batch=batch)]  # no cell

    base = pd.DataFrame(night("n3", 0) + night("n2", 0) + night("n1", 4))
    cand = pd.DataFrame(night("c", 0))
    config = CompareConfig(metrics=("failing_paths",), gating=frozenset({"failing_paths"}))
    (drift,) = compare_runsets(base, cand, config=config).drift
    assert drift.metric == "failing_paths"

    # cells (calc, failed), (calc, passed), (search, failed) of the judged runs, night by night
    def table(along_search):
        cells = np.zeros((20, 3))
        cells[:10, 1] = 1
        cells[10 : 10 + along_search, 2] = 1
        cells[10 + along_search :, 0] = 1
        return cells

    counts = np.vstack([table(0), table(0), table(4)])
    labels = np.repeat([0, 1, 2], 20)
    expected = _g_permutation_p(counts, labels, resamples=4000)
    assert 0.01 < expected < 0.5, "a p-value the check can tell apart from others"
    assert drift.p_value == pytest.approx(expected, abs=0.015)
    assert drift.values[2] > drift.values[0] == drift.values[1]  # the odd night is the oldest
