"""Grading one text with a judge model, k times, and the batch's cache of judgements.

A judgement is *decided* when every sample gave a verdict; the first sample that fails (the
model did not answer, or answered no verdict) stops it, and the criterion is then not judged.

Seeds: in a batch, sample ``i`` of a run is sent with :func:`sample_seed` of the run's own seed
and ``i``, so two runs never send the same request (where a provider honours seeds, two runs
with the same answer still get independent draws of the judge); outside a batch (a frozen test
calling :func:`grade`) sample ``i`` is sent with seed ``i``.

Caching: :class:`JudgeCache` keeps a judgement under its whole request *and the run that asked*
(settings, text, run id, run seed). It answers only the same run asking the same question again
(the same criterion listed twice), never another run: a judgement is one run's draw of a noisy
judge, and sharing it would make every run with that answer pass or fail together (runs in
blocks, a test that believes it has N independent runs when it has a few: A/A nights failing
25-30 % of the time instead of 5 %, issue 35). A resumed batch re-derives the same run seeds,
so a redone run sends the same requests; a frozen test replays them from its cassette.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from trajguard._text import safe_str
from trajguard.capture import ChatModel
from trajguard.judge._prompt import judge_messages, parse_verdict
from trajguard.local_model import is_local_model

__all__ = [
    "PASS_RULES",
    "JudgeCache",
    "JudgeSample",
    "JudgeSettings",
    "Judgement",
    "RunKey",
    "decide",
    "grade",
    "judgement_record",
    "sample_seed",
]

PassRule = Literal["majority", "all", "any"]
PASS_RULES: tuple[PassRule, ...] = ("majority", "all", "any")
VERDICT_FORMAT = {
    "type": "json_object",
    "schema": {
        "type": "object",
        "properties": {"verdict": {"enum": ["PASS", "FAIL"]}, "reason": {"type": "string"}},
        "required": ["verdict", "reason"],
    },
}
"""The answer form the embedded model is held to (its server constrains the output to it): a
small model left free rarely says PASS or FAIL at all."""


@dataclass(frozen=True, kw_only=True)
class JudgeSettings:
    """Everything that changes what a judge is asked (the cache's key, with the text)."""

    rubric: str
    model: str
    api_base: str | None = None
    samples: int = 1
    temperature: float | None = None
    max_tokens: int | None = None


@dataclass(frozen=True, kw_only=True)
class JudgeSample:
    """One call of the judge: its verdict (``None``: none), the reason, its tokens."""

    verdict: bool | None
    reason: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    error: str | None = None
    """Why the sample has no verdict: the call failed, or the answer held none."""

    def as_record(self) -> dict[str, Any]:
        """The sample as stored (``judge_calls`` column)."""
        verdict = None if self.verdict is None else ("PASS" if self.verdict else "FAIL")
        return {
            "verdict": verdict,
            "reason": self.reason,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "error": self.error,
        }


@dataclass(frozen=True, kw_only=True)
class Judgement:
    """The samples of one judged text."""

    samples: tuple[JudgeSample, ...]
    cached: bool = False
    """Taken from the cache: the same run asked the same question already (no new calls)."""

    @property
    def error(self) -> str | None:
        """Why the text could not be judged (the first failed sample's error), else ``None``."""
        return next((s.error for s in self.samples if s.error is not None), None)

    @property
    def verdicts(self) -> tuple[bool, ...]:
        return tuple(s.verdict for s in self.samples if s.verdict is not None)


def sample_seed(run_seed: int | None, index: int) -> int:
    """The seed sample ``index`` of a run is sent with: ``index`` without a run seed, else a
    31-bit hash of both (distinct runs, distinct seeds)."""
    if run_seed is None:
        return index
    digest = hashlib.sha256(f"judge\x1f{run_seed}\x1f{index}".encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFF_FFFF


def decide(verdicts: tuple[bool, ...], rule: PassRule) -> bool:
    """Whether the samples' verdicts make a pass: more PASS than half (``majority``; a tie
    fails), every one (``all``), or at least one (``any``)."""
    if rule == "all":
        return all(verdicts)
    if rule == "any":
        return any(verdicts)
    return sum(verdicts) * 2 > len(verdicts)


async def grade(
    model: ChatModel, settings: JudgeSettings, text: str, *, seed: int | None = None
) -> Judgement:
    """Judge ``text`` ``settings.samples`` times with ``model``; never raises for a model that
    fails (the sample records why and the judgement stops there).

    Args:
        seed: the run's seed (sample ``i`` is sent with :func:`sample_seed` of it); ``None``:
            sample ``i`` with seed ``i``.
    """
    messages = judge_messages(settings.rubric, text)
    samples: list[JudgeSample] = []
    for index in range(settings.samples):
        try:
            response = await model.complete(
                messages,
                temperature=settings.temperature,
                max_tokens=settings.max_tokens,
                seed=sample_seed(seed, index),
                response_format=VERDICT_FORMAT if is_local_model(settings.model) else None,
            )
        except Exception as exc:  # unreachable, refused, malformed: the judge failed
            failed = f"the judge {settings.model} failed: {type(exc).__name__}: {safe_str(exc)}"
            samples.append(JudgeSample(verdict=None, reason="", error=failed[:500]))
            break
        verdict, reason = parse_verdict(response.content)
        usage = response.usage
        error: str | None = None
        if verdict is None:
            error = (
                f"the judge {settings.model} answered no PASS/FAIL verdict: "
                f"{(response.content or '(empty)')[:200]!r}"
            )
        samples.append(
            JudgeSample(
                verdict=verdict,
                reason=reason,
                prompt_tokens=usage.prompt_tokens,
                completion_tokens=usage.completion_tokens,
                error=error,
            )
        )
        if error is not None:
            break
    return Judgement(samples=tuple(samples))


@dataclass(frozen=True)
class RunKey:
    """The run that asks for a judgement: its id and seed (its samples' seeds derive from it)."""

    run_id: str
    seed: int | None


@dataclass
class JudgeCache:
    """The judgements of one batch, by (settings, judged text, run): the same run asking the
    same question again is answered from here (a request being judged is waited for, not sent
    twice); another run is never answered from here, whatever its text. A judgement that failed
    is not kept (the run's next ask sends it again)."""

    calls: int = 0
    """Judgements actually requested from a judge (cache misses)."""
    _known: dict[tuple[JudgeSettings, str, RunKey], asyncio.Future[Judgement]] = field(
        default_factory=dict
    )

    async def judgement(
        self,
        model: Callable[[JudgeSettings], ChatModel],
        settings: JudgeSettings,
        text: str,
        run: RunKey,
    ) -> Judgement:
        """The judgement of ``text`` under ``settings`` for ``run``: cached, or graded with
        ``model(settings)`` now (its samples seeded from ``run.seed``)."""
        key = (settings, text, run)
        known = self._known.get(key)
        if known is not None:
            found = await asyncio.shield(known)
            if found.error is None:
                return Judgement(samples=found.samples, cached=True)
        future: asyncio.Future[Judgement] = asyncio.get_running_loop().create_future()
        self._known[key] = future
        self.calls += 1
        try:
            result = await grade(model(settings), settings, text, seed=run.seed)
        except BaseException as exc:  # cancelled (the run's timeout), or the model raised
            del self._known[key]
            if isinstance(exc, asyncio.CancelledError):
                future.cancel()
            else:
                future.set_exception(exc)
                future.exception()  # retrieved: no "never retrieved" warning
            raise
        if result.error is not None:
            self._known.pop(key, None)
        future.set_result(result)
        return result


def judgement_record(
    label: str, settings: JudgeSettings, rule: str, judgement: Judgement, held: bool | None
) -> Mapping[str, Any]:
    """What the ``judge_calls`` column keeps of one judged criterion."""
    return {
        "criterion": label,
        "model": settings.model,
        "samples_wanted": settings.samples,
        "pass_if": rule,
        "held": held,
        "cached": judgement.cached,
        "error": judgement.error,
        "samples": [s.as_record() for s in judgement.samples],
    }
