"""A batch's plan in words (``trajguard run --dry-run``): nothing is called or written."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from trajguard import store
from trajguard._text import counted
from trajguard.runner._executors import choose_executor
from trajguard.runner._options import BatchOptions
from trajguard.runner._plan import plan_batch
from trajguard.suite import Suite

__all__ = ["describe_batch"]


def describe_batch(suite: Suite, options: BatchOptions, out: Path | None = None) -> str:
    """Scenarios by variants by runs, models, timeouts and config hashes of a batch; checks that
    ``out`` could hold a new run set (``StoreError`` otherwise)."""
    plan = plan_batch(suite, options, batch_seed=options.seed or 0)
    runs = Counter((spec.scenario, spec.variant) for spec, _ in plan)
    arms = {(spec.scenario, spec.variant): arm for spec, arm in plan}
    scenarios = {scenario for scenario, _ in arms}
    on_ray = choose_executor(options.executor, suite, None).kind == "ray"
    at_once = options.concurrency or (None if on_ray else suite.defaults.concurrency)
    lines = [
        f"suite {suite.name} ({suite.path}): {counted(len(scenarios), 'scenario')} x "
        f"{counted(len(options.variants), 'variant')} → {counted(len(plan), 'run')}, "
        + (f"{at_once} at a time" if at_once else "as many at a time as the cluster holds"),
        f"models: {', '.join(sorted({arm.model for arm in arms.values()}))}",
        f"executor: {_executor(suite, options)}",
    ]
    for (scenario, variant), arm in arms.items():
        lines.append(
            f"  {scenario} / {variant}: {counted(runs[scenario, variant], 'run')}, "
            f"{arm.agent.kind} agent, "
            f"model {arm.model}, "
            f"timeout {arm.timeout_s:g} s, config {arm.config_hash()}"
        )
    if out is not None:
        store.check_new_runset(out)
        lines.append(f"run set: {out}")
    lines.append("dry run: no model was called and nothing was written")
    return "\n".join(lines)


def _executor(suite: Suite, options: BatchOptions) -> str:
    settings = choose_executor(options.executor, suite, None)
    if settings.kind == "local":
        return "local (this process)"
    per_run = {"CPU": settings.num_cpus, **settings.resources}
    return (
        f"ray at {settings.address or '$RAY_ADDRESS or this machine'}; each run holds "
        f"{', '.join(f'{amount:g} {name}' for name, amount in per_run.items())}; "
        f"embedded model on the {settings.embedded_model}; up to {settings.max_retries} retries"
    )
