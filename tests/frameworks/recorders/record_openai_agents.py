"""The openai-agents example, with the SDK's own run items written as the run's record."""

from __future__ import annotations

from typing import Any

import _record
import openai_agents_agent
from agents import RunConfig, Runner
from agents.exceptions import MaxTurnsExceeded
from agents.items import ToolCallItem, ToolCallOutputItem


def _write(
    ctx: Any, raw_responses: list[Any], items: list[Any], final: str | None, stopped: str | None
) -> None:
    outputs = {
        item.raw_item["call_id"]
        if isinstance(item.raw_item, dict)
        else item.raw_item.call_id: item.output
        for item in items
        if isinstance(item, ToolCallOutputItem)
    }
    calls = [
        _record.tool_call(
            item.raw_item.name, item.raw_item.arguments, outputs.get(item.raw_item.call_id)
        )
        for item in items
        if isinstance(item, ToolCallItem)
    ]
    _record.write(
        ctx,
        model_calls=len(raw_responses),
        tool_calls=calls,
        prompt_tokens=sum(r.usage.input_tokens for r in raw_responses),
        completion_tokens=sum(r.usage.output_tokens for r in raw_responses),
        final_output=final,
        stopped=stopped,
    )


async def run(ctx: Any) -> None:
    config = RunConfig(tracing_disabled=True)
    async with openai_agents_agent.client(ctx) as client:
        agent = openai_agents_agent.build_agent(ctx, client)
        try:
            result = await Runner.run(agent, ctx.input, max_turns=ctx.max_steps, run_config=config)
        except MaxTurnsExceeded as exc:
            data = exc.run_data
            _write(ctx, data.raw_responses, data.new_items, None, "max_steps")
            raise  # the suite's agent_errors makes it a max_steps stop
    _write(ctx, result.raw_responses, result.new_items, str(result.final_output), None)
