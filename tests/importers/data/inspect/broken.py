"""The task of task.py with an add tool that raises: each sample that calls it errors.

``inspect eval broken.py --model openai-api/local/smollm2 --epochs 2`` (see README.md).
"""

from inspect_ai import Task, task
from inspect_ai.dataset import Sample
from inspect_ai.model import GenerateConfig
from inspect_ai.scorer import includes
from inspect_ai.solver import generate, use_tools
from inspect_ai.tool import Tool, ToolFunction, tool


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
        raise RuntimeError("the add tool is broken")

    return execute


@task
def qa_broken() -> Task:
    return Task(
        dataset=[Sample(id="add", input="Use the add tool to add 17 and 25.", target="42")],
        solver=[use_tools(add(), tool_choice=ToolFunction(name="add")), generate()],
        scorer=includes(),
        config=GenerateConfig(max_tokens=64),
        message_limit=8,
    )
