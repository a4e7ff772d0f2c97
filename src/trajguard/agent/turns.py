"""One turn of the reference agent: record the response, run the tools, extend the conversation.

Every way a tool call can fail becomes an observation the model reads on its next turn, starting
with ``Error:``, and an ``extra.error`` code on the observation result so analyses can count
them: ``malformed_action``, ``unknown_tool``, ``invalid_arguments``, ``tool_error`` (the tool
raised), ``budget_exhausted`` (a native call past the tool budget, answered but not run).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from typing import Any

from trajguard._text import safe_str
from trajguard._user_code import as_user_code_error, is_signal_interrupt
from trajguard.agent.actions import (
    ACTION_KEY,
    FINAL_ANSWER,
    MalformedAction,
    action_schema,
    parse_action,
)
from trajguard.agent.tools import Tool, ToolArgumentError, format_result
from trajguard.atif import Step, ToolCall
from trajguard.capture import LLMResponse, Message, TrajectoryRecorder
from trajguard.errors import UserCodeError
from trajguard.faults import FAULTS_KEY, ToolFaults

__all__ = ["Turns"]

_REPLY_FORMAT = (
    f"Reply with one JSON object: {ACTION_KEY} (a tool name) with its arguments, or "
    f"{ACTION_KEY} {FINAL_ANSWER} with an answer."
)
_BUDGET_SPENT = "Error: the tool budget is spent; this call was not run. Give your final answer."


class Turns:
    """The mutable state of one run: the conversation and the number of tool calls made.

    Args:
        tools: the agent's tools by name.
        recorder: where steps and observations go.
        messages: the conversation, extended in place.
        tool_budget: tool calls allowed in the run (``None``: no limit).
        faults: the run's injected tool faults, if any (:mod:`trajguard.faults`).
        state: the run's shared state, handed to tools that take ``state``.
    """

    def __init__(
        self,
        tools: Mapping[str, Tool],
        recorder: TrajectoryRecorder,
        messages: list[Message],
        *,
        tool_budget: int | None = None,
        faults: ToolFaults | None = None,
        state: Any = None,
    ) -> None:
        self.faults = faults
        self.state = state
        self.tools = tools
        self.recorder = recorder
        self.messages = messages
        self.tool_budget = tool_budget
        self.tool_calls = 0
        self.model_calls = 0
        """Model calls made so far in the run (the next call's seed index)."""
        self._schema = action_schema(list(tools.values()))

    @property
    def budget_spent(self) -> bool:
        """Whether the tool budget is used up (never, without a budget)."""
        return self.tool_budget is not None and self.tool_calls >= self.tool_budget

    def response_format(self) -> dict[str, Any]:
        """The JSON-mode ``response_format`` (the form the llama.cpp server enforces)."""
        return {"type": "json_object", "schema": self._schema}

    async def json(self, response: LLMResponse) -> str | None:
        """Handle a JSON-mode reply; returns the answer if the model gave one."""
        text = response.content or ""
        try:
            action = parse_action(text)
        except MalformedAction as exc:
            step = self.recorder.agent_step(response, message=text)
            feedback = f"Error: {exc}. {_REPLY_FORMAT}"
            self.recorder.observe(step, None, feedback, extra={"error": "malformed_action"})
            self._extend({"role": "assistant", "content": text}, feedback)
            return None
        if action.name == FINAL_ANSWER:
            answer = action.answer or ""
            self.recorder.agent_step(response, message=answer)
            return answer
        arguments = action.arguments if action.arguments is not None else {}
        call_fields: dict[str, Any] = {"arguments": arguments}
        if not isinstance(arguments, dict):
            call_fields = {"arguments": {}, "extra": {"raw_arguments": json.dumps(arguments)}}
        call = ToolCall(
            tool_call_id=self.recorder.new_call_id(), function_name=action.name, **call_fields
        )
        step = self.recorder.agent_step(response, tool_calls=[call], message="")
        content, error, fault = await self.execute(action.name, arguments)
        self._observe(step, call.tool_call_id, action.name, content, error, fault)
        self.tool_calls += 1
        self._extend({"role": "assistant", "content": text}, f"Result of {action.name}: {content}")
        return None

    async def native(self, response: LLMResponse) -> str | None:
        """Handle a native-mode reply; returns the answer if the model called no tool."""
        step = self.recorder.agent_step(response)
        calls = step.tool_calls or []
        if not calls:
            return response.content or ""
        self.messages.append(
            {
                "role": "assistant",
                # "" not None: litellm drops a None content, and llama.cpp's template needs one
                "content": response.content or "",
                "tool_calls": [
                    {
                        "id": call.tool_call_id,
                        "type": "function",
                        "function": {"name": call.function_name, "arguments": request.arguments},
                    }
                    for call, request in zip(calls, response.tool_calls, strict=True)
                ],
            }
        )
        for call in calls:
            content: str
            error: str | None
            fault: str | None = None
            if self.budget_spent:
                content = _BUDGET_SPENT
                error = "budget_exhausted"
            else:
                raw = (call.extra or {}).get("raw_arguments")
                arguments: Any = call.arguments if raw is None else raw
                content, error, fault = await self.execute(call.function_name, arguments)
                self.tool_calls += 1
            self._observe(step, call.tool_call_id, call.function_name, content, error, fault)
            self.messages.append(
                {"role": "tool", "tool_call_id": call.tool_call_id, "content": content}
            )
        return None

    async def execute(self, name: str, arguments: Any) -> tuple[str, str | None, str | None]:
        """Run one tool call; returns the text the model sees, an error code or ``None``, and
        the kind of the fault injected into it, if any."""
        found = self.tools.get(name)
        if found is None:
            known = ", ".join(self.tools) or "none"
            return f"Error: unknown tool {name!r}. Available tools: {known}.", "unknown_tool", None
        if not isinstance(arguments, Mapping):
            return (
                f"Error: invalid arguments for {name}: arguments must be a JSON object, "
                f"got {arguments!r:.80}",
                "invalid_arguments",
                None,
            )
        injected = len(self.faults.events) if self.faults is not None else 0
        try:
            if self.faults is None:
                value = await found.call(arguments, state=self.state)
            else:
                found.validate(arguments)  # a call the tool refuses is not a call it answers
                value = await self.faults.apply(
                    name, lambda: found.call(arguments, state=self.state)
                )
        except ToolArgumentError as exc:
            return f"Error: {exc}", "invalid_arguments", None
        except UserCodeError:  # SystemExit and the like, from a sync tool: the run's failure
            raise
        except Exception as exc:  # the tool's own failure is data for the model, not a crash
            text = f"Error: {type(exc).__name__}: {safe_str(exc)}"
            return text, "tool_error", self._fault(injected)
        except asyncio.CancelledError:
            raise
        except BaseException as exc:  # an async tool's own SystemExit and the like
            if is_signal_interrupt(exc):
                raise  # a second Ctrl-C: the batch stops
            raise as_user_code_error(exc, f"tool {name}") from None
        try:
            return format_result(value), None, self._fault(injected)
        except Exception as exc:  # a cycle, a generator, a str() that raises: still the tool's
            text = f"Error: the result of {name} cannot be shown: {type(exc).__name__}: "
            return text + safe_str(exc), "tool_error", self._fault(injected)

    def _fault(self, before: int) -> str | None:
        """The kind of the fault the last call met (``before``: events logged before it)."""
        if self.faults is None or len(self.faults.events) == before:
            return None
        return self.faults.events[-1].kind

    def _observe(
        self,
        step: Step,
        call_id: str,
        tool: str,
        content: str,
        error: str | None,
        fault: str | None,
    ) -> None:
        extra = {key: value for key, value in (("error", error), ("fault", fault)) if value}
        self.recorder.observe(step, call_id, content, extra=extra or None)
        if fault is not None:  # the step that met it says so, for analyses and criteria
            record = {"tool_call_id": call_id, "tool": tool, "kind": fault}
            step.extra = {
                **(step.extra or {}),
                FAULTS_KEY: [*(step.extra or {}).get(FAULTS_KEY, []), record],
            }

    def _extend(self, assistant: Message, feedback: str) -> None:
        self.messages.append(assistant)
        self.messages.append({"role": "user", "content": feedback})
