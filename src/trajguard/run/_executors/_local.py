"""The local executor: every run in this process, as ``trajguard run`` always ran them."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from trajguard.capture.types import ChatModel
from trajguard.local_model import local_slots, model_slot
from trajguard.run._models import make_models, preflight
from trajguard.run._one import one_run
from trajguard.run._plan import Plan, RunSpec
from trajguard.suite import ResolvedScenario

__all__ = ["LocalExecutor", "open_local"]


class LocalExecutor:
    """Runs in this process's event loop, each through its agent on one shared model client.

    Each run keeps to one embedded-model server (the least busy when it starts) for all its
    calls, so every call finds the previous one's prefix in that server's cache."""

    record: Mapping[str, Any] = {"kind": "local", "settings": {"kind": "local"}}
    slots: int | None = None

    def __init__(
        self, models: Mapping[str, ChatModel], batch: Mapping[str, Any], *, model_slots: int
    ) -> None:
        self._models = models
        self._batch = batch
        self._runs_on = [0] * model_slots

    async def run(self, spec: RunSpec, arm: ResolvedScenario) -> dict[str, Any]:
        slot = self._runs_on.index(min(self._runs_on))  # the least busy server
        self._runs_on[slot] += 1
        try:
            with model_slot(slot):
                return await one_run(spec, arm, self._models[arm.model], self._batch)
        finally:
            self._runs_on[slot] -= 1


async def open_local(
    plan: Plan,
    make_model: Callable[[ResolvedScenario], ChatModel] | None,
    batch: Mapping[str, Any],
    *,
    concurrency: int = 1,
) -> LocalExecutor:
    """One client per model of the plan, each called once (``ModelUnavailable`` if one does
    not answer); the embedded model's servers for ``concurrency`` runs at once started."""
    models = make_models(plan, make_model)
    slots = local_slots(concurrency)
    await preflight(models, plan, slots=slots)
    return LocalExecutor(models, batch, model_slots=slots)
