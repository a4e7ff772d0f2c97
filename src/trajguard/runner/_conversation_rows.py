"""What a conversation adds to its run's row: the criteria of each scripted turn, why the
conversation ended (``stop_reason``) and its user messages (``user_turns``).

A turn's criteria are judged on the conversation up to that turn's answer: the trajectory cut
before the next user step, its final output the agent's last message there (or its
final-answer tool call). Their labels and reasons name the turn (``turn 2: tool_called:
lookup``); a turn the conversation never reached fails them. Runs without a conversation have
null ``stop_reason`` and ``user_turns``; a conversational run that crashed, timed out or was
not run to the end by trajguard has ``stop_reason`` ``error``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from trajguard.atif import Trajectory
from trajguard.core.normalize import Normalized
from trajguard.core.shape import shape, user_turns
from trajguard.suite import (
    CriterionResult,
    JudgeFunction,
    ResolvedScenario,
    ScriptedTurn,
    evaluate_criteria,
)

__all__ = ["conversation_columns", "turn_results"]

_CONVERSATION = "conversation"  # trajguard.agent.conversation.CONVERSATION_KEY (agent is above)


def turn_results(
    turns: Sequence[ScriptedTurn],
    normalized: Mapping[str, Any],
    *,
    final_output: Callable[[Mapping[str, Any]], str | None],
    resolve: Callable[[str], Callable[[Mapping[str, Any]], object]],
    judge: JudgeFunction | None = None,
) -> list[CriterionResult]:
    """The results of every scripted turn's criteria (see the module docstring)."""
    steps = list(normalized.get("steps", []))
    users = [index for index, step in enumerate(steps) if step.get("source") == "user"]
    results: list[CriterionResult] = []
    for number, turn in enumerate(turns, start=1):
        if not turn.criteria:
            continue
        if number > len(users):
            reason = f"the conversation ended after {len(users)} user message(s)"
            results += [
                CriterionResult(
                    criterion=c.kind,
                    label=f"turn {number}: {c.label}",
                    passed=False,
                    reason=f"turn {number}: {reason}",
                )
                for c in turn.criteria
            ]
            continue
        end = users[number] if number < len(users) else len(steps)
        extra = {k: v for k, v in (normalized.get("extra") or {}).items() if k != "final_output"}
        cut = Normalized({**normalized, "steps": steps[:end], "extra": extra})
        cut_shape = shape(cut)
        answer = final_output(cut)
        if answer is not None:
            cut_shape = replace(cut_shape, final_output=answer)
        for result in evaluate_criteria(
            turn.criteria, cut, cut_shape, resolve=resolve, judge=judge
        ):
            results.append(
                result.model_copy(
                    update={
                        "label": f"turn {number}: {result.label or result.criterion}",
                        "reason": f"turn {number}: {result.reason}" if result.reason else "",
                    }
                )
            )
    return results


def conversation_columns(
    arm: ResolvedScenario, trajectory: Trajectory | None, status: str
) -> dict[str, Any]:
    """``stop_reason`` and ``user_turns`` of a run (null for a run without a conversation)."""
    if arm.turns is None and arm.user is None:
        return {"stop_reason": None, "user_turns": None}
    record = ((trajectory.extra or {}) if trajectory is not None else {}).get(_CONVERSATION)
    reason = record.get("stop_reason") if isinstance(record, Mapping) else None
    if status in ("crash", "timeout") or reason is None:
        reason = "error"
    turns = user_turns(trajectory.steps) if trajectory is not None else 0
    return {"stop_reason": str(reason), "user_turns": turns}
