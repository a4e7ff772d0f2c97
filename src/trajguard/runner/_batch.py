"""Run every scenario of a suite N times against a real model; keep every run as a row.

The planned runs (:mod:`._plan`) are executed by a bounded pool of asyncio workers, each run
under its timeout, journalled when it starts and written to the run set the moment it finishes,
so a kill loses no finished run and a resumed batch skips the runs already on disk and redoes the
ones cut off mid-run. Where a run executes — this process, or a Ray task — is its executor's
business (:mod:`._executors`); the plan, seeds, journal and run set stay here. Models (and a
cluster) are checked before anything is written (a failed start leaves nothing).
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from trajguard import store
from trajguard._text import safe_str
from trajguard._tools_seen import TOOL_CRITERIA, unseen_tool_warnings
from trajguard.capture import ChatModel
from trajguard.errors import BatchInterrupted, EmbeddedModelCrashed
from trajguard.outcome import ErrorCount, is_crash_row, passed_row
from trajguard.runner._budget import (
    WAIT,
    BudgetGuard,
    BudgetStop,
    budget_ended,
    budget_guard,
    spent_usd,
)
from trajguard.runner._executors import RunExecutor, choose_executor, lost_run_ids, open_executor
from trajguard.runner._judge_probe import probe_judges, probe_warnings
from trajguard.runner._judging import Judges, uses_judge
from trajguard.runner._loop import run_to_end
from trajguard.runner._options import BatchOptions, options_from_manifest
from trajguard.runner._plan import Plan, RunSpec, plan_batch
from trajguard.runner._provenance import (
    check_resumable,
    new_manifest,
    record_executor,
    resumable_manifest,
)
from trajguard.runner._rows import errors_by_arm
from trajguard.runner._startup import StartupSteps
from trajguard.suite import ResolvedScenario, Suite

__all__ = ["BatchObserver", "BatchResult", "ObserverFactory", "execute", "run_batch"]


class BatchObserver(Protocol):
    """What watches a batch: told the plan once, when the runs begin (after the start-up:
    models checked, servers started), then every finished run's row. An observer that is also a
    :class:`~trajguard.runner.StartupObserver` is told the start-up steps before that."""

    def start(self, total: int, skipped: int, interrupted: int) -> None:
        """The batch plans ``total`` runs, ``skipped`` are on disk, ``interrupted`` redone."""

    def update(self, row: Mapping[str, Any]) -> None:
        """One run finished (its row as stored)."""

    # An observer may also have ``judging(active: int)``: told how many judgements (of
    # ``judge`` criteria) are in flight whenever that changes (local and Ray executors).


ObserverFactory = Callable[[str], AbstractContextManager[BatchObserver]]
"""Makes the observer of one batch (or one look of a sequential batch) from its label."""


@dataclass(frozen=True, kw_only=True)
class BatchResult:
    """What a finished (or resumed) batch did."""

    runset: Path
    planned: int
    skipped: int
    interrupted: tuple[str, ...] = ()
    counts: Mapping[str, int]
    """Runs made by this invocation, by status."""
    passed: int
    crashed: int
    elapsed_s: float
    errors: Mapping[str, tuple[ErrorCount, ...]] = field(default_factory=dict)
    """The most common errors of this invocation's runs, per ``scenario/variant``."""
    server_log: Path | None = None
    """The embedded server's log, kept in the run set because a model call failed."""
    warnings: tuple[str, ...] = ()
    """Criteria of callable and command agents naming a tool no run of the batch called; judges
    that passed the empty or off-topic answer they were asked about before the batch."""
    spent_usd: float | None = None
    """What this invocation's runs cost (``None``: some run's cost is unknown)."""
    budget: BudgetStop | None = None
    """The budget ended the batch before its plan (``--resume`` finishes it)."""


