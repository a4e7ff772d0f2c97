"""The LangGraph example, with the graph's own message state written as the run's record."""

from __future__ import annotations

from typing import Any

import _record
import langgraph_agent
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langgraph.errors import GraphRecursionError


def _write(ctx: Any, messages: list[Any], final: str | None, stopped: str | None) -> None:
    results = {m.tool_call_id: m.content for m in messages if isinstance(m, ToolMessage)}
    answers = [m for m in messages if isinstance(m, AIMessage)]
    calls = [
        _record.tool_call(call["name"], call["args"], results.get(call["id"]))
        for message in answers
        for call in message.tool_calls
    ]
    _record.write(
        ctx,
        model_calls=len(answers),
        tool_calls=calls,
        prompt_tokens=sum((m.usage_metadata or {}).get("input_tokens", 0) for m in answers),
        completion_tokens=sum((m.usage_metadata or {}).get("output_tokens", 0) for m in answers),
        final_output=final,
        stopped=stopped,
    )


def run(ctx: Any) -> None:
    graph = langgraph_agent.build_agent(ctx)
    state: dict[str, Any] = {"messages": []}
    inputs = {"messages": [HumanMessage(ctx.input)]}
    try:
        for values in graph.stream(inputs, langgraph_agent.config(ctx), stream_mode="values"):
            state = values  # the last state survives the step cap
    except GraphRecursionError:
        _write(ctx, state["messages"], None, "max_steps")
        raise  # the suite's agent_errors makes it a max_steps stop
    _write(ctx, state["messages"], str(state["messages"][-1].content), None)
