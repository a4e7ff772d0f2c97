"""What a ``callable`` agent is handed: the run's inputs and every way to reach its model."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from trajguard.capture import ChatModel, TrajectoryRecorder
from trajguard.faults import FaultPlan, ToolFaults

if TYPE_CHECKING:
    from trajguard.runner._conversation import Conversation

__all__ = ["WIRE_API_KEY", "RunContext"]

WIRE_API_KEY = "sk-trajguard-wire"
"""The key clients send to the wire endpoint: it checks none (OpenAI clients insist on one)."""


@dataclass(frozen=True, kw_only=True)
class RunContext:
    """What a ``callable`` agent receives.

    To use a framework, point its OpenAI-compatible client at ``base_url`` with ``api_key``
    and ``model_name`` (or give litellm ``litellm_model`` with ``api_base=base_url``): every
    call is then recorded as this run's trajectory at the wire endpoint, whatever the
    framework, and the model is the run's (the ``model`` a request names is not looked at).
    """

    input: str
    """The scenario's input (the task)."""
    scenario: str
    variant: str
    seed: int
    """The run's seed (derived from the batch seed and the run id)."""
    temperature: float | None
    max_tokens: int | None
    max_steps: int
    system_prompt: str | None
    """The agent's ``system_prompt`` / ``system_prompt_file`` under this variant."""
    params: Mapping[str, Any]
    """The agent's ``params`` with the variant's merged over them (read-only)."""
    model: ChatModel
    """trajguard's model object (``await ctx.model.complete(messages)``); not a framework's."""
    model_name: str
    """The run's model string (``local/smollm2``): the ``model`` to send to ``base_url``."""
    litellm_model: str
    """A litellm model string that reaches the run's model through ``base_url``
    (``openai/local/smollm2``): pass it with ``api_base=ctx.base_url, api_key=ctx.api_key``."""
    base_url: str | None
    """The OpenAI-compatible endpoint of this run (``http://127.0.0.1:PORT/runs/TOKEN/v1``);
    ``None`` only when the agent is run outside a batch."""
    api_key: str
    """The key to send with ``base_url`` (not a secret: the endpoint checks none)."""
    recorder: TrajectoryRecorder
    """Feed it to record the run yourself (then it is the trajectory)."""
    agent_error: Callable[[str, str], None]
    """``ctx.agent_error("max_steps", "stopped after 8 steps")``: the run ended without an
    answer (recorded as ``agent_error`` with that reason, not as a crash)."""
    faults: ToolFaults = field(default_factory=lambda: ToolFaults(plan=FaultPlan(seed=0, specs=())))
    """The run's tool faults (the scenario's ``faults:``): wrap each tool function with
    ``ctx.faults.wrap(function)`` (or ``wrap(function, name="search")``) before handing it to
    the framework, and its calls meet the run's faults; they are written onto the captured
    steps afterwards. Without ``faults:`` the wrapper changes nothing."""
    state: dict[str, Any] = field(default_factory=dict)
    """The run's shared state: a copy of the scenario's ``state:`` of its own (``{}`` without
    one). The agent's tools read and change it in place; what it holds when the agent returns
    is the run's final state (``extra.final_state``, read by ``final_state`` criteria)."""
    conversation: Conversation | None = None
    """The user's side of a conversation (a scenario with ``turns:`` or ``user:``), else
    ``None``: ``ctx.input`` is the user's first message; hand over each answer with
    ``next_message = await ctx.conversation.areply(answer)`` (``.reply`` in a sync agent) and
    stop when it is ``None`` (docs/how-to/frameworks.md, "Conversations")."""
