"""The three agent kinds a scenario can name: builtin, callable and command."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, field_validator, model_validator

from trajguard.suite._settings import Strict as _Strict

__all__ = [
    "IMPORT_PATH",
    "MODEL_PLACEHOLDERS",
    "AgentSpec",
    "BuiltinAgent",
    "CallableAgent",
    "CommandAgent",
]

IMPORT_PATH = r"^[\w.]+:[\w.]+$"


class BuiltinAgent(_Strict):
    """The reference agent: a tool-calling loop over Python functions."""

    kind: Literal["builtin"]
    system_prompt: str | None = None
    system_prompt_file: str | None = None
    """A path relative to the suite file."""
    tools: list[Annotated[str, Field(pattern=IMPORT_PATH)]] = Field(default_factory=list)
    mode: Literal["json", "native"] = "json"
    tool_budget: int | None = Field(default=None, ge=0)


class _Prompted(_Strict):
    """What callable and command agents share: a prompt, parameters, a final-answer tool."""

    system_prompt: str | None = None
    system_prompt_file: str | None = None
    """A path relative to the suite file."""
    params: dict[str, Any] = Field(default_factory=dict)
    """Anything the agent reads (``ctx.params`` / ``{params.NAME}``); variants may override keys."""
    final_answer_tool: str | None = "final_answer"
    """A call of this tool on the last agent step is the run's final output (its ``answer``
    argument, or its only argument); ``null`` turns this off."""


class CallableAgent(_Prompted):
    """``module:function`` (sync or async) called with a run context."""

    kind: Literal["callable"]
    function: str = Field(pattern=IMPORT_PATH)
    agent_errors: dict[Annotated[str, Field(pattern=IMPORT_PATH)], str] = Field(
        default_factory=dict
    )
    """Exception types of the agent's framework that end a run as ``agent_error`` with a
    reason (``{"agents.exceptions:MaxTurnsExceeded": max_steps}``) rather than as a crash."""

    @field_validator("agent_errors")
    @classmethod
    def _reasons_are_words(cls, errors: dict[str, str]) -> dict[str, str]:
        for target, reason in errors.items():
            if not reason.strip() or any(c.isspace() for c in reason):
                raise ValueError(f"the reason for {target} must be one word, got {reason!r}")
        return errors


class CommandAgent(_Prompted):
    """An external process; it may write an ATIF file to ``{output}``, else its model calls
    are captured at the wire endpoint."""

    kind: Literal["command"]
    argv: list[str] = Field(min_length=1)
    env: dict[str, str] = Field(default_factory=dict)
    uses_model: bool = True
    """Whether the process calls the scenario's model (handed over as ``{model}`` /
    ``{api_base}`` or ``TRAJGUARD_MODEL`` / ``TRAJGUARD_API_BASE``). ``false`` for an agent that
    brings its own model: trajguard then neither checks nor starts one for it, and it must write
    its trajectory to ``{output}``."""

    @model_validator(mode="after")
    def _model_placeholders_need_the_model(self) -> CommandAgent:
        wants_model = any(f"{{{name}}}" in a for a in self.argv for name in MODEL_PLACEHOLDERS)
        if not self.uses_model and wants_model:
            raise ValueError(
                "argv asks for {model}, {api_base} or {api_key} but uses_model is false: "
                "remove uses_model: false, or the placeholders"
            )
        return self


MODEL_PLACEHOLDERS = ("model", "litellm_model", "api_base", "api_key")
"""Command placeholders that hand over the run's model (refused with ``uses_model: false``)."""


AgentSpec = Annotated[BuiltinAgent | CallableAgent | CommandAgent, Field(discriminator="kind")]
