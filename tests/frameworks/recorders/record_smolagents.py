"""The smolagents example, with smolagents' own memory written as the run's record."""

from __future__ import annotations

from typing import Any

import _record
import smolagents_agent


def run(ctx: Any) -> None:
    agent = smolagents_agent.build_agent(ctx)
    try:
        run_result = agent.run(ctx.input, return_full_result=True)
    except Exception as exc:  # what smolagents recorded until it raised is the record
        _write(ctx, agent, None, raised=type(exc).__name__)
        raise
    finally:
        agent.model.client.close()
    stopped = "max_steps" if run_result.state == "max_steps_error" else None
    if stopped:
        ctx.agent_error("max_steps", f"no final answer within {ctx.max_steps} steps")
    # at its step cap smolagents still answers, with one more model call: that is its output
    _write(ctx, agent, str(run_result.output), stopped=stopped)


def _write(
    ctx: Any,
    agent: Any,
    final: str | None,
    *,
    stopped: str | None = None,
    raised: str | None = None,
) -> None:
    calls, errors, model_calls, prompt, completion = [], [], 0, 0, 0
    for step in agent.memory.steps:
        usage = getattr(step, "token_usage", None)
        if usage is not None:
            model_calls += 1
            prompt += usage.input_tokens
            completion += usage.output_tokens
        error = getattr(step, "error", None)
        if error is not None:
            errors.append(str(error))
        # the calls the model made (memory keeps step.tool_calls only when they ran)
        message = getattr(step, "model_output_message", None)
        from_text = not _api_tool_calls(message)
        for call in getattr(message, "tool_calls", None) or ():
            name, arguments = call.function.name, call.function.arguments
            sent_back = error is None and name != "final_answer"
            output = step.observations if sent_back else None
            calls.append(_record.tool_call(name, arguments, output, from_text=from_text))
    _record.write(
        ctx,
        model_calls=model_calls,
        tool_calls=calls,
        prompt_tokens=prompt,
        completion_tokens=completion,
        final_output=final,
        errors=errors,
        stopped=stopped,
        raised=raised,
    )


def _api_tool_calls(message: Any) -> bool:
    """Whether the model's response itself carried tool calls (smolagents also parses calls
    out of a text answer: the model then sent text, which is what the wire records)."""
    raw = getattr(message, "raw", None)
    choices = getattr(raw, "choices", None) or []
    return bool(choices and getattr(choices[0].message, "tool_calls", None))
