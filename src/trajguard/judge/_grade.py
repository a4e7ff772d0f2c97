"""Grading one text with a judge model, k times, and the batch's cache of judgements.

A judgement is *decided* when every sample gave a verdict; the first sample that fails (the
model did not answer, or answered no verdict) stops it, and the criterion is then not judged.
Sample ``i`` is sent with seed ``i``: a judge's samples are reproducible where the provider
honours seeds, and differ where the temperature lets them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from trajguard._text import safe_str
from trajguard.capture.types import ChatModel
from trajguard.judge._prompt import judge_messages, parse_verdict
from trajguard.local_model import is_local_model

__all__ = [
    "PASS_RULES",
    "JudgeCache",
    "JudgeSample",
    "JudgeSettings",
    "Judgement",
    "decide",
    "grade",
    "judgement_record",
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
    """Taken from the batch's cache: an identical text was judged already (no new calls)."""

    @property
    def error(self) -> str | None:
        """Why the text could not be judged (the first failed sample's error), else ``None``."""
        return next((s.error for s in self.samples if s.error is not None), None)

    @property
    def verdicts(self) -> tuple[bool, ...]:
        return tuple(s.verdict for s in self.samples if s.verdict is not None)


def decide(verdicts: tuple[bool, ...], rule: PassRule) -> bool:
    """Whether the samples' verdicts make a pass: more PASS than half (``majority``; a tie
    fails), every one (``all``), or at least one (``any``)."""
    if rule == "all":
        return all(verdicts)
    if rule == "any":
        return any(verdicts)
    return sum(verdicts) * 2 > len(verdicts)


async def grade(model: ChatModel, settings: JudgeSettings, text: str) -> Judgement:
    """Judge ``text`` ``settings.samples`` times with ``model``; never raises for a model that
    fails (the sample records why and the judgement stops there)."""
    messages = judge_messages(settings.rubric, text)
    samples: list[JudgeSample] = []
    for index in range(settings.samples):
        try:
            response = await model.complete(
                messages,
                temperature=settings.temperature,
                max_tokens=settings.max_tokens,
                seed=index,
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


@dataclass
class JudgeCache:
    """The judgements of one batch, by (settings, judged text): an identical answer is judged
    once; a text being judged is waited for, not judged again. A judgement that failed is not
    kept (a later run asks again)."""

    calls: int = 0
    """Texts actually sent to a judge (cache misses)."""
    _known: dict[tuple[JudgeSettings, str], asyncio.Future[Judgement]] = field(default_factory=dict)

    async def judgement(
        self, model: Callable[[JudgeSettings], ChatModel], settings: JudgeSettings, text: str
    ) -> Judgement:
        """The judgement of ``text`` under ``settings``: cached, or graded with
        ``model(settings)`` now."""
        key = (settings, text)
        known = self._known.get(key)
        if known is not None:
            found = await asyncio.shield(known)
            if found.error is None:
                return Judgement(samples=found.samples, cached=True)
        future: asyncio.Future[Judgement] = asyncio.get_running_loop().create_future()
        self._known[key] = future
        self.calls += 1
        try:
            result = await grade(model(settings), settings, text)
        except BaseException as exc:
            del self._known[key]
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
