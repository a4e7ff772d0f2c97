"""The user side of a conversation: scripted messages, or a user played by a model.

A user is asked for its next message with the conversation so far (``("user", text)`` and
``("agent", text)`` pairs) and answers a :class:`UserMessage`, or a :data:`StopReason` when it
has nothing more to say: ``user_done`` (the script is over) or ``max_turns`` (the simulated
user's turn limit). A simulated user's message that holds its done token ends the
conversation (``user_done``) once recorded: the agent does not answer it.

A simulated user's model calls are the user's, not the agent's: each user step carries them in
``extra.simulated_user`` (model, seed, tokens), never in ``metrics``, so the agent's token and
call counts leave them out. Call ``i`` of the user is sent :func:`user_seed` ``(run seed, i)``,
a seed of its own (the agent's calls use :func:`~trajguard.agent.derive_seed`): the same run seed
gives the same conversation.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from trajguard.capture import ChatModel, Message

__all__ = [
    "DONE_TOKEN",
    "SIMULATED_USER_KEY",
    "ConversationUser",
    "ScriptedUser",
    "SimulatedUser",
    "StopReason",
    "UserMessage",
    "user_seed",
]

StopReason = Literal["user_done", "max_turns", "agent_ended", "error"]
"""Why a conversation ended: the user was done (its script over, or it said its done token),
the simulated user's turn limit, the agent ended it (gave up, or stopped taking turns), or an
error (a crash, a timeout, the user model failing)."""
DONE_TOKEN = "###STOP###"  # noqa: S105  (a word the user says, not a secret)
"""What a simulated user says when its goal is met (τ-bench's token)."""
SIMULATED_USER_KEY = "simulated_user"
"""The ``step.extra`` key of a user step a model wrote: that model's call."""
Transcript = Sequence[tuple[str, str]]


@dataclass(frozen=True)
class UserMessage:
    """What the user says next.

    Attributes:
        text: the message the agent reads.
        extra: recorded on the user step (a simulated user's call).
        done: the user is done with this message: the agent does not answer it.
    """

    text: str
    extra: Mapping[str, Any] | None = None
    done: bool = False


class ConversationUser(Protocol):
    """The user of a conversation (see the module docstring)."""

    async def next_message(self, transcript: Transcript) -> UserMessage | StopReason: ...


@dataclass
class ScriptedUser:
    """Says its messages in order, then is done."""

    messages: Sequence[str]
    _said: int = 0

    @property
    def said_all(self) -> bool:
        """Whether every scripted message has been said."""
        return self._said >= len(self.messages)

    async def next_message(self, transcript: Transcript) -> UserMessage | StopReason:
        if self._said >= len(self.messages):
            return "user_done"
        self._said += 1
        return UserMessage(self.messages[self._said - 1])


def user_seed(run_seed: int | None, call_index: int) -> int | None:
    """The sampling seed of the simulated user's call ``call_index`` in a run (``None``
    without a run seed); apart from the agent's own seeds."""
    if run_seed is None:
        return None
    digest = hashlib.sha256(f"trajguard-user\x1f{run_seed}\x1f{call_index}".encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFF_FFFF


_INSTRUCTIONS = """You are a user talking to an AI assistant. Stay in your role: you are the \
user, never the assistant. Write only your next message to the assistant, one or two short \
sentences.
{persona}Your goal: {goal}
What you know (tell it only when the assistant asks for it):
{facts}
When your goal is met, or cannot be met, reply with exactly {done}"""
_FIRST = "Write your first message to the assistant."


@dataclass
class SimulatedUser:
    """A user played by a model (τ-bench's user simulator).

    Args:
        model: the user's model.
        goal: what the user wants.
        persona: who the user is.
        facts: what only the user knows, as lines of text.
        opening: the first message as written (the model writes it otherwise).
        max_turns: the most user messages (the opening included).
        done_token: what the user says when it is done.
        seed: the run seed its call seeds derive from (:func:`user_seed`).
    """

    model: ChatModel
    goal: str
    persona: str = ""
    facts: str = ""
    opening: str | None = None
    max_turns: int = 6
    done_token: str = DONE_TOKEN
    seed: int | None = None
    temperature: float | None = 0.7
    max_tokens: int | None = 96
    _said: int = field(default=0, init=False)

    @property
    def instructions(self) -> str:
        """The user model's system prompt."""
        persona = f"Who you are: {self.persona}\n" if self.persona else ""
        facts = self.facts or "(nothing in particular)"
        return _INSTRUCTIONS.format(
            persona=persona, goal=self.goal, facts=facts, done=self.done_token
        )

    async def next_message(self, transcript: Transcript) -> UserMessage | StopReason:
        if self._said >= self.max_turns:
            return "max_turns"
        self._said += 1
        if self._said == 1 and self.opening is not None:
            return UserMessage(self.opening)
        # the user model plays the user: the agent's answers are what it reads
        messages: list[Message] = [{"role": "system", "content": self.instructions}]
        if not transcript:
            messages.append({"role": "user", "content": _FIRST})
        for speaker, text in transcript:
            role = "assistant" if speaker == "user" else "user"
            messages.append({"role": role, "content": text})
        seed = user_seed(self.seed, self._said - 1)
        response = await self.model.complete(
            messages, temperature=self.temperature, max_tokens=self.max_tokens, seed=seed
        )
        raw = (response.content or "").strip()
        done = self.done_token in raw
        text = raw.replace(self.done_token, "").strip() if done else raw
        call = {
            "model": response.model or self.model.model_name,
            "seed": seed,
            "prompt_tokens": response.usage.prompt_tokens,
            "completion_tokens": response.usage.completion_tokens,
        }
        if done:
            call["said_done"] = True
        return UserMessage(text or raw, extra={SIMULATED_USER_KEY: call}, done=done)
