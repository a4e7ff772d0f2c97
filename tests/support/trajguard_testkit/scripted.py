"""A ``ChatModel`` that answers from a function of the conversation, for the run tests."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from trajguard.capture import LLMResponse, Message, Usage

PING: list[Message] = [{"role": "user", "content": "ping"}]
"""The batch's one-word model check: answered ``pong`` and not recorded."""

Reply = Callable[[Sequence[Message], dict[str, Any]], Any]
"""``reply(messages, options)``: an ``LLMResponse``, or its text (40 prompt and 8 completion
tokens), or a coroutine giving either."""


class Scripted:
    """Answers each call with ``reply(messages, options)`` (runs share one instance); ``calls``
    keeps each call's messages and options (the batch's model check excepted)."""

    def __init__(self, reply: Reply, name: str = "fake/scripted") -> None:
        self._reply = reply
        self._name = name
        self.calls: list[tuple[list[Message], dict[str, Any]]] = []

    @property
    def model_name(self) -> str:
        return self._name

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
        if list(messages) == PING:
            return LLMResponse(content="pong")
        options = {
            "tools": tools,
            "response_format": response_format,
            "temperature": temperature,
            "max_tokens": max_tokens,
            "seed": seed,
        }
        self.calls.append((list(messages), options))
        reply = self._reply(messages, options)
        if asyncio.iscoroutine(reply):
            reply = await reply
        if isinstance(reply, LLMResponse):
            return reply
        return LLMResponse(content=reply, usage=Usage(prompt_tokens=40, completion_tokens=8))
