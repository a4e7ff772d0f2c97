"""Batches: every scenario of a suite N times, one row per run, written as each run finishes.

:func:`execute` (or the async :func:`run_batch`) runs a batch into a run set; :func:`plan_batch`
says which runs, in what order, with which seeds; :func:`describe_batch` prints a plan without
running it; a :class:`Budget` (``--max-cost``, ``--max-minutes``) stops a batch cleanly before
a run that would pass it (:class:`BudgetStop` says what was not run). Agents of every kind
(builtin, callable, command) are run by :func:`run_agent`; a callable agent receives a
:class:`RunContext`. Callable and command agents reach their model through the batch's wire
endpoint (:mod:`trajguard.capture.wire`), which records their calls. A run with ``faults:``
meets the plan :func:`run_faults` derives for it (README, "Chaos"); :func:`fault_columns` are
its row's fault columns. An observer that is a :class:`StartupObserver` is told the batch's
start-up steps (imports, servers, first calls).
"""

from trajguard.runner._agents import run_agent, trajectory_of
from trajguard.runner._batch import BatchObserver, BatchResult, ObserverFactory, execute, run_batch
from trajguard.runner._budget import Budget, BudgetStop, RunEstimate, estimates_from_rows
from trajguard.runner._context import WIRE_API_KEY, RunContext
from trajguard.runner._describe import describe_batch
from trajguard.runner._faults import FAULT_COLUMNS, annotate_tool_faults, fault_columns, run_faults
from trajguard.runner._options import MAX_RUNS, BatchOptions, ExecutorChoice
from trajguard.runner._pairwise import ask_pairs
from trajguard.runner._plan import Plan, RunSpec, derive_seed, plan_batch
from trajguard.runner._rows import build_row, final_output
from trajguard.runner._startup import StartupObserver
from trajguard.runner._wire import SERVER_LOG

__all__ = [
    "FAULT_COLUMNS",
    "MAX_RUNS",
    "SERVER_LOG",
    "WIRE_API_KEY",
    "BatchObserver",
    "BatchOptions",
    "BatchResult",
    "Budget",
    "BudgetStop",
    "ExecutorChoice",
    "ObserverFactory",
    "Plan",
    "RunContext",
    "RunEstimate",
    "RunSpec",
    "StartupObserver",
    "annotate_tool_faults",
    "ask_pairs",
    "build_row",
    "derive_seed",
    "describe_batch",
    "estimates_from_rows",
    "execute",
    "fault_columns",
    "final_output",
    "plan_batch",
    "run_agent",
    "run_batch",
    "run_faults",
    "trajectory_of",
]
