"""Batches: every scenario of a suite N times, one row per run, written as each run finishes.

:func:`execute` (or the async :func:`run_batch`) runs a batch into a run set; :func:`plan_batch`
says which runs, in what order, with which seeds; :func:`describe_batch` prints a plan without
running it. Agents of every kind (builtin, callable, command) are run by :func:`run_agent`; a
callable agent receives a :class:`RunContext`. Callable and command agents reach their model
through the batch's wire endpoint (:mod:`trajguard.capture.wire`), which records their calls.
"""

from trajguard.run._agents import run_agent, trajectory_of
from trajguard.run._batch import BatchObserver, BatchResult, ObserverFactory, execute, run_batch
from trajguard.run._context import WIRE_API_KEY, RunContext
from trajguard.run._describe import describe_batch
from trajguard.run._options import MAX_RUNS, BatchOptions, ExecutorChoice
from trajguard.run._plan import Plan, RunSpec, derive_seed, plan_batch
from trajguard.run._rows import build_row, final_output
from trajguard.run._wire import SERVER_LOG

__all__ = [
    "MAX_RUNS",
    "SERVER_LOG",
    "WIRE_API_KEY",
    "BatchObserver",
    "BatchOptions",
    "BatchResult",
    "ExecutorChoice",
    "ObserverFactory",
    "Plan",
    "RunContext",
    "RunSpec",
    "build_row",
    "derive_seed",
    "describe_batch",
    "execute",
    "final_output",
    "plan_batch",
    "run_agent",
    "run_batch",
    "trajectory_of",
]