async def run_batch(
    suite: Suite,
    runset: Path,
    options: BatchOptions,
    *,
    resume: bool = False,
    make_model: Callable[[ResolvedScenario], ChatModel] | None = None,
    observer: BatchObserver | None = None,
) -> BatchResult:
    """Run a batch into ``runset`` (a new directory, or an interrupted run set with ``resume``).

    Raises:
        ModelUnavailable: a model could not be reached before the first run (exit code 3).
        SuiteError / StoreError: the run set cannot be used.
    """
    runset = Path(runset)
    started = time.monotonic()
    with contextlib.ExitStack() as held:
        if resume:
            manifest = resumable_manifest(store.read_manifest(runset), runset)
            held.enter_context(store.lock_runset(runset, new=False))  # one writer at a time
            store.claim_runset(runset)
            batch_seed = int(manifest["batch_seed"])
            options = options_from_manifest(manifest, options)
        else:
            store.check_new_runset(runset)
            batch_seed = options.seed if options.seed is not None else secrets.randbits(31)
        plan = plan_batch(suite, options, batch_seed=batch_seed)
        if resume:
            check_resumable(manifest, suite, plan, runset)
        else:
            manifest = new_manifest(suite, options, plan, batch_seed)
        done = store.completed_run_ids(runset) - lost_run_ids(runset)  # lost with a worker: redo
        todo = [(spec, arm) for spec, arm in plan if spec.run_id not in done]
        guard = budget_guard(options, runset, resume, todo)
        interrupted = sorted(set(store.read_journal(runset)) - done)
        if interrupted:
            manifest.setdefault("interrupted_runs", [])
            manifest["interrupted_runs"] = sorted({*manifest["interrupted_runs"], *interrupted})
        settings = choose_executor(options.executor, suite, manifest if resume else None)
        wanted = options.concurrency or suite.defaults.concurrency
        steps = StartupSteps(observer)
        async with open_executor(
            settings, todo, make_model=make_model, batch=manifest, concurrency=wanted, steps=steps
        ) as executor:
            if "judge_probes" not in manifest and any(uses_judge(arm) for _, arm in plan):
                judges = getattr(executor, "judges", None) or Judges()
                manifest["judge_probes"] = await steps.timed(
                    "asking each judge about an empty and an off-topic answer",
                    probe_judges(plan, judges, seed=batch_seed),
                )
            # opened (and the judges probed) before anything is written: a failed start leaves
            # nothing
            if not resume:  # the directory is made and claimed now, checked again under the lock
                held.enter_context(store.lock_runset(runset, new=True))
            if todo:
                record_executor(manifest, executor.record, resumed=resume)
            manifest.pop("stopped", None)
            manifest["status"] = "running"
            store.write_manifest(runset, manifest)
            if observer is not None:  # after the start-up steps: the runs begin now
                observer.start(len(plan), len(plan) - len(todo), len(interrupted))
                _watch_judging(executor, observer)
            concurrency = options.concurrency or executor.slots or suite.defaults.concurrency
            try:
                rows = await _run_all(todo, executor, runset, observer, concurrency, guard)
            except BaseException as exc:  # Ctrl-C, or a failure of trajguard's: resumable
                _stopped(runset, manifest, exc)
                raise
            server_log = executor.keep_server_log(runset, todo, rows)
        store.compact(runset)
        ended = budget_ended(guard, todo, rows)
        if ended is not None:  # status stays "running": --resume finishes the batch
            manifest.update(
                stopped={
                    "at": datetime.now(UTC).isoformat(),
                    "why": ended.why,
                    "by": "budget",
                    "not_run": dict(ended.not_run),
                },
                completed_runs=len(store.completed_run_ids(runset)),
            )
        else:
            manifest.update(
                finished_at=datetime.now(UTC).isoformat(),
                status="finished",
                completed_runs=len(store.completed_run_ids(runset)),
            )
        store.write_manifest(runset, manifest)
    return BatchResult(
        runset=runset,
        planned=len(plan),
        skipped=len(plan) - len(todo),
        interrupted=tuple(interrupted),
        counts=dict(Counter(str(row["status"]) for row in rows)),
        passed=sum(passed_row(r["status"], r.get("crashed"), r.get("passed")) for r in rows),
        crashed=sum(is_crash_row(r["status"], r.get("crashed")) for r in rows),
        elapsed_s=time.monotonic() - started,
        errors=errors_by_arm(rows),
        server_log=server_log,
        warnings=_unseen_tools(plan, runset) + probe_warnings(manifest.get("judge_probes") or []),
        spent_usd=spent_usd(rows),
        budget=ended,
    )


def _unseen_tools(plan: Plan, runset: Path) -> tuple[str, ...]:
    """The criteria of callable and command agents (whose tools trajguard learns only from
    their runs) that name a tool no run of the whole run set called."""
    labels = [c.label for _, arm in plan if arm.agent.kind != "builtin" for c in arm.pass_criteria]
    if not any(label.partition(": ")[0] in TOOL_CRITERIA for label in labels):
        return ()
    counts = store.read_table(runset).column("tool_counts").to_pylist()
    seen = {name for pairs in counts for name, _ in pairs or ()}
    return unseen_tool_warnings(labels, seen)


