"""Run every scenario of a suite N times against a real model; keep every run as a row.

Runs are interleaved (run 1 of every scenario and variant, then run 2, …) so that drift in the
model server hits every arm alike, executed by a bounded pool of asyncio workers, each under a
per-run timeout, and written to the run set the moment they finish. Each run has its own seed,
derived from the batch seed and the run id, and the agent sends a seed derived from it with every
model call: batches are independent by default (a random batch seed) and reproducible with
``seed=``. A resumed batch re-derives the same seeds and skips the runs already on disk.
"""

from __future__ import annotations

import asyncio
import secrets
import subprocess
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from trajguard import __version__
from trajguard.capture.types import ChatModel
from trajguard.errors import InfrastructureError, ModelUnavailable, SuiteError
from trajguard.live import store
from trajguard.live.agents import AgentFailure, run_agent, trajectory_of
from trajguard.live.imports import import_object
from trajguard.live.rows import RunSpec, Status, build_row, derive_seed
from trajguard.live.runs import is_crash_row
from trajguard.live.suite import BASE_VARIANT, CommandAgent, ResolvedScenario, Suite

__all__ = ["BatchOptions", "BatchResult", "plan_batch", "run_batch"]


@dataclass(frozen=True)
class BatchOptions:
    """What to run: every option overrides the suite's defaults when set."""

    runs: int | None = None
    model: str | None = None
    api_base: str | None = None
    scenarios: Sequence[str] = ()
    variants: Sequence[str] = (BASE_VARIANT,)
    seed: int | None = None
    concurrency: int | None = None
    timeout_s: float | None = None


@dataclass
class BatchResult:
    """What a finished (or resumed) batch did."""

    runset: Path
    planned: int
    skipped: int
    interrupted: list[str] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    passed: int = 0
    crashed: int = 0
    elapsed_s: float = 0.0


Plan = list[tuple[RunSpec, ResolvedScenario]]


def plan_batch(suite: Suite, options: BatchOptions, *, batch_seed: int) -> Plan:
    """Every run of the batch, interleaved across scenarios and variants."""
    scenario_ids = list(options.scenarios) or [s.id for s in suite.scenarios]
    arms: list[ResolvedScenario] = []
    for scenario_id in scenario_ids:
        for variant in options.variants:
            resolved = suite.resolve(scenario_id, variant)
            updates: dict[str, Any] = {}
            if options.model:
                updates["model"] = options.model
                updates["api_base"] = options.api_base
            if options.runs:
                updates["runs"] = options.runs
            if options.timeout_s:
                updates["timeout_s"] = options.timeout_s
            arms.append(resolved.model_copy(update=updates))
    plan: Plan = []
    for index in range(max((arm.runs for arm in arms), default=0)):
        for arm in arms:
            if index < arm.runs:
                run_id = f"{arm.scenario}/{arm.variant}/{index}"
                spec = RunSpec(
                    run_id=run_id,
                    scenario=arm.scenario,
                    variant=arm.variant,
                    run_index=index,
                    seed=derive_seed(batch_seed, run_id),
                    config_hash=arm.config_hash(),
                )
                plan.append((spec, arm))
    return plan


