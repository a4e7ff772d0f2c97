"""An openai-agents Agent, run by trajguard as a ``callable`` agent.

The Agents SDK talks to the run's endpoint (``ctx.base_url``) through the chat-completions
model; trajguard records every call there. ``MaxTurnsExceeded`` is declared in the suite's
``agent_errors``: a run that hits ``max_turns`` is an ``agent_error`` with reason ``max_steps``.
"""

from __future__ import annotations

from agents import (
    Agent,
    ModelSettings,
    OpenAIChatCompletionsModel,
    RunConfig,
    Runner,
    function_tool,
)
from openai import AsyncOpenAI

from trajguard.examples.demo_tools import calculator as evaluate


@function_tool
def calculator(expression: str) -> str:
    """Evaluate an arithmetic expression such as 17 * 23."""
    return evaluate(expression)


def client(ctx) -> AsyncOpenAI:  # noqa: ANN001 - ctx is trajguard.runner.RunContext
    return AsyncOpenAI(base_url=ctx.base_url, api_key=ctx.api_key)


def build_agent(ctx, openai_client: AsyncOpenAI) -> Agent:  # noqa: ANN001
    return Agent(
        name="calculator-agent",
        instructions=ctx.system_prompt,
        tools=[calculator],
        model=OpenAIChatCompletionsModel(model=ctx.model_name, openai_client=openai_client),
        model_settings=ModelSettings(temperature=ctx.temperature, max_tokens=ctx.max_tokens),
    )


async def run(ctx) -> str:  # noqa: ANN001
    async with client(ctx) as openai_client:
        result = await Runner.run(
            build_agent(ctx, openai_client),
            ctx.input,
            max_turns=ctx.max_steps,
            run_config=RunConfig(tracing_disabled=True),  # no trace export from a test run
        )
    return str(result.final_output)  # a returned string is the run's final answer
