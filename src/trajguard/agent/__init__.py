"""The built-in reference agent: a plain tool-calling loop that emits ATIF.

``ReferenceAgent(AgentConfig(...)).run(model, user_input, seed=...)`` runs it once on any
:class:`~trajguard.capture.types.ChatModel`. Two action modes: ``native`` (provider tool calls,
for capable models) and ``json`` (JSON-constrained actions, which make the embedded 135M model
act like a real, noisy agent). See :mod:`trajguard.agent.loop`.
"""

from trajguard.agent.actions import FINAL_ANSWER, Action, MalformedAction, action_schema
from trajguard.agent.loop import AgentConfig, AgentMode, AgentResult, ReferenceAgent, derive_seed
from trajguard.agent.tools import Tool, ToolArgumentError, format_result, tool

__all__ = [
    "FINAL_ANSWER",
    "Action",
    "AgentConfig",
    "AgentMode",
    "AgentResult",
    "MalformedAction",
    "ReferenceAgent",
    "Tool",
    "ToolArgumentError",
    "action_schema",
    "derive_seed",
    "format_result",
    "tool",
]
