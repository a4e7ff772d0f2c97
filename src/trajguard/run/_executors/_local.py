"""The local executor: every run in this process, as ``trajguard run`` always ran them."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from trajguard.capture.types import ChatModel
from trajguard.run._models import make_models, preflight
from trajguard.run._one import one_run
from trajguard.run._plan import Plan, RunSpec
from trajguard.suite import ResolvedScenario

__all__ = ["LocalExecutor", "open_local"]


class LocalExecutor:
    """Runs in this process's event loop, each through its agent on one shared model client."""

    record: Mapping[str, Any] = {"kind": "local"}
    slots: int | None = None

    def __init__(self, models: Mapping[str, ChatModel], batch: Mapping[str, Any]) -> None:
        self._models = models
        self._batch = batch

    async def run(self, spec: RunSpec, arm: ResolvedScenario) -> dict[str, Any]:
        return await one_run(spec, arm, self._models[arm.model], self._batch)


async def open_local(
    plan: Plan,
    make_model: Callable[[ResolvedScenario], ChatModel] | None,
    batch: Mapping[str, Any],
) -> LocalExecutor:
    """One client per model of the plan, each called once (``ModelUnavailable`` if one does
    not answer)."""
    models = make_models(plan, make_model)
    await preflight(models, plan)
    return LocalExecutor(models, batch)