def _stopped(runset: Path, manifest: dict[str, Any], error: BaseException) -> None:
    """Record in the manifest that the batch stopped before its end, and how many runs it had
    finished (each is on disk already): ``status`` stays ``running``, which ``--resume``
    finishes; ``stopped`` says when and why."""
    why = (
        "interrupted"
        if isinstance(error, asyncio.CancelledError | KeyboardInterrupt)
        else (f"{type(error).__name__}: {safe_str(error)[:200]}")
    )
    manifest.update(
        stopped={"at": datetime.now(UTC).isoformat(), "why": why},
        completed_runs=len(store.completed_run_ids(runset)),
    )
    with contextlib.suppress(Exception):  # the disk may be why it stopped: the runs are saved
        store.write_manifest(runset, manifest)


async def _run_all(
    todo: Plan,
    executor: RunExecutor,
    runset: Path,
    observer: BatchObserver | None,
    concurrency: int,
    guard: BudgetGuard | None = None,
) -> list[Mapping[str, Any]]:
    """Every run of ``todo``, ``concurrency`` at a time, each journalled as it starts and
    written to the run set the moment its row arrives; with a ``guard``, no run starts that
    would pass the budget (the runs in flight finish)."""
    queue: asyncio.Queue[tuple[RunSpec, ResolvedScenario]] = asyncio.Queue()
    for item in todo:
        queue.put_nowait(item)
    rows: list[Mapping[str, Any]] = []
    one_finished = asyncio.Condition()

    async def within_budget(spec: RunSpec) -> bool:
        if guard is None:
            return True
        async with one_finished:
            while (answer := guard.check(spec.scenario)) == WAIT:
                await one_finished.wait()
        if answer is None:
            guard.started_run(spec.run_id, spec.scenario)
        return answer is None

    async def worker() -> None:
        while not queue.empty():
            spec, arm = queue.get_nowait()
            if not await within_budget(spec):
                return
            store.journal_start(runset, spec.run_id, datetime.now(UTC).isoformat())
            row = await executor.run(spec, arm)
            store.write_run(runset, row)
            rows.append(row)
            if guard is not None:
                guard.finished(spec.run_id, row)
                async with one_finished:
                    one_finished.notify_all()
            if observer is not None:
                observer.update(row)

    workers = [asyncio.ensure_future(worker()) for _ in range(min(concurrency, max(len(todo), 1)))]
    try:
        done, _ = await asyncio.wait(workers, return_when=asyncio.FIRST_EXCEPTION)
    finally:  # one failed, or Ctrl-C: stop the others before the batch records where it stopped
        for running in workers:
            running.cancel()
        await asyncio.shield(asyncio.wait(workers))
    for finished in done:
        if not finished.cancelled() and finished.exception() is not None:
            raise finished.exception()  # type: ignore[misc]
    return rows


def _watch_judging(executor: RunExecutor, observer: BatchObserver) -> None:
    """Tell an observer with a ``judging(active)`` method how many judgements are in flight
    (the local executor's judges; on Ray, the sum over the workers the driver relays)."""
    progress = getattr(executor, "judging", None)
    judging = getattr(observer, "judging", None)
    if progress is not None and callable(judging):
        progress.on_change = judging


@contextmanager
def _no_observer(label: str) -> Iterator[None]:
    yield None


def execute(
    suite: Suite,
    runset: Path,
    options: BatchOptions,
    *,
    resume: bool = False,
    observe: ObserverFactory | None = None,
    label: str | None = None,
    resume_command: str | None = None,
) -> BatchResult:
    """:func:`run_batch` from synchronous code, watched by ``observe(label)`` if given.

    Args:
        resume_command: the command that finishes this batch, named by the hint of an
            interruption (default ``trajguard run SUITE --resume RUNSET``; ``nightly`` and
            ``ab`` name their own, which also compare and report).

    Raises:
        BatchInterrupted: Ctrl-C; the finished runs are on disk and the batch can be resumed.
    """
    resume_with = resume_command or f"trajguard run {suite.path} --resume {runset}"
    watcher = observe(label or suite.name) if observe is not None else _no_observer(label or "")
    try:
        with watcher as observer:
            return run_to_end(run_batch(suite, runset, options, resume=resume, observer=observer))
    except KeyboardInterrupt:
        raise BatchInterrupted(
            f"interrupted: finished runs are saved in {runset}",
            hint=f"resume with: {resume_with}",
        ) from None
    except EmbeddedModelCrashed as error:
        if (runset / store.MANIFEST_FILE).exists():  # stopped mid-batch, not before the first run
            error.hint = (
                f"{error.hint}; the finished runs are saved in {runset}: resume with: {resume_with}"
            )
        raise
