"""What a judge is asked, and how its answer is read (pure).

The judge gets the rubric and the judged text between markers, and is asked for a verdict line
(``VERDICT: PASS`` or ``VERDICT: FAIL``) and a one-line reason. Small models answer loosely, so
the verdict is read in three tries, the first that finds one wins: a ``verdict`` label followed
by PASS or FAIL (any case, Markdown emphasis allowed); the first word of the first non-empty
line; the one of the capitalised words ``PASS`` / ``FAIL`` the answer uses, if it uses only
one. Anything else is unparseable: the sample has no verdict.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

__all__ = ["judge_messages", "parse_verdict", "trajectory_text"]

_SYSTEM = (
    "You are a strict grader. You read a rubric and a text, and decide whether the text meets "
    "the rubric. You answer with exactly two lines: 'VERDICT: PASS' or 'VERDICT: FAIL', then "
    "'REASON: ' and one short sentence."
)
_USER = """Rubric:
{rubric}

Text to grade (between <<< and >>>):
<<<
{text}
>>>

Does the text meet the rubric? Answer with exactly two lines:
VERDICT: PASS or VERDICT: FAIL
REASON: one short sentence"""

_LABELLED = re.compile(r"\bverdict\b[\s*_:=\-\"'`]*(pass|fail)", re.IGNORECASE)
_FIRST_WORD = re.compile(r"^[\s*_#>\"'`\[(]*(pass|fail)(?:ed|es|s)?\b", re.IGNORECASE)
_CAPITALISED = re.compile(r"\b(PASS|FAIL)(?:ED|ES)?\b")
_REASON = re.compile(r"\breason\b[\s*_:=\-\"']*(.+)", re.IGNORECASE)
REASON_CHARS = 200


def judge_messages(rubric: str, text: str) -> list[dict[str, Any]]:
    """The chat messages of one judge call."""
    shown = text if text.strip() else "(empty: there was no final output)"
    return [
        {"role": "system", "content": _SYSTEM},
        {"role": "user", "content": _USER.format(rubric=rubric.strip(), text=shown)},
    ]


def parse_verdict(answer: str | None) -> tuple[bool | None, str]:
    """The verdict of a judge's answer (``True``: PASS, ``None``: none found) and its reason."""
    text = answer or ""
    verdict: str | None = None
    rest = text  # the answer after its verdict: the reason when none is labelled
    labelled = _LABELLED.search(text)
    first = next((line for line in text.splitlines() if line.strip()), "")
    opening = _FIRST_WORD.match(first)
    if labelled:
        verdict, rest = labelled.group(1), text[labelled.end() :]
    elif opening:
        verdict, rest = opening.group(1), text[text.index(first) + opening.end() :]
    else:
        words = {w.upper() for w in _CAPITALISED.findall(text)}
        verdict = words.pop() if len(words) == 1 else None
    reason_match = _REASON.search(text)
    reason = reason_match.group(1) if reason_match else " ".join(rest.split())
    reason = _cut(reason.strip(" *_:.-—–\"'`{}"), REASON_CHARS)
    if verdict is None:
        return None, reason
    return verdict.lower() == "pass", reason


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def trajectory_text(trajectory: Mapping[str, Any], *, limit: int = 6000) -> str:
    """A normalised trajectory as the judge reads it: one line per message, tool call and
    observation, in order (subagents indented); cut to ``limit`` characters from the start."""
    lines: list[str] = []
    _lines(trajectory, lines, "")
    return _cut("\n".join(lines), limit)


def _lines(trajectory: Mapping[str, Any], lines: list[str], indent: str) -> None:
    for step in trajectory.get("steps") or ():
        source = str(step.get("source") or "step")
        message = step.get("message")
        if message:
            lines.append(f"{indent}{source}: {message}")
        for call in step.get("tool_calls") or ():
            lines.append(
                f"{indent}{source} calls {call.get('function_name')}({call.get('arguments')})"
            )
        observation = step.get("observation") or {}
        for result in observation.get("results") or () if isinstance(observation, Mapping) else ():
            content = result.get("content") if isinstance(result, Mapping) else result
            lines.append(f"{indent}tool result: {content}")
    for sub in trajectory.get("subagent_trajectories") or ():
        _lines(sub, lines, indent + "  ")
