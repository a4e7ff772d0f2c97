"""The built-in reference agent: a plain tool-calling loop that emits ATIF.

``ReferenceAgent(AgentConfig(...)).run(model, user_input, seed=...)`` runs it once on any
:class:`~trajguard.capture.ChatModel`. Two action modes: ``native`` (provider tool calls,
for capable models) and ``json`` (JSON-constrained actions, which make the embedded 135M model
act like a real, noisy agent). See :mod:`trajguard.agent.loop`.

``converse(agent, model, user, seed=...)`` holds a conversation: the agent answers each message
of a :class:`ScriptedUser` or a model-played :class:`SimulatedUser` in one episode
(:mod:`trajguard.agent.conversation`).
"""

from trajguard.agent.actions import FINAL_ANSWER, Action, MalformedAction, action_schema
from trajguard.agent.conversation import ConversationResult, converse
from trajguard.agent.loop import AgentConfig, AgentMode, AgentResult, ReferenceAgent, derive_seed
from trajguard.agent.tools import Tool, ToolArgumentError, format_result, tool
from trajguard.agent.users import (
    ConversationUser,
    ScriptedUser,
    SimulatedUser,
    StopReason,
    UserMessage,
    user_seed,
)

__all__ = [
    "FINAL_ANSWER",
    "Action",
    "AgentConfig",
    "AgentMode",
    "AgentResult",
    "ConversationResult",
    "ConversationUser",
    "MalformedAction",
    "ReferenceAgent",
    "ScriptedUser",
    "SimulatedUser",
    "StopReason",
    "Tool",
    "ToolArgumentError",
    "UserMessage",
    "action_schema",
    "converse",
    "derive_seed",
    "format_result",
    "tool",
    "user_seed",
]
