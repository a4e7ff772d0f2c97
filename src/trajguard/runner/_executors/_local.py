"""The local executor: every run in this process, as ``trajguard run`` always ran them."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from trajguard.capture import ChatModel
from trajguard.capture.wire import WireServer
from trajguard.local_model import local_slots, model_slot
from trajguard.runner._judging import Judges
from trajguard.runner._models import make_models, preflight
from trajguard.runner._one import one_run
from trajguard.runner._plan import Plan, RunSpec
from trajguard.runner._startup import NO_STEPS, StartupSteps
from trajguard.runner._wire import batch_wire, keep_server_log
from trajguard.suite import ResolvedScenario

__all__ = ["LocalExecutor", "open_local"]


class LocalExecutor:
    """Runs in this process's event loop, each through its agent on one shared model client;
    callable and command agents reach their model through the batch's wire endpoint.

    Each run keeps to one embedded-model server (the least busy when it starts) for all its
    calls, so every call finds the previous one's prefix in that server's cache."""

    record: Mapping[str, Any] = {"kind": "local", "settings": {"kind": "local"}}
    slots: int | None = None

    def __init__(
        self,
        models: Mapping[str, ChatModel],
        batch: Mapping[str, Any],
        *,
        wire: WireServer | None,
        model_slots: int,
    ) -> None:
        self._models = models
        self._batch = batch
        self._wire = wire
        self._runs_on = [0] * model_slots
        self.judges = Judges()
        """The batch's judge models and judgement cache."""
        self.judging = self.judges.progress
        """The judgements in flight."""

    async def run(self, spec: RunSpec, arm: ResolvedScenario) -> dict[str, Any]:
        slot = self._runs_on.index(min(self._runs_on))  # the least busy server
        self._runs_on[slot] += 1
        try:
            with model_slot(slot):
                model = self._models[arm.model]
                return await one_run(
                    spec, arm, model, self._batch, wire=self._wire, judges=self.judges
                )
        finally:
            self._runs_on[slot] -= 1

    def keep_server_log(
        self, runset: Path, plan: Plan, rows: Sequence[Mapping[str, Any]]
    ) -> Path | None:
        return keep_server_log(runset, plan, rows, self._wire, slots=len(self._runs_on))


@contextlib.asynccontextmanager
async def open_local(
    plan: Plan,
    make_model: Callable[[ResolvedScenario], ChatModel] | None,
    batch: Mapping[str, Any],
    *,
    concurrency: int = 1,
    steps: StartupSteps = NO_STEPS,
) -> AsyncIterator[LocalExecutor]:
    """One client per model of the plan, each called once (``ModelUnavailable`` if one does
    not answer); the embedded model's servers for ``concurrency`` runs at once started (no more
    than the plan has runs); the wire endpoint served while the batch runs, when an agent of the
    plan uses it. The start-up steps are reported to ``steps``."""
    slots = local_slots(max(1, min(concurrency, len(plan))))
    with batch_wire(plan, make_models(plan, make_model)) as (wire, models):
        await preflight(models, plan, slots=slots, steps=steps)
        yield LocalExecutor(models, batch, wire=wire, model_slots=slots)
