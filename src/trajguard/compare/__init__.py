"""Baseline against candidate (or variant A against B) as distributions: pure, no I/O.

Run tables in (pandas, one row per run), results out: :func:`compare_runsets` for a nightly or a
``compare``, :func:`compare_ab` for two variants, :func:`plan_runset` / :func:`plan_assumed` for
what N can detect, and the sequential gate (:func:`decide_look`, :func:`apply_gate`). Every
metric is described once, in :data:`METRICS` (with :data:`TOLERANCES`); the method is in
``docs/statistics.md``.
"""

from trajguard.compare._ab import ABResult, Answer, Overall, compare_ab
from trajguard.compare._arms import Arm, split_runs
from trajguard.compare._compare import compare_arms, compare_runsets, evaluate_metric
from trajguard.compare._config import CompareConfig, tolerance_problems
from trajguard.compare._escalate import (
    EscalationDesign,
    EscalationLook,
    EscalationStop,
    apply_escalation,
    escalation_design,
    later_look,
    leaning,
)
from trajguard.compare._evaluation import Evaluation, Resampling, Summary
from trajguard.compare._gate import (
    Decision,
    LookRecord,
    SequentialOutcome,
    Stop,
    apply_gate,
    decide_ab_look,
    decide_look,
    gate_metrics,
    gating_alpha,
    schedule,
)
from trajguard.compare._history import Drift, PooledBaseline, baseline_drift, pool_history
from trajguard.compare._numeric import evaluate_rate, evaluate_ratio, evaluate_shift
from trajguard.compare._plan import PlanRow, ScenarioPlan, plan_alphas, plan_assumed, plan_runset
from trajguard.compare._registry import (
    DEFAULT_GATING,
    DIRECTIONAL,
    METRIC_NAMES,
    METRICS,
    TOLERANCES,
    Metric,
    Tolerance,
    canonical_tolerances,
    metric,
    tolerance,
)
from trajguard.compare._results import (
    Comparison,
    Family,
    MetricResult,
    PassK,
    ScenarioGate,
    ScenarioResult,
    SuiteTest,
    Verdict,
    overall_verdict,
)
from trajguard.compare._tools import evaluate_sequences, evaluate_tools, novelty

__all__ = [
    "DEFAULT_GATING",
    "DIRECTIONAL",
    "METRICS",
    "METRIC_NAMES",
    "TOLERANCES",
    "ABResult",
    "Answer",
    "Arm",
    "CompareConfig",
    "Comparison",
    "Decision",
    "Drift",
    "EscalationDesign",
    "EscalationLook",
    "EscalationStop",
    "Evaluation",
    "Family",
    "LookRecord",
    "Metric",
    "MetricResult",
    "Overall",
    "PassK",
    "PlanRow",
    "PooledBaseline",
    "Resampling",
    "ScenarioGate",
    "ScenarioPlan",
    "ScenarioResult",
    "SequentialOutcome",
    "Stop",
    "SuiteTest",
    "Summary",
    "Tolerance",
    "Verdict",
    "apply_escalation",
    "apply_gate",
    "baseline_drift",
    "canonical_tolerances",
    "compare_ab",
    "compare_arms",
    "compare_runsets",
    "decide_ab_look",
    "decide_look",
    "escalation_design",
    "evaluate_metric",
    "evaluate_rate",
    "evaluate_ratio",
    "evaluate_sequences",
    "evaluate_shift",
    "evaluate_tools",
    "gate_metrics",
    "gating_alpha",
    "later_look",
    "leaning",
    "metric",
    "novelty",
    "overall_verdict",
    "plan_alphas",
    "plan_assumed",
    "plan_runset",
    "pool_history",
    "schedule",
    "split_runs",
    "tolerance",
    "tolerance_problems",
]
