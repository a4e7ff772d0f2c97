"""Where a batch's runs execute: in this process (local, the default), or as Ray tasks.

The batch runner keeps the plan, the seeds, the journal and the run set; an executor turns one
planned run into its row. :func:`open_executor` opens the executor :func:`choose_executor`
picks, after checking everything its runs need, before the batch writes anything. Runs lost
with their worker are ``harness_error`` rows with ``error_type`` :data:`LOST`, which a resumed
batch redoes (:func:`lost_run_ids`).
"""

from trajguard.runner._executors._base import LOST, RunExecutor, lost_run_ids
from trajguard.runner._executors._open import choose_executor, open_executor

__all__ = ["LOST", "RunExecutor", "choose_executor", "lost_run_ids", "open_executor"]
