"""Baseline against candidate, as distributions: per-metric, per-scenario and overall verdicts.

Pure: run tables in (pandas, one row per run), a :class:`Comparison` out. The unit is the run.
Each scenario and metric is evaluated by the metric's evaluator (:mod:`._registry`); then the
families are adjusted and judged (:mod:`._families`). Harmful means a lower pass rate, or a
higher crash rate, step count, token count or latency. Scenarios found in only one batch are
listed (``only_in_baseline``, ``only_in_candidate``), not compared.
"""

from __future__ import annotations

import os
import zlib
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

import numpy as np
import numpy.typing as npt
import pandas as pd

from trajguard import stats as st
from trajguard._tools_seen import unseen_tool_warnings
from trajguard.comparison._arms import Arm, split_runs
from trajguard.comparison._blind_spots import blind_spots
from trajguard.comparison._combined_tests import ScenarioMap, gate_scenarios, shared_arrangements
from trajguard.comparison._config import CompareConfig
from trajguard.comparison._evaluation import Evaluation
from trajguard.comparison._evaluators import Context
from trajguard.comparison._families import Tested, adjust_family, judge_gating, tested
from trajguard.comparison._history import baseline_drift
from trajguard.comparison._judge_rules import length_rule_judges
from trajguard.comparison._judges import judge_consistency, judged_once, uniform_judges
from trajguard.comparison._registry import metric, metric_stream
from trajguard.comparison._results import (
    Comparison,
    Family,
    MetricResult,
    PassK,
    ScenarioGate,
    ScenarioResult,
    settle,
)
from trajguard.comparison._runs_to_decide import decide_note
from trajguard.comparison._tags import tag_groups
from trajguard.comparison._verdicts import Verdict

__all__ = ["compare_arms", "compare_runsets", "evaluate_metric", "scenario_threads"]

# Beyond a few threads the Python between the array operations (which release the GIL) binds.
_MAX_THREADS = 4


