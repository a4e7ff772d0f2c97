"""The judges of a batch: one model client per judge model, one cache of judgements (each
run's own: a run is never answered with another run's judgement, see :mod:`trajguard.judge`).

A run's row is built off the event loop (its predicates are user code), so a judge criterion
asks the loop for its judgement and waits: :meth:`Judges.function` is the blocking function
:func:`~trajguard.suite.evaluate_criteria` calls. The judgement runs in an empty context, so
nothing that records the agent's model calls (zero-code capture follows the run's context)
ever sees the judge's.
"""

from __future__ import annotations

import asyncio
import contextvars
from typing import TYPE_CHECKING

from trajguard.judge import JudgeCache, Judgement, JudgeSettings, RunKey
from trajguard.suite import JudgeFunction, ResolvedScenario

if TYPE_CHECKING:
    from trajguard.capture.types import ChatModel

__all__ = ["Judges", "uses_judge"]


def uses_judge(arm: ResolvedScenario) -> bool:
    """Whether some pass criterion of the arm is a ``judge``."""
    return any(c.kind == "judge" for c in arm.pass_criteria)


class Judges:
    """The judge models and the judgement cache of a batch (of this process: on Ray each run
    has its own)."""

    def __init__(self) -> None:
        self.cache = JudgeCache()
        self._models: dict[tuple[str, str | None], ChatModel] = {}

    def model(self, settings: JudgeSettings) -> ChatModel:
        """The client of a judge model (one per model string and endpoint)."""
        key = (settings.model, settings.api_base)
        if key not in self._models:
            from trajguard.capture.llm import LiteLLMModel

            self._models[key] = LiteLLMModel(settings.model, api_base=settings.api_base)
        return self._models[key]

    def function(
        self, loop: asyncio.AbstractEventLoop, *, run_id: str, seed: int | None
    ) -> JudgeFunction:
        """A blocking judge for a thread other than ``loop``'s, asking for run ``run_id`` (its
        samples seeded from the run's ``seed``)."""
        run = RunKey(run_id, seed)

        def judge(settings: JudgeSettings, text: str) -> Judgement:
            coroutine = self.cache.judgement(self.model, settings, text, run)
            future = contextvars.Context().run(asyncio.run_coroutine_threadsafe, coroutine, loop)
            return future.result()

        return judge
