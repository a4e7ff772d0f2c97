"""What can go wrong with a tool call, and how a suite asks for it.

One table, :data:`FAULT_KINDS`, lists the faults trajguard can inject: into tool calls
(``target="tool"``: builtin agents directly, callable agents through ``ctx.faults.wrap``) and
into model calls made through the wire endpoint (``target="model"``: callable and command
agents, whatever their language). A :class:`FaultSpec` (a suite's ``faults:`` entry) picks a
kind, the tools it hits (``"*"`` for all; model faults hit every model call) and when: with a
probability per call, or at one call index of the tool (or of the model calls).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

__all__ = [
    "FAULTS_KEY",
    "FAULT_KINDS",
    "MODEL_CALLS",
    "FaultKind",
    "FaultSpec",
    "FaultTarget",
    "fault_kind",
]

FAULTS_KEY = "trajguard_faults"
"""The ``step.extra`` key listing the faults that step's tool calls met."""

FaultName = Literal[
    "timeout",
    "rate_limited",
    "exception",
    "corrupt_json",
    "empty_result",
    "contradictory_results",
    "slow",
    "provider_rate_limited",
    "provider_error",
    "truncated_output",
    "malformed_tool_call",
]
FaultTarget = Literal["tool", "model"]
MODEL_CALLS = "<model>"
"""The name model calls are counted under in a plan (no tool can be called that)."""


@dataclass(frozen=True, kw_only=True)
class FaultKind:
    """One kind of tool fault.

    Attributes:
        name: its name in suites and reports.
        meaning: what the agent meets.
        fails: the call fails (an error instead of a result); otherwise the agent gets a result,
            a wrong or late one.
        message: what the error says (``{seconds}`` is replaced), for failing kinds.
        target: what it hits: a tool call, or a model call at the wire endpoint.
    """

    name: FaultName
    meaning: str
    fails: bool
    message: str = ""
    target: FaultTarget = "tool"


FAULT_KINDS: tuple[FaultKind, ...] = (
    FaultKind(
        name="timeout",
        meaning="the call hangs past its limit and is abandoned",
        fails=True,
        message="the tool did not answer within {seconds:g} s",
    ),
    FaultKind(
        name="rate_limited",
        meaning="the tool refuses the call and asks to retry later",
        fails=True,
        message="rate limited: too many requests, retry after {seconds:g} s",
    ),
    FaultKind(
        name="exception",
        meaning="the tool raises",
        fails=True,
        message="the service behind the tool failed",
    ),
    FaultKind(
        name="corrupt_json",
        meaning="the result arrives malformed (cut short JSON)",
        fails=False,
    ),
    FaultKind(name="empty_result", meaning="the result is empty", fails=False),
    FaultKind(
        name="contradictory_results",
        meaning="the result contradicts what the tool answered before (or the truth)",
        fails=False,
    ),
    FaultKind(name="slow", meaning="the result arrives late (real added latency)", fails=False),
    FaultKind(
        name="provider_rate_limited",
        meaning="the model provider answers 429 with a Retry-After header",
        fails=True,
        message="rate limited by the model provider: retry after {seconds:g} s",
        target="model",
    ),
    FaultKind(
        name="provider_error",
        meaning="the model provider answers 503 (a server error)",
        fails=True,
        message="the model provider failed (injected server error)",
        target="model",
    ),
    FaultKind(
        name="truncated_output",
        meaning="the model's answer is cut in half and ends with finish_reason 'length'",
        fails=False,
        target="model",
    ),
    FaultKind(
        name="malformed_tool_call",
        meaning="the model's tool-call arguments arrive as broken JSON (its text is cut when "
        "it called no tool)",
        fails=False,
        target="model",
    ),
)
_BY_NAME: dict[str, FaultKind] = {k.name: k for k in FAULT_KINDS}


def fault_kind(name: str) -> FaultKind:
    """The fault kind called ``name`` (``KeyError`` when unknown)."""
    return _BY_NAME[name]


class FaultSpec(BaseModel):
    """One ``faults:`` entry of a suite: a kind, the tools it hits, and when.

    Exactly one of ``probability`` (each call of a matching tool independently) or ``at_call``
    (the Nth call of each matching tool, counting from 1) is given.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: FaultName
    tools: list[str] | Literal["*"] = "*"
    """Tool names the fault hits, or ``"*"`` for every tool."""
    probability: float | None = Field(default=None, ge=0.0, le=1.0)
    at_call: int | None = Field(default=None, ge=1)
    seconds: float = Field(default=2.0, ge=0.0, le=600.0)
    """For ``timeout`` and ``rate_limited``: the limit or wait the error names; for ``slow``:
    the real latency added."""
    message: str | None = None
    """For failing kinds: the error text instead of the default."""

    @model_validator(mode="after")
    def _one_trigger(self) -> FaultSpec:
        if (self.probability is None) == (self.at_call is None):
            raise ValueError("give exactly one of probability (0 to 1) or at_call (1, 2, ...)")
        if self.target == "model" and self.tools != "*":
            raise ValueError(
                f"{self.kind} hits model calls, not tools: remove its tools (model faults hit "
                "every model call the agent makes through the wire endpoint)"
            )
        return self

    @property
    def target(self) -> FaultTarget:
        """What this fault hits: tool calls or model calls."""
        return _BY_NAME[self.kind].target

    def hits(self, tool: str) -> bool:
        """Whether this fault applies to calls of ``tool`` (:data:`MODEL_CALLS`: model calls)."""
        if (tool == MODEL_CALLS) != (self.target == "model"):
            return False
        return self.tools == "*" or tool in self.tools
