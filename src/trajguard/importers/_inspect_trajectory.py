"""An Inspect sample's messages → an ATIF trajectory.

System and user messages become ``system`` and ``user`` steps; each assistant message becomes
an ``agent`` step (one model call) with its tool calls; each tool message becomes the
observation of the agent step whose call it answers. Text parts are joined; reasoning parts
become ``reasoning_content``; other parts (images, audio, documents) are named in brackets,
since the log keeps them as data URIs that a run set does not store.

A tool call Inspect ran (a tool event) that the messages no longer hold — ``react()`` removes
its ``submit()`` call once the agent ends — is put back on the agent step of the message that
made it (the last agent step when that message is gone), with its result, and marked
``extra.restored_from`` ``"inspect tool event"``: the run's tool calls are Inspect's tool
events.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from trajguard.atif import (
    Agent,
    FinalMetrics,
    Observation,
    ObservationResult,
    Step,
    ToolCall,
    Trajectory,
)

__all__ = ["message_text", "trajectory"]


def trajectory(
    messages: Sequence[Mapping[str, Any]],
    *,
    agent: Agent,
    model: str,
    session_id: str | None,
    totals: tuple[int | None, int | None],
    tool_events: Sequence[Mapping[str, Any]] = (),
) -> Trajectory | None:
    """The trajectory of one sample (``None`` when it has no messages)."""
    steps: list[Step] = []
    callers: dict[str, Step] = {}
    by_message: dict[str, Step] = {}
    for message in messages:
        role = message.get("role")
        text, reasoning = _content(message.get("content"))
        if role == "assistant":
            step = Step(
                step_id=len(steps) + 1,
                source="agent",
                model_name=message.get("model") or model,
                message=text,
                reasoning_content=reasoning,
                tool_calls=[_call(call, len(steps), i) for i, call in enumerate(_calls(message))]
                or None,
                llm_call_count=1,
            )
            for call in step.tool_calls or ():
                callers[call.tool_call_id] = step
            if message.get("id") is not None:
                by_message[str(message["id"])] = step
            steps.append(step)
        elif role == "tool":
            _observe(steps, callers, message, text)
        elif role in ("system", "user"):
            steps.append(Step(step_id=len(steps) + 1, source=role, message=text))
    if not steps:
        return None
    _restore(steps, callers, by_message, tool_events)
    prompt, completion = totals
    metrics = None
    if prompt is not None or completion is not None:
        metrics = FinalMetrics(total_prompt_tokens=prompt, total_completion_tokens=completion)
    return Trajectory(session_id=session_id, agent=agent, steps=steps, final_metrics=metrics)


def message_text(content: Any) -> str:
    """The text of a message's content (a string, or a list of content parts)."""
    return _content(content)[0]


def _content(content: Any) -> tuple[str, str | None]:
    if isinstance(content, str):
        return content, None
    texts: list[str] = []
    reasoning: list[str] = []
    for part in content or ():
        if not isinstance(part, Mapping):
            continue
        kind = part.get("type")
        if kind == "text":
            texts.append(str(part.get("text") or ""))
        elif kind == "reasoning":
            if not part.get("redacted"):
                reasoning.append(str(part.get("reasoning") or ""))
        else:
            texts.append(f"[{kind}]")
    return "\n".join(texts), ("\n".join(reasoning) if reasoning else None)


def _calls(message: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    calls = message.get("tool_calls") or []
    return [call for call in calls if isinstance(call, Mapping)]


def _call(call: Mapping[str, Any], step_index: int, index: int) -> ToolCall:
    arguments = call.get("arguments")
    extra = {"parse_error": call["parse_error"]} if call.get("parse_error") else None
    return ToolCall(
        tool_call_id=str(call.get("id") or f"call_{step_index + 1}_{index + 1}"),
        function_name=str(call.get("function") or ""),
        arguments=dict(arguments) if isinstance(arguments, Mapping) else {},
        extra=extra,
    )


def _observe(
    steps: list[Step], callers: Mapping[str, Step], message: Mapping[str, Any], text: str
) -> None:
    error = message.get("error")
    if isinstance(error, Mapping):
        text = f"{error.get('type', 'error')}: {error.get('message', '')}"
    call_id = message.get("tool_call_id")
    step = callers.get(str(call_id)) if call_id is not None else None
    if step is None:
        # A tool message answering no recorded call: a user step keeps its text.
        steps.append(Step(step_id=len(steps) + 1, source="user", message=text))
        return
    if step.observation is None:
        step.observation = Observation(results=[])
    step.observation.results.append(ObservationResult(source_call_id=str(call_id), content=text))


def _restore(
    steps: Sequence[Step],
    callers: dict[str, Step],
    by_message: Mapping[str, Step],
    tool_events: Sequence[Mapping[str, Any]],
) -> None:
    """Put back the tool calls Inspect ran that the messages no longer hold."""
    agents = [step for step in steps if step.source == "agent"]
    for event in tool_events:
        call_id = str(event.get("id"))
        if call_id in callers:
            continue
        step = by_message.get(str(event.get("caller"))) or (agents[-1] if agents else None)
        if step is None:
            continue  # no agent step to hold it: a sample without assistant messages
        arguments = event.get("arguments")
        call = ToolCall(
            tool_call_id=call_id,
            function_name=str(event.get("function") or ""),
            arguments=dict(arguments) if isinstance(arguments, Mapping) else {},
            extra={"restored_from": "inspect tool event"},
        )
        step.tool_calls = [*(step.tool_calls or []), call]
        callers[call_id] = step
        error, result = event.get("error"), event.get("result")
        if isinstance(error, Mapping):
            text = f"{error.get('type', 'error')}: {error.get('message', '')}"
        elif isinstance(result, str | list):
            text = message_text(result)
        else:
            text = "" if result is None else str(result)
        if step.observation is None:
            step.observation = Observation(results=[])
        step.observation.results.append(ObservationResult(source_call_id=call_id, content=text))
