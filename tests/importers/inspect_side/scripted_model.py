"""A scripted model for Inspect: ``--model scripted/<name>`` answers each sample by its script.

Registered with Inspect's own ``@modelapi`` when this module is imported, so an eval run with it
goes through Inspect's real eval loop, solvers (``react()`` included), tool calls, limits,
scorers and log writer; only the model's replies are fixed in advance, so the logs they write
are the same on every machine. A sample's script is chosen by its input text (``SCRIPTS``); the
n-th reply is the script's n-th turn (the number of assistant messages so far), its last turn
repeated once the script runs out. A turn is a text, or a tool call ``(function, arguments)``
with a text beside it.

Token usage is counted as a whitespace split of the input and of the reply (no tokenizer is
downloaded); a turn may state its own output tokens (``tokens=``) to reach a token limit.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    GenerateConfig,
    ModelAPI,
    ModelOutput,
    ModelUsage,
    modelapi,
)
from inspect_ai.tool import ToolCall, ToolChoice, ToolInfo

__all__ = ["SCRIPTS", "ScriptedAPI", "Turn"]


@dataclass(frozen=True)
class Turn:
    """One reply: ``text``, and a call of ``function`` with ``arguments`` when one is named."""

    text: str = ""
    function: str | None = None
    arguments: dict[str, Any] = field(default_factory=dict)
    tokens: int | None = None


SCRIPTS: dict[str, list[Turn]] = {
    # react(): a tool call, then submit() of the answer (right or wrong)
    "What is 2 + 2?": [Turn("Let me add.", "add", {"x": 2, "y": 2}), Turn("", "submit", {"answer": "4"})],  # noqa: E501
    "What is 3 + 5?": [Turn("Adding.", "add", {"x": 3, "y": 5}), Turn("", "submit", {"answer": "8"})],  # noqa: E501
    "What is 7 + 6?": [Turn("Adding.", "add", {"x": 7, "y": 6}), Turn("", "submit", {"answer": "15"})],  # noqa: E501
    # troubles: right, wrong, a tool that raises, a loop until the message limit, a verbose
    # loop until the token limit
    "What is the capital of France?": [Turn("Paris.")],
    "What is the capital of Italy?": [Turn("Milan, I think, is the capital.")],
    "Look up the capital of Spain.": [Turn("Looking it up.", "lookup", {"country": "Spain"})],
    "What is 1 + 1?": [Turn("The answer is 2; let me check it again.", "add", {"x": 1, "y": 1})],
    "Explain why the sky is blue.": [
        Turn("Rayleigh scattering makes the sky blue; let me say more.", "add", {"x": 0, "y": 0},
             tokens=700)
    ],
}  # fmt: skip


def _words(messages: list[ChatMessage]) -> int:
    return sum(len(message.text.split()) for message in messages)


@modelapi(name="scripted")
class ScriptedAPI(ModelAPI):
    def __init__(
        self,
        model_name: str,
        base_url: str | None = None,
        api_key: str | None = None,
        config: GenerateConfig | None = None,
        **model_args: Any,
    ) -> None:
        super().__init__(
            model_name=model_name,
            base_url=base_url,
            api_key=api_key,
            config=config or GenerateConfig(),
        )
        self._ids = itertools.count(1)

    async def count_text_tokens(self, text: str) -> int:
        return len(text.split())

    async def generate(
        self,
        input: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput:
        question = next(m.text for m in input if m.role == "user")
        script = SCRIPTS[question.strip()]
        done = sum(1 for m in input if m.role == "assistant")
        turn = script[min(done, len(script) - 1)]
        calls = None
        if turn.function is not None:
            calls = [
                ToolCall(
                    id=f"call_{next(self._ids)}",
                    function=turn.function,
                    arguments=dict(turn.arguments),
                )
            ]
        message = ChatMessageAssistant(
            content=turn.text, tool_calls=calls, model=self.model_name, source="generate"
        )
        output = ModelOutput.from_message(message, stop_reason="tool_calls" if calls else "stop")
        prompt = _words(input)
        completion = turn.tokens or max(1, len(turn.text.split()))
        output.usage = ModelUsage(
            input_tokens=prompt, output_tokens=completion, total_tokens=prompt + completion
        )
        output.model = self.model_name
        return output
