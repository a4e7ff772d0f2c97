"""Value types shared by the model layer, the recorder, the replay and the agent.

A model call takes OpenAI-style chat messages (plain dicts) and returns an :class:`LLMResponse`.
Everything that can stand in for a model (the real litellm-backed one, a recording wrapper, a
replaying cassette) implements the :class:`ChatModel` protocol, so an agent never knows which it
was handed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

__all__ = ["ChatModel", "LLMResponse", "Message", "ToolCallRequest", "Usage"]

Message = dict[str, Any]
"""One OpenAI-style chat message: ``{"role": ..., "content": ..., "tool_calls": ...}``."""


@dataclass(frozen=True)
class ToolCallRequest:
    """A tool call the model asked for.

    Attributes:
        id: the provider's call id (random for real models).
        name: the function name.
        arguments: the raw JSON text of the arguments, exactly as the model produced it.
    """

    id: str
    name: str
    arguments: str

    def to_message_part(self) -> dict[str, Any]:
        """The OpenAI ``tool_calls`` entry for an assistant message."""
        return {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": self.arguments},
        }


@dataclass(frozen=True)
class Usage:
    """Token counts of one model call (zero when the provider reports none)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0


@dataclass(frozen=True)
class LLMResponse:
    """What one model call returned, reduced to what an agent and a cassette need.

    Attributes:
        content: the assistant text (``None`` when the model only called tools).
        tool_calls: tool calls in the order the model emitted them.
        finish_reason: ``stop``, ``tool_calls``, ``length`` ... as reported.
        usage: token counts.
        model: the model name the provider reported (replay carries the recorded one forward).
        latency_s: wall time of the call, retries included.
        raw_completion: for a completion that yielded neither text nor a tool call although
            the model produced tokens, the text the provider returned beside the message
            (e.g. its ``reasoning_content``), if any; ``None`` otherwise.
    """

    content: str | None
    tool_calls: tuple[ToolCallRequest, ...] = ()
    finish_reason: str | None = None
    usage: Usage = field(default_factory=Usage)
    model: str = ""
    latency_s: float = 0.0
    raw_completion: str | None = None

    @property
    def unparsed(self) -> bool:
        """Whether the model produced tokens that became neither text nor a tool call."""
        return not self.content and not self.tool_calls and self.usage.completion_tokens > 0

    def to_assistant_message(self) -> Message:
        """The assistant message to append to the conversation after this response."""
        # "" rather than None: some chat templates (llama.cpp's chatml-function-calling) fail on a
        # missing content even when the message only carries tool calls.
        message: Message = {"role": "assistant", "content": self.content or ""}
        if self.tool_calls:
            message["tool_calls"] = [call.to_message_part() for call in self.tool_calls]
        return message


@runtime_checkable
class ChatModel(Protocol):
    """Anything an agent can call as its model."""

    @property
    def model_name(self) -> str:
        """The model string the run is configured with (e.g. ``local/smollm2``)."""
        ...

    async def complete(
        self,
        messages: Sequence[Message],
        *,
        tools: Sequence[Mapping[str, Any]] | None = None,
        response_format: Mapping[str, Any] | None = None,
        temperature: float | None = None,
        max_tokens: int | None = None,
        seed: int | None = None,
    ) -> LLMResponse:
        """Run one chat completion.

        Args:
            messages: the conversation so far.
            tools: OpenAI-style tool definitions, or ``None`` for a call without tools.
            response_format: e.g. ``{"type": "json_object", "schema": {...}}``.
            temperature: sampling temperature; ``None`` leaves the provider default.
            max_tokens: completion cap; ``None`` leaves the provider default.
            seed: sampling seed sent with the call, if the provider supports one.
        """
        ...
