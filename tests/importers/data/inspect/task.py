"""A tiny Inspect task for trajguard's importer fixtures: four questions, two prompt variants.

Run against the embedded model's OpenAI-compatible server (see README.md beside this file):
``inspect eval task.py -T variant=a --model openai-api/local/smollm2 --epochs 10``.
"""

from inspect_ai import Task, task
from inspect_ai.dataset import Sample
from inspect_ai.model import GenerateConfig
from inspect_ai.scorer import includes
from inspect_ai.solver import Generate, Solver, TaskState, generate, solver, system_message
from inspect_ai.tool import Tool, ToolFunction, tool

PROMPTS = {
    "a": "You are a helpful assistant. Answer the question in one short sentence.",
    "b": "Reply with a single word.",
}


@tool
def add() -> Tool:
    async def execute(x: int, y: int) -> str:
        """Add two whole numbers.

        Args:
            x: the first number.
            y: the second number.

        Returns:
            Their sum.
        """
        return str(x + y)

    return execute


@solver
def offer_add() -> Solver:
    """Offer the add tool, and make the first call use it, to samples marked ``tool``."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        if state.metadata.get("tool"):
            state.tools = [add()]
            state.tool_choice = ToolFunction(name="add")
        return state

    return solve


@task
def qa(variant: str = "a") -> Task:
    return Task(
        dataset=[
            Sample(id="capital", input="What is the capital of France?", target="Paris"),
            Sample(id="sky", input="What colour is the sky on a clear day?", target="blue"),
            Sample(id="legs", input="How many legs does a dog have?", target=["4", "four"]),
            Sample(
                id="add",
                input="Use the add tool to add 17 and 25.",
                target="42",
                metadata={"tool": True},
            ),
        ],
        solver=[system_message(PROMPTS[variant]), offer_add(), generate()],
        scorer=includes(),
        config=GenerateConfig(max_tokens=64),
        message_limit=8,
    )