def _git_sha(directory: Path) -> str | None:
    try:
        result = subprocess.run(
            ["git", "rev-parse", "HEAD"],  # noqa: S607 - git from PATH, as the user runs it
            cwd=directory,
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return result.stdout.strip() or None if result.returncode == 0 else None


def _manifest(suite: Suite, options: BatchOptions, plan: Plan, batch_seed: int) -> dict[str, Any]:
    suite_dir = suite.path.parent if suite.path else Path.cwd()
    return {
        "kind": "trajguard-runset",
        "batch_id": uuid.uuid4().hex[:12],
        "suite": suite.name,
        "suite_file": str(suite.path) if suite.path else None,
        "models": sorted({arm.model for _, arm in plan}),
        "scenarios": sorted({spec.scenario for spec, _ in plan}),
        "variants": list(options.variants),
        "model_override": options.model,
        "api_base_override": options.api_base if options.model else None,  # only --model's
        "timeout_override": options.timeout_s,
        "concurrency_override": options.concurrency,
        "runs": options.runs,
        "planned_runs": len(plan),
        "batch_seed": batch_seed,
        "seed_fixed": options.seed is not None,
        "git_sha": _git_sha(suite_dir),
        "config_hashes": {f"{s.scenario}/{s.variant}": s.config_hash for s, _ in plan},
        "tolerances": {arm.scenario: dict(arm.tolerances) for _, arm in plan},
        "trajguard_version": __version__,
        "started_at": datetime.now(UTC).isoformat(),
        "finished_at": None,
        "status": "running",
    }


def _check_resumable(manifest: dict[str, Any], suite: Suite, plan: Plan, runset: Path) -> None:
    if manifest.get("suite") != suite.name:
        raise SuiteError(
            f"run set {runset} belongs to suite {manifest.get('suite')!r}, not {suite.name!r}",
            hint="resume with the suite file that started the batch",
        )
    recorded = manifest.get("config_hashes", {})
    for spec, _ in plan:
        key = f"{spec.scenario}/{spec.variant}"
        if key in recorded and recorded[key] != spec.config_hash:
            raise SuiteError(
                f"scenario {key} changed since this batch started (config hash "
                f"{recorded[key]} → {spec.config_hash})",
                file=runset,
                hint="a resumed batch must run the same definitions: start a new batch instead",
            )


ProgressHook = Callable[[dict[str, Any]], None]


async def run_batch(
    suite: Suite,
    runset: Path,
    options: BatchOptions,
    *,
    resume: bool = False,
    make_model: Callable[[ResolvedScenario], ChatModel] | None = None,
    on_run: ProgressHook | None = None,
    on_start: Callable[[int, int, int], None] | None = None,
) -> BatchResult:
    """Run a batch into ``runset`` (a new directory, or an interrupted run set with ``resume``).

    Raises:
        ModelUnavailable: a model could not be reached before the first run (exit code 3).
        SuiteError / StoreError: the run set cannot be used.
    """
    runset = Path(runset)
    started = time.monotonic()
    if resume:
        manifest = store.read_manifest(runset)
        batch_seed = int(manifest["batch_seed"])
        options = _options_from_manifest(manifest, options)
    else:
        store.check_new_runset(runset)
        batch_seed = options.seed if options.seed is not None else secrets.randbits(31)
    plan = plan_batch(suite, options, batch_seed=batch_seed)
    if resume:
        _check_resumable(manifest, suite, plan, runset)
    else:
        manifest = _manifest(suite, options, plan, batch_seed)
    done = store.completed_run_ids(runset)
    todo = [(spec, arm) for spec, arm in plan if spec.run_id not in done]
    interrupted = sorted(set(store.read_journal(runset)) - done)
    result = BatchResult(
        runset=runset, planned=len(plan), skipped=len(plan) - len(todo), interrupted=interrupted
    )
    if interrupted:
        manifest.setdefault("interrupted_runs", [])
        manifest["interrupted_runs"] = sorted({*manifest["interrupted_runs"], *interrupted})
    if on_start is not None:
        on_start(len(plan), result.skipped, len(interrupted))
    models = _models(todo, make_model)
    await _preflight(models, todo)  # before anything is written: a failed start leaves nothing
    if not resume:
        store.write_manifest(runset, manifest)
    queue: asyncio.Queue[tuple[RunSpec, ResolvedScenario]] = asyncio.Queue()
    for item in todo:
        queue.put_nowait(item)
    concurrency = options.concurrency or suite.defaults.concurrency

    async def worker() -> None:
        while not queue.empty():
            spec, arm = queue.get_nowait()
            store.journal_start(runset, spec.run_id, datetime.now(UTC).isoformat())
            row = await _one_run(spec, arm, models[arm.model], manifest)
            store.write_run(runset, row)
            _count(result, row)
            if on_run is not None:
                on_run(row)

    await asyncio.gather(*(worker() for _ in range(min(concurrency, max(len(todo), 1)))))
    store.compact(runset)
    manifest.update(
        finished_at=datetime.now(UTC).isoformat(),
        status="finished",
        completed_runs=len(store.completed_run_ids(runset)),
    )
    store.write_manifest(runset, manifest)
    result.elapsed_s = time.monotonic() - started
    return result


_RECORDED = (
    ("model", "model_override", "--model"),
    ("api_base", "api_base_override", "--api-base"),
    ("timeout_s", "timeout_override", "--timeout"),
)


def _options_from_manifest(manifest: dict[str, Any], options: BatchOptions) -> BatchOptions:
    """The batch as it was started, options included (so ``--resume DIR`` alone completes it);
    ``runs``, ``scenarios`` and ``concurrency`` given now extend, narrow or change it (sequential
    looks resume the same run set with more runs for fewer scenarios).

    Raises:
        SuiteError: an option that defines the runs (model, endpoint, timeout) is given with
            another value than the batch was started with.
    """
    for field_name, key, flag in _RECORDED:
        given, recorded = getattr(options, field_name), manifest.get(key)
        if given is not None and recorded is not None and given != recorded:
            raise SuiteError(
                f"{flag} {given} differs from the {recorded} this batch was started with",
                hint="resume without it: the run set remembers the options it was started with",
            )
    if options.runs is not None:
        manifest["runs"] = max(options.runs, manifest.get("runs") or 0)
    if options.concurrency is not None:
        manifest["concurrency_override"] = options.concurrency
    return BatchOptions(
        runs=options.runs or manifest.get("runs"),
        model=options.model or manifest.get("model_override"),
        api_base=options.api_base or manifest.get("api_base_override"),
        scenarios=options.scenarios or manifest.get("scenarios", ()),
        variants=manifest.get("variants", (BASE_VARIANT,)),
        seed=manifest.get("batch_seed"),
        concurrency=options.concurrency or manifest.get("concurrency_override"),
        timeout_s=options.timeout_s or manifest.get("timeout_override"),
    )


def _models(
    plan: Plan, make_model: Callable[[ResolvedScenario], ChatModel] | None
) -> dict[str, ChatModel]:
    from trajguard.capture.llm import LiteLLMModel, model_problem

    models: dict[str, ChatModel] = {}
    for _, arm in plan:
        if arm.model in models:
            continue
        problem = model_problem(arm.model, arm.api_base) if make_model is None else None
        if problem is not None:  # the suite and the CLI check this first; the API may not
            raise SuiteError(f"scenario {arm.scenario!r}, variant {arm.variant!r}: {problem}")
        models[arm.model] = (
            make_model(arm) if make_model else LiteLLMModel(arm.model, api_base=arm.api_base)
        )
    return models


def _uses_model(arm: ResolvedScenario) -> bool:
    """Whether the arm's agent calls its model: every kind does, except a command agent
    declared ``uses_model: false`` (it brings its own)."""
    return not isinstance(arm.agent, CommandAgent) or arm.agent.uses_model


async def _preflight(models: dict[str, ChatModel], plan: Plan) -> None:
    """Ping each model an agent of the plan will call, so an unreachable one stops the batch."""
    used = {arm.model for _, arm in plan if _uses_model(arm)}
    for name, model in models.items():
        if name not in used:
            continue
        try:
            await model.complete([{"role": "user", "content": "ping"}], max_tokens=1)
        except ModelUnavailable:
            raise
        except InfrastructureError as exc:
            raise ModelUnavailable(f"model {name} failed its first call: {exc}") from None


async def _one_run(
    spec: RunSpec, arm: ResolvedScenario, model: ChatModel, manifest: dict[str, Any]
) -> dict[str, Any]:
    started_at = datetime.now(UTC)
    clock = time.monotonic()
    status: Status = "ok"
    trajectory = None
    error: BaseException | None = None
    error_message: str | None = None
    api_base = _endpoint(arm, model)
    try:
        trajectory = await asyncio.wait_for(
            run_agent(arm, model=model, seed=spec.seed, api_base=api_base), timeout=arm.timeout_s
        )
        extra = trajectory.extra or {}
        if extra.get("crashed") or extra.get("agent_error"):
            status = "agent_error"
    except TimeoutError as exc:
        status, error, trajectory = "timeout", exc, trajectory_of(exc)
        error_message = f"run exceeded its {arm.timeout_s:g} s timeout"
    except AgentFailure as exc:
        status, error, trajectory = "agent_error", exc, exc.trajectory
    except Exception as exc:  # trajguard or the infrastructure failed: not the agent's doing
        status, error, trajectory = "harness_error", exc, trajectory_of(exc)
    return build_row(
        spec=spec,
        batch=manifest,
        model=arm.model,
        status=status,
        started_at=started_at,
        duration_s=time.monotonic() - clock,
        trajectory=trajectory,
        criteria=arm.pass_criteria,
        resolve=import_object,
        error=error,
        error_message=error_message,
    )


def _endpoint(arm: ResolvedScenario, model: ChatModel) -> str | None:
    """The OpenAI-compatible endpoint a command agent should call for this arm's model."""
    from trajguard.local_model import is_local_model, running_local_server

    if is_local_model(arm.model):
        server = running_local_server()
        return server.base_url if server is not None else None
    return arm.api_base or getattr(model, "api_base", None)


def _count(result: BatchResult, row: dict[str, Any]) -> None:
    result.counts[row["status"]] = result.counts.get(row["status"], 0) + 1
    result.passed += bool(row.get("passed"))
    result.crashed += is_crash_row(row["status"], row.get("crashed"))
