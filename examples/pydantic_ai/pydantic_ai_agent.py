"""A pydantic-ai Agent, run by trajguard as a ``callable`` agent.

pydantic-ai's OpenAI chat model is pointed at the run's endpoint (``ctx.base_url``); trajguard
records every call there. ``UsageLimitExceeded`` (the request limit below) is declared in the
suite's ``agent_errors`` as a ``max_steps`` stop.
"""

from __future__ import annotations

from openai import AsyncOpenAI
from pydantic_ai import Agent
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider
from pydantic_ai.usage import UsageLimits

from trajguard.examples.demo_tools import calculator as evaluate


def calculator(expression: str) -> str:
    """Evaluate an arithmetic expression such as 17 * 23."""
    return evaluate(expression)


def client(ctx) -> AsyncOpenAI:  # noqa: ANN001 - ctx is trajguard.runner.RunContext
    return AsyncOpenAI(base_url=ctx.base_url, api_key=ctx.api_key)


def build_agent(ctx, openai_client: AsyncOpenAI) -> Agent:  # noqa: ANN001
    provider = OpenAIProvider(openai_client=openai_client)
    return Agent(
        OpenAIChatModel(ctx.model_name, provider=provider),
        instructions=ctx.system_prompt,
        tools=[calculator],
        model_settings={"temperature": ctx.temperature, "max_tokens": ctx.max_tokens},
    )


def limits(ctx) -> UsageLimits:  # noqa: ANN001
    return UsageLimits(request_limit=ctx.max_steps)


async def run(ctx) -> str:  # noqa: ANN001
    async with client(ctx) as openai_client:
        agent = build_agent(ctx, openai_client)
        result = await agent.run(ctx.input, usage_limits=limits(ctx))
    return str(result.output)
