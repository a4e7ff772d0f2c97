"""Baseline against candidate (or variant A against B) as distributions: pure, no I/O.

Run tables in (pandas, one row per run), results out: :func:`compare_runsets` for a nightly or a
``compare``, :func:`compare_ab` for two variants, :func:`plan_runset` / :func:`plan_assumed` for
what N can detect. How many runs are made, look by look, is a design (:class:`FixedDesign`,
:class:`SequentialDesign`, :class:`EscalationDesign`, :class:`BudgetedDesign`, run by
:func:`drive`); every verdict comes from one ladder (:func:`verdict_of`). Every metric is
described once, in :data:`METRICS` (with :data:`TOLERANCES`); the method is in
``docs/explanation/statistics.md``.
"""

from trajguard.compare._ab import ABResult, Answer, Overall, compare_ab
from trajguard.compare._arms import split_runs
from trajguard.compare._budget_design import BudgetedDesign, BudgetOutcome
from trajguard.compare._compare import compare_runsets
from trajguard.compare._config import CompareConfig, tolerance_problems
from trajguard.compare._designs import Design, FixedDesign, Look, Sides, drive
from trajguard.compare._escalation import EscalationLook, EscalationPlan, EscalationStop
from trajguard.compare._escalation_design import EscalationDesign
from trajguard.compare._evaluation import Evaluation, Resampling, Summary
from trajguard.compare._floors import (
    BAR_NAMES,
    FloorBars,
    FloorCheck,
    FloorResult,
    FloorState,
    check_floors,
)
from trajguard.compare._history import Drift, PooledBaseline, pool_history
from trajguard.compare._judge_probes import judge_probes
from trajguard.compare._judge_results import (
    UNSTABLE_JUDGE_DISAGREEMENT,
    JudgeConsistency,
    JudgeOnce,
    JudgeProbe,
    LengthRuleJudge,
    UniformJudge,
)
from trajguard.compare._judges import judge_consistency, judged_once
from trajguard.compare._pairwise import (
    AskedOrder,
    PairJudgement,
    PairwiseResult,
    Preferences,
    pair_score,
    pairwise_test,
)
from trajguard.compare._paths import NO_TOOL, run_path
from trajguard.compare._plan import PlanRow, ScenarioPlan, plan_assumed, plan_runset
from trajguard.compare._registry import (
    DEFAULT_GATING,
    METRIC_NAMES,
    METRICS,
    TOLERANCES,
    Metric,
    Tolerance,
    metric,
    tolerance,
)
from trajguard.compare._results import (
    BlindSpot,
    Comparison,
    Family,
    MetricResult,
    PassK,
    ScenarioGate,
    ScenarioResult,
    SuiteTest,
    TagGroup,
)
from trajguard.compare._sequential import Decision, LookRecord, SequentialOutcome, Stop
from trajguard.compare._sequential_design import SequentialDesign
from trajguard.compare._verdicts import (
    EXIT_BLIND,
    EXIT_BUDGET,
    EXIT_OK,
    EXIT_REGRESSED,
    Evidence,
    Verdict,
    combine_verdicts,
    exit_code,
    verdict_of,
)

__all__ = [
    "BAR_NAMES",
    "DEFAULT_GATING",
    "EXIT_BLIND",
    "EXIT_BUDGET",
    "EXIT_OK",
    "EXIT_REGRESSED",
    "METRICS",
    "METRIC_NAMES",
    "NO_TOOL",
    "TOLERANCES",
    "UNSTABLE_JUDGE_DISAGREEMENT",
    "ABResult",
    "Answer",
    "AskedOrder",
    "BlindSpot",
    "BudgetOutcome",
    "BudgetedDesign",
    "CompareConfig",
    "Comparison",
    "Decision",
    "Design",
    "Drift",
    "EscalationDesign",
    "EscalationLook",
    "EscalationPlan",
    "EscalationStop",
    "Evaluation",
    "Evidence",
    "Family",
    "FixedDesign",
    "FloorBars",
    "FloorCheck",
    "FloorResult",
    "FloorState",
    "JudgeConsistency",
    "JudgeOnce",
    "JudgeProbe",
    "LengthRuleJudge",
    "Look",
    "LookRecord",
    "Metric",
    "MetricResult",
    "Overall",
    "PairJudgement",
    "PairwiseResult",
    "PassK",
    "PlanRow",
    "PooledBaseline",
    "Preferences",
    "Resampling",
    "ScenarioGate",
    "ScenarioPlan",
    "ScenarioResult",
    "SequentialDesign",
    "SequentialOutcome",
    "Sides",
    "Stop",
    "SuiteTest",
    "Summary",
    "TagGroup",
    "Tolerance",
    "UniformJudge",
    "Verdict",
    "check_floors",
    "combine_verdicts",
    "compare_ab",
    "compare_runsets",
    "drive",
    "exit_code",
    "judge_consistency",
    "judge_probes",
    "judged_once",
    "metric",
    "pair_score",
    "pairwise_test",
    "plan_assumed",
    "plan_runset",
    "pool_history",
    "run_path",
    "split_runs",
    "tolerance",
    "tolerance_problems",
    "verdict_of",
]
