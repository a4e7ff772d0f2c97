"""A conversation run of a callable or command agent: the user's side, handed over per turn.

The agent starts with the user's first message (``ctx.input``, ``{input}``) and asks for each
next one by handing over its answer to the last:

* a callable agent through ``ctx.conversation`` (:class:`Conversation`):
  ``message = await ctx.conversation.areply(answer)`` (or ``ctx.conversation.reply(answer)`` in
  a sync agent), ``None`` once the conversation is over;
* a command agent through its run's wire endpoint: ``POST $TRAJGUARD_CONVERSATION_URL`` with
  ``{"answer": "..."}``, answered ``{"message": "..."}`` or ``{"message": null,
  "stop_reason": "..."}`` (docs/how-to/command-agents.md).

The user's messages are put into the run's trajectory afterwards (:func:`merge_user_turns`):
a user step the capture already holds (the agent sent the message to its model) gets the
message's ``extra`` (a simulated user's call); one it lacks (the last message, which no model
call followed) is inserted where it was said. An agent that returns, or exits, before the user
is done ended the conversation (``agent_ended``).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from trajguard.agent.users import (
    ConversationUser,
    ScriptedUser,
    SimulatedUser,
    StopReason,
    UserMessage,
)
from trajguard.atif import Step, Trajectory
from trajguard.capture import ChatModel, utc_timestamp
from trajguard.core.shape import message_text
from trajguard.errors import ModelRequestError
from trajguard.suite import ResolvedScenario

__all__ = ["Conversation", "merge_user_turns", "user_for"]


def user_for(arm: ResolvedScenario, model: ChatModel, seed: int) -> ConversationUser:
    """The user of a conversational scenario: its script, or its simulated user (on the run's
    model when the user model is the same, else on a client of its own, like a judge's)."""
    if arm.turns is not None:
        return ScriptedUser([turn.say for turn in arm.turns])
    spec = arm.user
    assert spec is not None, "user_for is asked for conversational scenarios only"
    user_model = model
    if spec.user_model != arm.model or (spec.api_base or arm.api_base) != arm.api_base:
        from trajguard.capture import LiteLLMModel

        user_model = LiteLLMModel(
            spec.user_model, api_base=spec.api_base, timeout_s=max(arm.timeout_s, 1.0)
        )
    return SimulatedUser(
        model=user_model,
        goal=spec.goal,
        persona=spec.persona,
        facts=spec.facts_text(),
        opening=spec.opening,
        max_turns=spec.max_turns,
        done_token=spec.done_token,
        seed=seed,
        temperature=spec.temperature,
        max_tokens=spec.max_tokens,
    )


@dataclass(frozen=True)
class _Said:
    text: str
    extra: Mapping[str, Any] | None
    at: str


class Conversation:
    """``ctx.conversation``: the user's side of the run, for the agent (module docstring).

    Attributes:
        messages: the conversation so far, ``{"role": "user" | "assistant", "content"}``.
        stop_reason: why it ended, once it has (``None`` while the user has more to say).
    """

    def __init__(self, user: ConversationUser, loop: asyncio.AbstractEventLoop) -> None:
        self._user = user
        self._loop = loop
        self._lock = asyncio.Lock()
        self._said: list[_Said] = []
        self._transcript: list[tuple[str, str]] = []
        self.stop_reason: StopReason | None = None
        self.error: str | None = None

    @property
    def messages(self) -> list[dict[str, str]]:
        roles = {"user": "user", "agent": "assistant"}
        return [{"role": roles[who], "content": text} for who, text in self._transcript]

    async def start(self) -> str:
        """The user's first message (called by trajguard before the agent starts)."""
        first = await self._next()
        return first or ""

    async def areply(self, answer: str) -> str | None:
        """Hand over the answer to the last message; the user's next one, or ``None``."""
        async with self._lock:
            if self.stop_reason is not None:
                return None
            self._transcript.append(("agent", str(answer)))
            return await self._next()

    def reply(self, answer: str) -> str | None:
        """:meth:`areply` for a sync agent (in its own thread; never on the run's loop)."""
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is self._loop:
            raise RuntimeError("on the event loop, use `await ctx.conversation.areply(answer)`")
        return asyncio.run_coroutine_threadsafe(self.areply(answer), self._loop).result()

    def submit(self, answer: str) -> concurrent.futures.Future[dict[str, str | None]]:
        """:meth:`areply` from any thread (the wire endpoint), as the endpoint's answer."""
        return asyncio.run_coroutine_threadsafe(self._turn(answer), self._loop)

    async def _turn(self, answer: str) -> dict[str, str | None]:
        message = await self.areply(answer)
        if message is not None:
            return {"message": message}
        return {"message": None, "stop_reason": self.stop_reason}

    async def _next(self) -> str | None:
        try:
            said: UserMessage | StopReason = await self._user.next_message(list(self._transcript))
        except ModelRequestError as exc:
            self.stop_reason, self.error = "error", f"the simulated user's model failed: {exc}"
            return None
        if isinstance(said, str):
            self.stop_reason = said
            return None
        self._said.append(_Said(said.text, said.extra, utc_timestamp(datetime.now(UTC))))
        self._transcript.append(("user", said.text))
        if said.done:
            self.stop_reason = "user_done"
            return None
        return said.text

    def finish(self, trajectory: Trajectory) -> Trajectory:
        """The run's trajectory with the user's messages merged in and how it ended."""
        from trajguard.agent.conversation import stamp_conversation

        merged = merge_user_turns(trajectory, self._said)
        reason = self.stop_reason
        if reason is None:  # the agent stopped asking: it ended it, unless the script was over
            over = isinstance(self._user, ScriptedUser) and self._user.said_all
            reason = "user_done" if over else "agent_ended"
        return stamp_conversation(merged, reason, error=self.error)


def merge_user_turns(trajectory: Trajectory, said: Sequence[_Said]) -> Trajectory:
    """The trajectory with each user message on a user step of its own, in order (see the
    module docstring); step ids renumbered from 1."""
    steps = [step.model_copy() for step in trajectory.steps]
    position = 0
    for message in said:
        found = next(
            (
                index
                for index in range(position, len(steps))
                if steps[index].source == "user"
                and message.text in message_text(steps[index].message)
            ),
            None,
        )
        if found is None:
            found = next(
                (i for i in range(position, len(steps)) if (steps[i].timestamp or "") > message.at),
                len(steps),
            )
            user_step = Step(step_id=found + 1, source="user", message=message.text)
            steps.insert(found, user_step.model_copy(update={"timestamp": message.at}))
        if message.extra:
            steps[found].extra = {**(steps[found].extra or {}), **message.extra}
        position = found + 1
    renumbered = [
        step.model_copy(update={"step_id": index + 1}) for index, step in enumerate(steps)
    ]
    update: dict[str, Any] = {"steps": renumbered}
    final = trajectory.final_metrics
    if final is not None and final.total_steps is not None:
        update["final_metrics"] = final.model_copy(update={"total_steps": len(renumbered)})
    return trajectory.model_copy(update=update)
