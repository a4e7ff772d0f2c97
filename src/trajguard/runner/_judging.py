"""The judges of a batch: one model client per judge model, one cache of judgements (each
run's own: a run is never answered with another run's judgement, see :mod:`trajguard.judge`).

A judgement is bounded by the run's ``timeout_s``: a judge that accepts the connection and never
answers (each attempt of its client would wait 120 s, and be retried) leaves the criterion not
judged when the run's timeout has passed, with the reason; the judge's client also gets at most
that long per attempt.

A run's row is built off the event loop (its predicates are user code), so a judge criterion
asks the loop for its judgement and waits: :meth:`Judges.function` is the blocking function
:func:`~trajguard.suite.evaluate_criteria` calls. The judgement runs in an empty context, so
nothing that records the agent's model calls (zero-code capture follows the run's context)
ever sees the judge's.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Callable
from typing import TYPE_CHECKING

from trajguard.judge import JudgeCache, Judgement, JudgeSample, JudgeSettings, RunKey
from trajguard.suite import JudgeFunction, ResolvedScenario, placed_criteria

if TYPE_CHECKING:
    from trajguard.capture import ChatModel

__all__ = ["Judges", "JudgingProgress", "uses_judge"]


def uses_judge(arm: ResolvedScenario) -> bool:
    """Whether some pass criterion of the arm (a scripted turn's included) is a ``judge``."""
    return any(c.kind == "judge" for _, c in placed_criteria(arm))


class JudgingProgress:
    """How many judgements are in flight, told to a watcher whenever that changes (a progress
    display: "judging N")."""

    def __init__(self) -> None:
        self.active = 0
        self.on_change: Callable[[int], None] | None = None

    def set(self, active: int) -> None:
        self.active = active
        if self.on_change is not None:
            self.on_change(active)


class Judges:
    """The judge models and the judgement cache of a batch (of this process: on Ray each run
    has its own)."""

    def __init__(
        self, *, attempt_timeout_s: float = 120.0, progress: JudgingProgress | None = None
    ) -> None:
        self.cache = JudgeCache()
        self.attempt_timeout_s = attempt_timeout_s
        """The longest one attempt of a judge's client waits (each judgement is bounded too)."""
        self._models: dict[tuple[str, str | None], ChatModel] = {}
        self.progress = progress or JudgingProgress()
        """The judgements in flight (this process's; on Ray the driver sums the workers')."""

    def model(self, settings: JudgeSettings) -> ChatModel:
        """The client of a judge model (one per model string and endpoint)."""
        key = (settings.model, settings.api_base)
        if key not in self._models:
            from trajguard.capture import LiteLLMModel

            self._models[key] = LiteLLMModel(
                settings.model, api_base=settings.api_base, timeout_s=self.attempt_timeout_s
            )
        return self._models[key]

    def function(
        self,
        loop: asyncio.AbstractEventLoop,
        *,
        run_id: str,
        seed: int | None,
        timeout_s: float | None = None,
    ) -> JudgeFunction:
        """A blocking judge for a thread other than ``loop``'s, asking for run ``run_id`` (its
        samples seeded from the run's ``seed``), each judgement bounded by ``timeout_s``."""
        run = RunKey(run_id, seed)

        async def bounded(settings: JudgeSettings, text: str) -> Judgement:
            self._count(+1)
            try:
                return await within(settings, text)
            finally:
                self._count(-1)

        async def within(settings: JudgeSettings, text: str) -> Judgement:
            asked = self.cache.judgement(self.model, settings, text, run)
            if timeout_s is None:
                return await asked
            try:
                return await asyncio.wait_for(asked, timeout_s)
            except TimeoutError:
                error = (
                    f"the judge {settings.model} did not answer within the run's "
                    f"{timeout_s:g} s timeout"
                )
                return Judgement(samples=(JudgeSample(verdict=None, reason="", error=error),))

        def judge(settings: JudgeSettings, text: str) -> Judgement:
            coroutine = bounded(settings, text)
            future = contextvars.Context().run(asyncio.run_coroutine_threadsafe, coroutine, loop)
            return future.result()

        return judge

    def _count(self, change: int) -> None:
        self.progress.set(self.progress.active + change)
