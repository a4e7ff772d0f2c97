"""A smolagents ToolCallingAgent, run by trajguard as a ``callable`` agent.

trajguard hands the agent an OpenAI-compatible endpoint for the run (``ctx.base_url``); every
model call made there is recorded as the run's trajectory. Nothing here exports ATIF.
"""

from __future__ import annotations

from smolagents import OpenAIServerModel, ToolCallingAgent, tool

from trajguard.examples.demo_tools import calculator as evaluate


@tool
def calculator(expression: str) -> str:
    """Evaluate an arithmetic expression such as 17 * 23.

    Args:
        expression: the expression to evaluate.
    """
    return evaluate(expression)


def build_agent(ctx) -> ToolCallingAgent:  # noqa: ANN001 - ctx is trajguard.runner.RunContext
    model = OpenAIServerModel(
        model_id=ctx.model_name,
        api_base=ctx.base_url,
        api_key=ctx.api_key,
        temperature=ctx.temperature,
        max_tokens=ctx.max_tokens,
    )
    return ToolCallingAgent(
        tools=[calculator],
        model=model,
        max_steps=ctx.max_steps,
        instructions=ctx.system_prompt,  # the suite's system_prompt: variants A/B-test it
        verbosity_level=0,
    )


def run(ctx) -> None:  # noqa: ANN001
    agent = build_agent(ctx)
    try:
        result = agent.run(ctx.input, return_full_result=True)
    finally:
        agent.model.client.close()  # the OpenAI client smolagents opened
    if result.state == "max_steps_error":  # smolagents does not raise on its step cap
        ctx.agent_error("max_steps", f"no final answer within {ctx.max_steps} steps")
    # Nothing to return: trajguard reads the answer from the final_answer tool call.
    # (Returning str(result.output) works too: a returned string is the final answer.)
