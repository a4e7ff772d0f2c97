"""Baseline against candidate (or variant A against B) as distributions: pure, no I/O.

Run tables in (pandas, one row per run), results out: :func:`compare_runsets` for a nightly or a
``compare``, :func:`compare_ab` for two variants, :func:`plan_runset` / :func:`plan_assumed` for
what N can detect. How many runs are made, look by look, is a design (:class:`FixedDesign`,
:class:`SequentialDesign`, :class:`EscalationDesign`, :class:`BudgetedDesign`, run by
:func:`drive`); every verdict comes from one ladder (:func:`verdict_of`). Every metric is
described once, in :data:`METRICS` (with :data:`TOLERANCES`); the method is in
``docs/explanation/statistics.md``.
"""

from typing import TYPE_CHECKING

from trajguard._lazy import lazy_face

if TYPE_CHECKING:
    from trajguard.comparison._ab import ABResult, compare_ab
    from trajguard.comparison._ab_overall import Overall
    from trajguard.comparison._answer import Answer
    from trajguard.comparison._arms import split_runs
    from trajguard.comparison._budget import BudgetedDesign, BudgetOutcome, BudgetRecord
    from trajguard.comparison._compare import compare_runsets
    from trajguard.comparison._config import (
        CompareConfig,
        InvalidSettings,
        SettingProblem,
        tolerance_problems,
    )
    from trajguard.comparison._design_record import DesignRecord
    from trajguard.comparison._designs import (
        Design,
        FixedDesign,
        FixedRecord,
        Look,
        Sides,
        drive,
    )
    from trajguard.comparison._escalation import (
        EscalationDesign,
        EscalationLook,
        EscalationPlan,
        EscalationRecord,
        EscalationStop,
    )
    from trajguard.comparison._evaluation import Evaluation, Resampling, Summary
    from trajguard.comparison._floors import (
        BAR_NAMES,
        FloorBars,
        FloorCheck,
        FloorResult,
        FloorState,
        check_floors,
    )
    from trajguard.comparison._history import Drift
    from trajguard.comparison._judge_probes import judge_probes
    from trajguard.comparison._judge_results import (
        UNSTABLE_JUDGE_DISAGREEMENT,
        JudgeConsistency,
        JudgeOnce,
        JudgeProbe,
        LengthRuleJudge,
        UniformJudge,
    )
    from trajguard.comparison._judges import judge_consistency, judged_once
    from trajguard.comparison._pairwise import (
        AskedOrder,
        PairJudgement,
        PairwiseResult,
        Preferences,
        pair_score,
        pairwise_test,
    )
    from trajguard.comparison._paths import NO_TOOL, run_path
    from trajguard.comparison._plan import PlanRow, ScenarioPlan, plan_assumed, plan_runset
    from trajguard.comparison._pooling import PooledBaseline, pool_history
    from trajguard.comparison._registry import (
        DEFAULT_GATING,
        METRIC_NAMES,
        METRICS,
        TOLERANCES,
        Metric,
        Tolerance,
        metric,
        tolerance,
    )
    from trajguard.comparison._results import (
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
    from trajguard.comparison._sequential import (
        Decision,
        LookRecord,
        SequentialDesign,
        SequentialOutcome,
        SequentialRecord,
        Stop,
    )
    from trajguard.comparison._verdicts import (
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
    "BudgetRecord",
    "BudgetedDesign",
    "CompareConfig",
    "Comparison",
    "Decision",
    "Design",
    "DesignRecord",
    "Drift",
    "EscalationDesign",
    "EscalationLook",
    "EscalationPlan",
    "EscalationRecord",
    "EscalationStop",
    "Evaluation",
    "Evidence",
    "Family",
    "FixedDesign",
    "FixedRecord",
    "FloorBars",
    "FloorCheck",
    "FloorResult",
    "FloorState",
    "InvalidSettings",
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
    "SequentialRecord",
    "SettingProblem",
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

__getattr__ = lazy_face(__name__)
