"""The Inspect tasks behind the committed logs of tests/importers/data/inspect/ (make_logs.py).

``react_submit``: Inspect's ``react()`` agent with an ``add`` tool; each sample calls ``add``
then ``submit()``, the answer of one sample wrong. ``react()`` removes the ``submit()`` call from
the sample's messages once the agent ends; the log keeps it as a tool event.

``troubles``: ``generate()`` with two tools and two scorers, ``includes()`` and the dict scorer
``shape`` (keys ``correct`` and ``short``), under a message limit and a token limit; its
samples answer right, answer wrong, call a tool that raises (an errored sample), loop on a tool
until the message limit, and loop verbosely until the token limit.

Both are answered by the scripted model (scripted_model.py).
"""

from __future__ import annotations

from inspect_ai import Task, task
from inspect_ai.agent import react
from inspect_ai.dataset import Sample
from inspect_ai.scorer import (
    CORRECT,
    INCORRECT,
    Score,
    Scorer,
    Target,
    accuracy,
    includes,
    scorer,
)
from inspect_ai.solver import TaskState, generate, use_tools
from inspect_ai.tool import Tool, tool

MESSAGE_LIMIT = 8
TOKEN_LIMIT = 1200
SHORT_WORDS = 5


@tool
def add() -> Tool:
    async def execute(x: int, y: int) -> int:
        """Add two numbers.

        Args:
            x: the first number.
            y: the second number.
        """
        return x + y

    return execute


@tool
def lookup() -> Tool:
    async def execute(country: str) -> str:
        """Look up the capital of a country.

        Args:
            country: the country.
        """
        raise RuntimeError(f"the lookup service is down (asked for {country})")

    return execute


@scorer(metrics={"correct": [accuracy()], "short": [accuracy()]})
def shape() -> Scorer:
    async def score(state: TaskState, target: Target) -> Score:
        answer = state.output.completion
        right = target.text.lower() in answer.lower()
        short = len(answer.split()) <= SHORT_WORDS
        return Score(
            value={
                "correct": CORRECT if right else INCORRECT,
                "short": CORRECT if short else INCORRECT,
            },
            answer=answer,
        )

    return score


@task
def react_submit() -> Task:
    return Task(
        dataset=[
            Sample(id="two-plus-two", input="What is 2 + 2?", target="4"),
            Sample(id="three-plus-five", input="What is 3 + 5?", target="8"),
            Sample(id="seven-plus-six", input="What is 7 + 6?", target="13"),
        ],
        solver=react(tools=[add()]),
        scorer=includes(),
    )


@task
def troubles() -> Task:
    return Task(
        dataset=[
            Sample(id="right", input="What is the capital of France?", target="Paris"),
            Sample(id="wrong", input="What is the capital of Italy?", target="Rome"),
            Sample(id="raises", input="Look up the capital of Spain.", target="Madrid"),
            Sample(id="messages", input="What is 1 + 1?", target="2"),
            Sample(id="tokens", input="Explain why the sky is blue.", target="Rayleigh"),
        ],
        solver=[use_tools([add(), lookup()]), generate()],
        scorer=[includes(), shape()],
        message_limit=MESSAGE_LIMIT,
        token_limit=TOKEN_LIMIT,
    )
