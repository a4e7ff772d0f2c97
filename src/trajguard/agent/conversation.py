"""A conversation with the reference agent: it answers each user message in one episode.

``await converse(agent, model, user, seed=...)`` asks the user (:mod:`trajguard.agent.users`)
for a message, lets the agent answer it with the conversation so far as its memory, and goes on
until the user is done, its turn limit is reached, or the agent ends it (an answer it could not
give: the run's ``extra.agent_error``). The run is one trajectory: every user step (a simulated
user's call in its ``extra``) and every agent step, with ``extra.conversation`` saying why it
ended (``stop_reason``) and how many user messages it had. The agent's model calls are counted
across the conversation (call ``i`` gets ``derive_seed(seed, i)``); ``max_steps`` bounds each
answer.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Any, Literal

from trajguard.agent.loop import AgentFailure, ReferenceAgent
from trajguard.agent.users import ConversationUser, StopReason, UserMessage
from trajguard.atif import Trajectory
from trajguard.capture import ChatModel, TrajectoryRecorder
from trajguard.errors import ModelRequestError

__all__ = ["CONVERSATION_KEY", "ConversationResult", "converse", "stamp_conversation"]

CONVERSATION_KEY = "conversation"
"""The trajectory's ``extra`` key saying how a conversation ended."""


@dataclass(frozen=True)
class ConversationResult:
    """The outcome of one conversation.

    Attributes:
        trajectory: the finished trajectory (every user and agent step).
        stop_reason: why it ended (:data:`~trajguard.agent.users.StopReason`).
        final_answer: the agent's last answer, ``None`` if it gave none.
        status: ``ok``, or ``agent_error`` when the agent ended it without an answer.
        user_turns: the user messages recorded.
        error_type: the agent error's reason, or the user model's failure.
        error_message: its explanation.
    """

    trajectory: Trajectory
    stop_reason: StopReason
    final_answer: str | None
    status: Literal["ok", "agent_error"]
    user_turns: int
    error_type: str | None = None
    error_message: str | None = None


def stamp_conversation(
    trajectory: Trajectory, stop_reason: str, *, error: str | None = None
) -> Trajectory:
    """The trajectory with ``extra.conversation`` (why it ended, its user messages)."""
    turns = sum(1 for step in trajectory.steps if step.source == "user")
    record: dict[str, Any] = {"stop_reason": stop_reason, "user_turns": turns}
    if error:
        record["error"] = error
    extra = {**(trajectory.extra or {}), CONVERSATION_KEY: record}
    return trajectory.model_copy(update={"extra": extra})


async def converse(
    agent: ReferenceAgent,
    model: ChatModel,
    user: ConversationUser,
    *,
    seed: int | None = None,
    recorder: TrajectoryRecorder | None = None,
) -> ConversationResult:
    """Hold one conversation between ``user`` and the agent (see the module docstring).

    Raises:
        ModelUnavailable: the agent's or the user's model could not be reached; this and
            any other exception that escapes carries the finished trajectory
            (``extra.crashed``, ``extra.conversation.stop_reason = error``) as
            ``exc.trajectory``.
    """
    rec = recorder if recorder is not None else agent.new_recorder(model)
    run_seed = seed if seed is not None else agent.config.seed
    try:
        return await _converse(agent, model, user, rec, run_seed)
    except BaseException as exc:
        trajectory = stamp_conversation(rec.finish(error=exc), "error")
        with contextlib.suppress(AttributeError):  # exceptions with __slots__
            exc.trajectory = trajectory  # type: ignore[attr-defined]
        raise


async def _converse(
    agent: ReferenceAgent,
    model: ChatModel,
    user: ConversationUser,
    rec: TrajectoryRecorder,
    run_seed: int | None,
) -> ConversationResult:
    turns = agent.new_turns(rec, agent.open_conversation(rec))
    transcript: list[tuple[str, str]] = []
    answer: str | None = None
    while True:
        try:
            said: UserMessage | StopReason = await user.next_message(list(transcript))
        except ModelRequestError as exc:  # the user model refused (its context is full …)
            message = f"the simulated user's model failed: {exc.message}"
            trajectory = stamp_conversation(rec.finish(), "error", error=message)
            return _result(trajectory, "error", answer, error=("user_model_error", message))
        if isinstance(said, str):
            return _result(stamp_conversation(rec.finish(), said), said, answer)
        rec.user(said.text, extra=said.extra)
        transcript.append(("user", said.text))
        if said.done:
            return _result(stamp_conversation(rec.finish(), "user_done"), "user_done", answer)
        turns.messages.append({"role": "user", "content": said.text})
        given = await agent.answer(model, turns, question=said.text, seed=run_seed)
        if isinstance(given, AgentFailure):
            rec.agent_error(given.reason, given.message)
            trajectory = stamp_conversation(rec.finish(), "agent_ended")
            failure = (given.reason, given.message)
            return _result(trajectory, "agent_ended", None, error=failure, status="agent_error")
        answer = given
        transcript.append(("agent", given))


def _result(
    trajectory: Trajectory,
    stop_reason: StopReason,
    answer: str | None,
    *,
    error: tuple[str, str] | None = None,
    status: Literal["ok", "agent_error"] = "ok",
) -> ConversationResult:
    return ConversationResult(
        trajectory=trajectory,
        stop_reason=stop_reason,
        final_answer=answer,
        status=status,
        user_turns=sum(1 for step in trajectory.steps if step.source == "user"),
        error_type=error[0] if error else None,
        error_message=error[1] if error else None,
    )
