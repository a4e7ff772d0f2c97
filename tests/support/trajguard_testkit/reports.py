"""Comparisons with every section a report has, made from hand-built run tables, for the tests
that render them (and for the golden reports those tests compare with).

Each :class:`ReportCase` holds what a pipeline hands the report layer: the comparison (or A/B
result), both run sets, the pooled history, the command and the extra sections. It names only
:mod:`trajguard.comparison` and :mod:`trajguard.store`, so the same cases can be rendered by any
checkout's report API.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from trajguard.comparison import (
    ABResult,
    CompareConfig,
    Comparison,
    Decision,
    DesignRecord,
    LookRecord,
    PooledBaseline,
    SequentialOutcome,
    SequentialRecord,
    Stop,
    compare_ab,
    compare_runsets,
    pool_history,
)
from trajguard.stats import Action
from trajguard.store import RunSet
from trajguard_testkit.rows import pass_rows, run_row


@dataclass(frozen=True, kw_only=True)
class ReportCase:
    """One report's inputs. ``ab`` is set for an A/B case: ``runs`` then holds both variants,
    ``baseline`` and ``candidate`` each variant's runs."""

    name: str
    comparison: Comparison
    baseline: RunSet
    candidate: RunSet
    history: PooledBaseline | None = None
    ab: ABResult | None = None
    runs: RunSet | None = None
    command: str | None = None
    design: DesignRecord | None = None

    @property
    def scenarios(self) -> list[str]:
        """Every compared scenario (all of them are plotted)."""
        return [s.scenario for s in self.comparison.scenarios]


def _frame(rows: Sequence[dict[str, Any]]) -> pd.DataFrame:
    return pd.DataFrame(list(rows))


def history_case() -> ReportCase:
    """A pooled history with a drifting scenario and an edited one, latency on two machines,
    changed config hashes, an extra section and a command."""
    nights = [
        (label, _frame(pass_rows("a", a, 20, batch=label) + pass_rows("b", 10, 20, batch=label)))
        for label, a in (("n3", 1), ("n2", 10), ("n1", 18))
    ]
    for _, frame in nights:
        frame["config_hash"] = "h"
    cand = _frame(
        pass_rows("a", 5, 20, batch="c", config_hash="h", duration=2.0)
        + pass_rows("b", 10, 20, ("calc", "search"), batch="c", config_hash="edited")
        + [run_row("b", None, (), status="harness_error", batch="c", config_hash="edited")]
    )
    pooled = pool_history(nights, cand)
    comparison = compare_runsets(pooled.runs, cand, config=CompareConfig())
    baseline = RunSet(
        path="baselines/demo",
        manifest={
            "suite": "demo",
            "models": ["local/m1", "local/m2"],
            "machine": {"cpu": "EPYC", "host": "x", "cores": 2},
            "history_batches": ["n3", "n2", "n1"],
            "config_hashes": {"a/base": "h", "b/base": "h"},
            "batch_seed": 3,
            "status": "finished",
        },
        runs=pooled.runs,
    )
    candidate = RunSet(
        path="reports/2026-12-01/runs",
        manifest={
            "suite": "demo",
            "models": [],
            "git_sha": "6f95b00",
            "started_at": "2026-12-01T14:19:17+00:00",
            "finished_at": "",
            "batch_seed": 7,
            "machine": {"cpu": "Xeon | <b>", "host": "y", "cores": 2},
            "config_hashes": {"a/base": "h", "b/base": "edited"},
            "batch_id": "c",
        },
        runs=cand,
    )
    return ReportCase(
        name="history",
        comparison=comparison,
        baseline=baseline,
        candidate=candidate,
        history=pooled,
        command="trajguard nightly suites/demo.yaml",
        design=SequentialRecord(
            outcome=SequentialOutcome(
                max_runs=30,
                plan=(10, 20, 30),
                alpha=0.0125,
                gating=("pass_rate", "crash_rate"),
                looks=(LookRecord(look=0, runs=10, decisions={"a": "stop: regressed"}),),
                stopped={
                    "a": Stop(
                        runs=10,
                        decision=Decision(
                            action=Action.STOP_REGRESSED, metrics=("pass_rate",), detail="pass rate"
                        ),
                    )
                },
            ),
        ),
    )


def _chaos_row(
    *, kinds: dict[str, int] | None, passed: bool, retried: bool | None, variant: str, i: int
) -> dict[str, Any]:
    return run_row("flaky", passed, ("calc", "calc") if i % 3 else ("calc",)) | {
        "variant": variant,
        "faults_injected": None if kinds is None else sum(kinds.values()),
        "fault_kinds": kinds,
        "retried_after_fault": retried,
        "recovered_or_escalated": retried,
        "no_fabricated_result": None if kinds is None or i % 4 == 0 else passed,
    }


def _chaos_side(retried: int, *, variant: str) -> pd.DataFrame:
    rows = [
        _chaos_row(
            kinds={"timeout": 1, "error": i % 2},
            passed=i % 3 > 0,
            retried=i < retried,
            variant=variant,
            i=i,
        )
        for i in range(20)
    ]
    rows += [
        _chaos_row(kinds={}, passed=True, retried=None, variant=variant, i=i) for i in range(10)
    ]
    rows += [run_row("calm", i % 2 == 0) | {"variant": variant} for i in range(6)]
    return _frame(rows)


def resilience_case() -> ReportCase:
    """Runs that met faults (two kinds, none met), a scenario without faults, no manifests."""
    base, cand = _chaos_side(18, variant="base"), _chaos_side(6, variant="flaky")
    return ReportCase(
        name="resilience",
        comparison=compare_runsets(base, cand, config=CompareConfig(alpha=0.1)),
        baseline=RunSet(path="b", manifest={"suite": "chaos"}, runs=base),
        candidate=RunSet(path="c", manifest={}, runs=cand),
    )


def _variant(runs: RunSet, variant: str) -> RunSet:
    frame = runs.runs
    path = f"{runs.path} (variant {variant})"
    return RunSet(path=path, manifest=runs.manifest, runs=frame[frame["variant"] == variant])


def ab_case() -> ReportCase:
    """Two variants of three scenarios in one run set, B worse in one of them."""
    rows = []
    for scenario, a_passes, b_passes in (("tolerant", 15, 5), ("strict", 14, 13), ("same", 8, 8)):
        rows += [r | {"variant": "base"} for r in pass_rows(scenario, a_passes, 20)]
        rows += [
            r | {"variant": "terse", "step_count": 2}
            for r in pass_rows(scenario, b_passes, 20, ("calc", "search"))
        ]
    frame = _frame(rows)
    runs = RunSet(path="reports/ab/runs", manifest={"suite": "bands", "models": ["m"]}, runs=frame)
    result = compare_ab(frame, "base", "terse", config=CompareConfig(two_sided=True))
    return ReportCase(
        name="ab",
        comparison=result.per_scenario,
        baseline=_variant(runs, "base"),
        candidate=_variant(runs, "terse"),
        ab=result,
        runs=runs,
        command="trajguard ab suite.yaml --variant base --variant terse",
    )


def report_cases() -> list[ReportCase]:
    """Every case, in a fixed order."""
    return [history_case(), resilience_case(), ab_case()]
