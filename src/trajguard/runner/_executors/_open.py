"""Which executor a batch uses, and opening it."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable, Mapping
from typing import Any

from pydantic import TypeAdapter, ValidationError

from trajguard.capture import ChatModel
from trajguard.errors import StoreError, UsageError
from trajguard.runner._executors._base import RunExecutor
from trajguard.runner._executors._local import open_local
from trajguard.runner._options import ExecutorChoice
from trajguard.runner._plan import Plan
from trajguard.runner._startup import NO_STEPS, StartupSteps
from trajguard.suite import ExecutorSettings, LocalExecutorSettings, ResolvedScenario, Suite

__all__ = ["choose_executor", "open_executor"]

_SETTINGS: TypeAdapter[ExecutorSettings] = TypeAdapter(ExecutorSettings)


def choose_executor(
    choice: ExecutorChoice, suite: Suite, manifest: Mapping[str, Any] | None
) -> ExecutorSettings:
    """The executor of a batch: the one it was started with when resumed (the manifest's
    first), else the suite's ``defaults.executor``; each given option overrides it."""
    started = (manifest or {}).get("executors") or []
    if not started:
        return choice.resolve(suite.defaults.executor)
    try:
        first = started[0]
        recorded = _SETTINGS.validate_python(first.get("settings", {"kind": first["kind"]}))
    except (ValidationError, KeyError, TypeError) as exc:
        raise StoreError(f"the manifest's executor cannot be read: {exc}") from None
    return choice.resolve(recorded)


@contextlib.asynccontextmanager
async def open_executor(
    settings: ExecutorSettings,
    plan: Plan,
    *,
    make_model: Callable[[ResolvedScenario], ChatModel] | None,
    batch: Mapping[str, Any],
    concurrency: int = 1,
    steps: StartupSteps = NO_STEPS,
) -> AsyncIterator[RunExecutor]:
    """The executor of ``plan``, opened: every model it calls answers and, on Ray, the cluster
    can run every run (``concurrency``: the runs the local executor will hold at once, which
    sets how many embedded-model servers it starts). Nothing is written by it, so a failed
    start leaves nothing. Its start-up steps are reported to ``steps``.

    Raises:
        ModelUnavailable, MissingExtra, InfrastructureError (exit 3); SuiteError (exit 2).
    """
    if isinstance(settings, LocalExecutorSettings) or not plan:
        async with open_local(
            plan, make_model, batch, concurrency=concurrency, steps=steps
        ) as local:
            yield local
        return
    if make_model is not None:
        raise UsageError(
            "make_model builds models in this process: it works with the local executor only"
        )
    from trajguard.runner._executors._ray import open_ray  # the batch's side: no Ray import

    async with open_ray(settings, plan, batch, steps=steps) as executor:
        yield executor