def scenario_threads(scenarios: int) -> int:
    """Threads that evaluate scenarios: the cores this process may use, at most 4."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, min(_MAX_THREADS, cores or 1, scenarios))


def _evaluate(
    name: str, b: Arm, c: Arm, config: CompareConfig, scenario: str, shared: st.Arrangements
) -> Evaluation:
    config = config.for_scenario(scenario)
    m = metric(name)
    rng = np.random.default_rng([config.seed, zlib.crc32(scenario.encode()), metric_stream(name)])
    context = Context(
        label=m.label,
        column=m.column,
        margin=0.0 if m.tolerance is None else config.tolerance(m.tolerance),
        equivalence=0.0 if m.equivalence_band is None else config.tolerance(m.equivalence_band),
        floor=config.floor(m.column),
        alpha=config.alpha,
        resampling=config.resampling,
        rng=rng,
        shared=shared,
    )
    return m.evaluate(b, c, context)


def evaluate_metric(
    name: str, b: Arm, c: Arm, *, config: CompareConfig, scenario: str
) -> Evaluation:
    """One metric of one scenario before any adjustment (the sequential gate's looks)."""
    return _evaluate(name, b, c, config, scenario, shared_arrangements(b, c, config, scenario))


def _pass_k(passed: npt.NDArray[np.bool_], max_k: int, confidence: float) -> tuple[PassK, ...]:
    """The unbiased pass^k with the Wilson-based interval, widened down to the estimate.

    ``C(c, k) / C(n, k)`` is at most ``(c/n)**k``, hence below the interval's upper end, but it
    can fall under its lower end (2 passes of 3, k = 3: 0 against 0.009); the interval is then
    extended to include it (coverage only grows), so estimate and interval never disagree.
    """
    c, n = int(passed.sum()), int(passed.size)
    out = []
    for k in range(1, min(n, max_k) + 1):
        estimate = st.pass_hat_k(c, n, k)
        low, high = st.pass_k_interval(c, n, k, confidence)
        out.append(PassK(k=k, estimate=estimate, low=min(low, estimate), high=max(high, estimate)))
    return tuple(out)


def _suite_pass_k(per_scenario: list[tuple[PassK, ...]]) -> tuple[PassK, ...]:
    """Mean over scenarios; the interval averages the scenarios' endpoints (conservative)."""
    usable = [s for s in per_scenario if s]
    depth = min((len(s) for s in usable), default=0)
    return tuple(
        PassK(
            k=k + 1,
            estimate=float(np.mean([s[k].estimate for s in usable])),
            low=float(np.mean([s[k].low for s in usable])),
            high=float(np.mean([s[k].high for s in usable])),
        )
        for k in range(depth)
    )


def _missing_notes(name: str, b: Arm, c: Arm) -> tuple[str, ...]:
    column = metric(name).column
    if metric(name).kind in ("tools", "order", "paths") or column == "crashed":
        return ()
    return tuple(
        f"{arm.missing[column]} {side} run(s) without {column} left out"
        for side, arm in (("baseline", b), ("candidate", c))
        if arm.missing.get(column)
    )


def _gating_results(
    gating: list[Tested],
    arms_b: dict[str, Arm],
    arms_c: dict[str, Arm],
    shared: dict[str, st.Arrangements],
    config: CompareConfig,
    mapper: ScenarioMap,
) -> tuple[dict[tuple[str, str], MetricResult], Family, dict[str, ScenarioGate]]:
    """The gating family's verdicts, how it was adjusted, and each scenario's combined test."""
    m_gating = sum(t.evaluation.testable for t in gating)
    if config.multiplicity == "holm" or not gating:
        family = Family(
            method="holm",
            alpha=config.alpha,
            alpha_scenarios=config.alpha,
            alpha_suite=0.0,
            critical=config.alpha / max(m_gating, 1),
        )
        return adjust_family(gating, gating=True, config=config), family, {}
    outcome = gate_scenarios(
        arms_b,
        arms_c,
        evaluations={(t.scenario, t.metric): t.evaluation for t in gating},
        shared=shared,
        config=config,
        mapper=mapper,
    )
    results = judge_gating(
        gating,
        gates=outcome.gates,
        level=outcome.alpha_scenarios,
        critical=outcome.critical,
        config=config,
    )
    family = Family(
        method="omnibus",
        alpha=config.alpha,
        alpha_scenarios=outcome.alpha_scenarios,
        alpha_suite=outcome.alpha_suite,
        critical=outcome.critical,
        suite=outcome.suite,
    )
    return results, family, dict(outcome.gates)


def _scenario_tests(
    scenario: str, b: Arm, c: Arm, config: CompareConfig
) -> tuple[st.Arrangements, list[Tested]]:
    """Every metric of one scenario, and the arrangements its tool metrics drew."""
    shared = shared_arrangements(b, c, config, scenario)
    out = []
    for name in config.metrics:
        ev = _evaluate(name, b, c, config, scenario, shared)
        missing = _missing_notes(name, b, c)
        if missing:
            ev = replace(ev, notes=ev.notes + missing)
        out.append(tested(scenario, name, ev, two_sided=config.two_sided))
    return shared, out


def compare_arms(
    arms_b: dict[str, Arm],
    arms_c: dict[str, Arm],
    *,
    config: CompareConfig,
    tags: Mapping[str, Sequence[str]] | None = None,
) -> Comparison:
    """:func:`compare_runsets` on run tables already split by :func:`split_runs`.

    Scenarios are evaluated on a few threads (:func:`scenario_threads`): each draws from
    generators of its own, so the result does not depend on the order they finish in.
    """
    common = sorted(arms_b.keys() & arms_c.keys())
    with ThreadPoolExecutor(max_workers=scenario_threads(len(common))) as pool:
        drift = pool.submit(baseline_drift, {s: arms_b[s] for s in common}, config)
        done = list(pool.map(lambda s: _scenario_tests(s, arms_b[s], arms_c[s], config), common))
        shared = {s: arrangements for s, (arrangements, _) in zip(common, done, strict=True)}
        every = [t for _, tests in done for t in tests]
        gating = [t for t in every if t.metric in config.gating]
        diagnostic = [t for t in every if t.metric not in config.gating]
        results, family_info, gates = _gating_results(
            gating, arms_b, arms_c, shared, config, pool.map
        )
        drift_tests = drift.result()
    results |= adjust_family(diagnostic, gating=False, config=config)
    results = _with_decide_notes(results, family_info.critical, config)
    m_gating = sum(t.evaluation.testable for t in gating)
    mde_alpha = family_info.critical
    scenarios = []
    for scenario in common:
        b, c = arms_b[scenario], arms_c[scenario]
        metric_results = tuple(results[(scenario, m)] for m in config.metrics)
        mde, rate = None, None
        if b.passed.size and c.passed.size and "pass_rate" in config.metrics:
            rate = float(b.passed.mean())
            mde = st.mde_pass_rate(
                rate,
                b.passed.size,
                n_c=c.passed.size,
                alpha=mde_alpha,
                power=config.power,
                two_sided=config.two_sided,
            )
        scenarios.append(
            ScenarioResult(
                scenario=scenario,
                verdict=Verdict.INCONCLUSIVE,  # settled below, with the report's verdict
                metrics=metric_results,
                runs_baseline=b.runs,
                runs_candidate=c.runs,
                harness_excluded_baseline=b.harness_excluded,
                harness_excluded_candidate=c.harness_excluded,
                pass_k_baseline=_pass_k(b.passed, config.max_k, 1 - config.alpha),
                pass_k_candidate=_pass_k(c.passed, config.max_k, 1 - config.alpha),
                mde_pass_rate=mde,
                mde_alpha=mde_alpha,
                baseline_pass_rate=rate,
                gate=gates.get(scenario),
            )
        )
    comparison = Comparison(
        verdict=Verdict.INCONCLUSIVE,
        regressed=False,
        scenarios=tuple(scenarios),
        pass_k_baseline=_suite_pass_k([s.pass_k_baseline for s in scenarios]),
        pass_k_candidate=_suite_pass_k([s.pass_k_candidate for s in scenarios]),
        gating_tests=m_gating,
        diagnostic_tests=sum(t.evaluation.testable for t in diagnostic),
        harness_excluded_baseline=sum(a.harness_excluded for a in arms_b.values()),
        harness_excluded_candidate=sum(a.harness_excluded for a in arms_c.values()),
        only_in_baseline=tuple(sorted(arms_b.keys() - arms_c.keys())),
        only_in_candidate=tuple(sorted(arms_c.keys() - arms_b.keys())),
        config=config,
        family=family_info,
        drift=drift_tests,
        blind=blind_spots(scenarios, config, level=mde_alpha),
        tags=tag_groups(arms_b, arms_c, tags, shared, config) if tags else (),
    )
    return settle(comparison)


def _with_decide_notes(
    results: dict[tuple[str, str], MetricResult], critical: float, config: CompareConfig
) -> dict[tuple[str, str], MetricResult]:
    """Every inconclusive gating metric says what N would decide it at its observed effect."""
    out = dict(results)
    for (scenario, name), r in results.items():
        if r.kind != "gating" or r.verdict is not Verdict.INCONCLUSIVE or r.identical:
            continue
        if not (r.baseline.n and r.candidate.n):
            continue
        band_name = metric(name).tolerance
        band = None if band_name is None else config.for_scenario(scenario).tolerance(band_name)
        note = decide_note(r, band=band, level=critical, alpha=config.alpha, power=config.power)
        if note is not None:
            out[(scenario, name)] = replace(r, notes=(*r.notes, note))
    return out


def compare_runsets(
    baseline: pd.DataFrame,
    candidate: pd.DataFrame,
    *,
    config: CompareConfig | None = None,
    tags: Mapping[str, Sequence[str]] | None = None,
) -> Comparison:
    """Compare a candidate run set with a baseline run set, scenario by scenario.

    Args:
        baseline: baseline runs, one row per run (the run-table columns of the README).
        candidate: candidate runs, same columns.
        config: settings; defaults to :class:`CompareConfig`.
        tags: each scenario's tags (results are grouped by them: :class:`TagGroup`).

    Returns:
        The comparison; ``regressed`` is the exit-code flag (any gating metric regressed).

    Raises:
        StoreError: a table lacks a required column or has an unknown status.
    """
    config = config or CompareConfig()
    comparison = compare_arms(
        split_runs(baseline, crash_statuses=config.crash_statuses, side="baseline"),
        split_runs(candidate, crash_statuses=config.crash_statuses, side="candidate"),
        config=config,
        tags=tags,
    )
    judges = judge_consistency(baseline, "baseline") + judge_consistency(candidate, "candidate")
    once = judged_once(baseline, "baseline") + judged_once(candidate, "candidate")
    unstable = config.judge_unstable == "fail" and any(j.unstable for j in judges)
    return replace(
        comparison,
        warnings=_unseen_tools(candidate),
        judges=judges,
        judged_once=once,
        uniform_judges=uniform_judges(baseline, candidate),
        length_rule_judges=length_rule_judges(baseline, candidate),
        regressed=comparison.regressed or unstable,
    )


def _unseen_tools(runs: pd.DataFrame) -> tuple[str, ...]:
    """The criteria labels of ``runs`` naming a tool none of them called."""
    if "criteria" not in runs or "tool_counts" not in runs:
        return ()
    labels = [
        str(entry["criterion"])
        for entries in runs["criteria"]
        if entries is not None
        for entry in entries
    ]
    seen = {
        str(name if isinstance(counts, Mapping) else name[0])
        for counts in runs["tool_counts"]
        if counts is not None
        for name in counts
    }
    return unseen_tool_warnings(labels, seen)
