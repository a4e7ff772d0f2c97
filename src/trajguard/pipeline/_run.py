"""``trajguard run``: a batch into a new run set, or an interrupted one finished."""

from __future__ import annotations

from pathlib import Path

from trajguard.errors import UsageError
from trajguard.pipeline._outputs import timestamped
from trajguard.runner import BatchOptions, BatchResult, ObserverFactory, describe_batch, execute
from trajguard.suite import load_suite

__all__ = ["dry_run", "run"]


def run(
    suite_path: Path,
    *,
    options: BatchOptions | None = None,
    out: Path | None = None,
    resume: Path | None = None,
    runs_root: Path = Path("runs"),
    observe: ObserverFactory | None = None,
) -> BatchResult:
    """Run a suite's batch into ``out`` (default ``runs/<suite>-<time>``), or finish the
    interrupted batch in ``resume`` with the options it was started with.

    Raises:
        UsageError: both ``out`` and ``resume`` name a run set, and they differ.
        SuiteError / StoreError: the suite, a scenario or variant, or the run set is invalid.
        ModelUnavailable: a model cannot be reached before the first run (nothing written).
        BatchInterrupted: Ctrl-C (the finished runs are kept; resume the batch).
    """
    if resume is not None and out is not None and Path(out) != Path(resume):
        raise UsageError("--out and --resume name different run sets; give one of them")
    suite = load_suite(suite_path)
    options = options or BatchOptions()
    target = resume or out or timestamped(runs_root, suite.name)
    return execute(suite, target, options, resume=resume is not None, observe=observe)


def dry_run(
    suite_path: Path,
    *,
    options: BatchOptions | None = None,
    out: Path | None = None,
    runs_root: Path = Path("runs"),
) -> str:
    """The plan of a batch in words (scenarios by variants by runs, models, timeouts, config
    hashes), after every check a real run makes first (the run set's path included: ``out``,
    or the default one the run would take); no model is called, nothing written."""
    suite = load_suite(suite_path)
    target = out or timestamped(runs_root, suite.name)
    return describe_batch(suite, options or BatchOptions(), target)
