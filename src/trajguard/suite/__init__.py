"""Suite files: what to run (scenarios, agents, inputs, pass criteria, tolerances, variants).

:func:`load_suite` reads a YAML suite into validated models and checks everything it can before
any model call, naming the file, line and field of a problem. ``Suite.resolve`` gives the
effective settings of a scenario under a variant; :func:`evaluate_criteria` judges one run.
"""

from trajguard.suite._advice import judge_advice
from trajguard.suite._conversation import ScriptedTurn, SimulatedUserSettings, placed_criteria
from trajguard.suite._criteria import (
    CRITERION_TYPES,
    KINDS,
    Criterion,
    CriterionResult,
    parse_criterion,
)
from trajguard.suite._criteria import evaluate as evaluate_criteria
from trajguard.suite._floors import Floor, scenario_floors
from trajguard.suite._judge import (
    DEFAULT_SAMPLES,
    EARLIER_DEFAULT_SAMPLES,
    EMBEDDED_JUDGE_MEASURED,
    JudgeCriterion,
    JudgeFunction,
)
from trajguard.suite._load import load_suite
from trajguard.suite._models import (
    BASE_VARIANT,
    MAX_TIMEOUT_S,
    MODEL_PLACEHOLDERS,
    BuiltinAgent,
    CallableAgent,
    CommandAgent,
    Defaults,
    ExecutorSettings,
    LocalExecutorSettings,
    RayExecutorSettings,
    ResolvedScenario,
    Scenario,
    Suite,
    TimeoutSeconds,
    Variant,
)
from trajguard.suite._pairwise import PairwiseJudge
from trajguard.suite._path_criteria import STATE_ERROR_KEY, STATE_KEY
from trajguard.suite._references import check_executable, import_object, import_tool
from trajguard.suite._runs import runs_per_scenario, set_runs

__all__ = [
    "BASE_VARIANT",
    "CRITERION_TYPES",
    "DEFAULT_SAMPLES",
    "EARLIER_DEFAULT_SAMPLES",
    "EMBEDDED_JUDGE_MEASURED",
    "KINDS",
    "MAX_TIMEOUT_S",
    "MODEL_PLACEHOLDERS",
    "STATE_ERROR_KEY",
    "STATE_KEY",
    "BuiltinAgent",
    "CallableAgent",
    "CommandAgent",
    "Criterion",
    "CriterionResult",
    "Defaults",
    "ExecutorSettings",
    "Floor",
    "JudgeCriterion",
    "JudgeFunction",
    "LocalExecutorSettings",
    "PairwiseJudge",
    "RayExecutorSettings",
    "ResolvedScenario",
    "Scenario",
    "ScriptedTurn",
    "SimulatedUserSettings",
    "Suite",
    "TimeoutSeconds",
    "Variant",
    "check_executable",
    "evaluate_criteria",
    "import_object",
    "import_tool",
    "judge_advice",
    "load_suite",
    "parse_criterion",
    "placed_criteria",
    "runs_per_scenario",
    "scenario_floors",
    "set_runs",
]
