"""The pydantic-ai example, with pydantic-ai's own message history written as the run's record."""

from __future__ import annotations

from typing import Any

import _record
import pydantic_ai_agent
from pydantic_ai import capture_run_messages
from pydantic_ai.exceptions import UsageLimitExceeded
from pydantic_ai.messages import ModelRequest, ModelResponse, ToolCallPart, ToolReturnPart


def _write(
    ctx: Any,
    messages: list[Any],
    final: str | None,
    stopped: str | None,
    raised: str | None = None,
) -> None:
    returns = {
        part.tool_call_id: part.model_response_str()
        for message in messages
        if isinstance(message, ModelRequest)
        for part in message.parts
        if isinstance(part, ToolReturnPart)
    }
    responses = [m for m in messages if isinstance(m, ModelResponse)]
    calls = [
        _record.tool_call(part.tool_name, part.args, returns.get(part.tool_call_id))
        for response in responses
        for part in response.parts
        if isinstance(part, ToolCallPart)
    ]
    _record.write(
        ctx,
        model_calls=len(responses),
        tool_calls=calls,
        prompt_tokens=sum(r.usage.input_tokens for r in responses),
        completion_tokens=sum(r.usage.output_tokens for r in responses),
        final_output=final,
        stopped=stopped,
        raised=raised,
    )


async def run(ctx: Any) -> None:
    async with pydantic_ai_agent.client(ctx) as client:
        agent = pydantic_ai_agent.build_agent(ctx, client)
        with capture_run_messages() as messages:
            try:
                result = await agent.run(ctx.input, usage_limits=pydantic_ai_agent.limits(ctx))
            except UsageLimitExceeded:
                _write(ctx, messages, None, "max_steps")
                raise  # the suite's agent_errors makes it a max_steps stop
            except Exception as exc:  # a tool raised: what pydantic-ai recorded until then
                _write(ctx, messages, None, None, raised=type(exc).__name__)
                raise
    _write(ctx, result.all_messages(), str(result.output), None)
