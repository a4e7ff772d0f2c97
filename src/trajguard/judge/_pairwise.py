"""The pairwise judge: which of two answers to the same input is better (pure prompt and parse,
and one asked preference).

The judge sees the input, the rubric and two answers labelled ``Answer 1`` and ``Answer 2`` (it
is never told which variant gave which), and answers ``PREFERENCE: 1``, ``PREFERENCE: 2`` or
``PREFERENCE: TIE`` and a reason. The preference is read in two tries: a ``preference`` label
followed by 1, 2 or TIE; else the first word of the first non-empty line. Anything else holds no
preference: the judgement failed (counted apart, never as a tie).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import Any, Literal

from trajguard._text import safe_str
from trajguard.capture import ChatModel
from trajguard.local_model import is_local_model

__all__ = [
    "Choice",
    "PairwiseSettings",
    "Preference",
    "pair_draw",
    "pairwise_messages",
    "parse_preference",
    "prefer",
]

Choice = Literal["first", "second", "tie"]

_SYSTEM = (
    "You are a strict grader. You read a task, a rubric and two answers to the task, and decide "
    "which answer meets the rubric better. The order of the answers means nothing. You answer "
    "with exactly two lines: 'PREFERENCE: 1', 'PREFERENCE: 2' or 'PREFERENCE: TIE' (equally "
    "good), then 'REASON: ' and one short sentence."
)
_USER = """Task given to both:
{task}

Rubric:
{rubric}

Answer 1 (between <<< and >>>):
<<<
{first}
>>>

Answer 2 (between <<< and >>>):
<<<
{second}
>>>

Which answer meets the rubric better? Answer with exactly two lines:
PREFERENCE: 1 or PREFERENCE: 2 or PREFERENCE: TIE
REASON: one short sentence"""

_LABELLED = re.compile(r"\bpreference\b[\s*_:=\-\"'`]*(1|2|tie)\b", re.IGNORECASE)
_FIRST_WORD = re.compile(r"^[\s*_#>\"'`\[(]*(?:answer\s*)?(1|2|tie)\b", re.IGNORECASE)
_REASON = re.compile(r"\breason\b[\s*_:=\-\"']*(.+)", re.IGNORECASE)
_CHOICES: dict[str, Choice] = {"1": "first", "2": "second", "tie": "tie"}
PREFERENCE_FORMAT = {
    "type": "json_object",
    "schema": {
        "type": "object",
        "properties": {"preference": {"enum": ["1", "2", "TIE"]}, "reason": {"type": "string"}},
        "required": ["preference", "reason"],
    },
}
"""The answer form the embedded model is held to."""


@dataclass(frozen=True, kw_only=True)
class PairwiseSettings:
    """Everything that changes what the pairwise judge is asked."""

    rubric: str
    model: str
    api_base: str | None = None
    temperature: float | None = None
    max_tokens: int | None = None


@dataclass(frozen=True, kw_only=True)
class Preference:
    """One asked order: which shown answer the judge preferred (``None``: it gave none)."""

    choice: Choice | None
    reason: str = ""
    error: str | None = None


def pairwise_messages(task: str, rubric: str, first: str, second: str) -> list[dict[str, Any]]:
    """The chat messages of one pairwise call."""

    def shown(text: str) -> str:
        return text if text.strip() else "(empty: there was no final output)"

    user = _USER.format(
        task=task.strip(), rubric=rubric.strip(), first=shown(first), second=shown(second)
    )
    return [{"role": "system", "content": _SYSTEM}, {"role": "user", "content": user}]


def parse_preference(answer: str | None) -> tuple[Choice | None, str]:
    """The preference of a judge's answer (``None``: none found) and its reason."""
    text = answer or ""
    found = _LABELLED.search(text)
    if found is None:
        first = next((line for line in text.splitlines() if line.strip()), "")
        found = _FIRST_WORD.match(first)
    reason_match = _REASON.search(text)
    reason = reason_match.group(1).strip(" *_:.-\"'`{}") if reason_match else ""
    reason = reason if len(reason) <= 200 else reason[:199] + "…"
    if found is None:
        return None, reason
    return _CHOICES[found.group(1).lower()], reason


def pair_draw(seeds: str, scenario: str, run_index: int, purpose: str) -> int:
    """A 31-bit number drawn for one pair and one purpose (its order, whether both orders are
    asked, the seed of each call): reproducible from the pair's run ``seeds``, independent
    across pairs."""
    key = f"pairwise\x1f{seeds}\x1f{scenario}\x1f{run_index}\x1f{purpose}".encode()
    return int.from_bytes(hashlib.sha256(key).digest()[:4], "big") & 0x7FFF_FFFF


async def prefer(
    model: ChatModel,
    settings: PairwiseSettings,
    *,
    task: str,
    first: str,
    second: str,
    seed: int,
) -> Preference:
    """Ask ``model`` once which of ``first`` and ``second`` is better; never raises for a model
    that fails (the preference records why)."""
    try:
        response = await model.complete(
            pairwise_messages(task, settings.rubric, first, second),
            temperature=settings.temperature,
            max_tokens=settings.max_tokens,
            seed=seed,
            response_format=PREFERENCE_FORMAT if is_local_model(settings.model) else None,
        )
    except Exception as exc:  # unreachable, refused, malformed: the judge failed
        failed = f"the judge {settings.model} failed: {type(exc).__name__}: {safe_str(exc)}"
        return Preference(choice=None, error=failed[:500])
    choice, reason = parse_preference(response.content)
    if choice is None:
        said = (response.content or "(empty)")[:200]
        return Preference(
            choice=None,
            reason=reason,
            error=f"the judge {settings.model} answered no preference: {said!r}",
        )
    return Preference(choice=choice, reason=reason)
