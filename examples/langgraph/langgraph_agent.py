"""A LangGraph tool-calling graph over langchain-openai, run by trajguard as a ``callable``.

``ChatOpenAI`` is pointed at the run's endpoint (``ctx.base_url``); trajguard records every call
there. ``GraphRecursionError`` (the step cap) is declared in the suite's ``agent_errors``.
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage
from langchain_core.tools import tool
from langchain_openai import ChatOpenAI
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition

from trajguard.examples.demo_tools import calculator as evaluate


@tool
def calculator(expression: str) -> str:
    """Evaluate an arithmetic expression such as 17 * 23."""
    return evaluate(expression)


def build_agent(ctx) -> Any:  # noqa: ANN001 - ctx is trajguard.runner.RunContext
    llm = ChatOpenAI(
        model=ctx.model_name,
        base_url=ctx.base_url,
        api_key=ctx.api_key,
        temperature=ctx.temperature,
        max_tokens=ctx.max_tokens,
        max_retries=0,
    ).bind_tools([calculator])
    system = [SystemMessage(ctx.system_prompt)] if ctx.system_prompt else []

    def call_model(state: MessagesState) -> dict[str, Any]:
        return {"messages": [llm.invoke([*system, *state["messages"]])]}

    graph = StateGraph(MessagesState)
    graph.add_node("model", call_model)
    graph.add_node("tools", ToolNode([calculator]))
    graph.add_edge(START, "model")
    graph.add_conditional_edges("model", tools_condition, {"tools": "tools", END: END})
    graph.add_edge("tools", "model")
    return graph.compile()


def config(ctx) -> dict[str, Any]:  # noqa: ANN001
    return {"recursion_limit": 2 * ctx.max_steps}  # a model and a tools node per step


def run(ctx) -> str:  # noqa: ANN001
    state = build_agent(ctx).invoke({"messages": [HumanMessage(ctx.input)]}, config(ctx))
    return str(state["messages"][-1].content)
