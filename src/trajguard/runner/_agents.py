"""Run one scenario once, whatever kind of agent it names, and return its trajectory.

* ``builtin``: the reference agent (:mod:`trajguard.agent`) on the scenario's model;
* ``callable``: ``module:function(ctx)``, sync or async, given a :class:`RunContext` (its
  model as a litellm string, an OpenAI-compatible ``base_url`` and ``api_key``, seed,
  temperature, ``max_tokens``, prompt, ``params`` ...). Its model calls are captured at the
  wire endpoint (any client given ``ctx.base_url``) and by zero-code capture of litellm; it may
  also feed ``ctx.recorder``. What it returns: a string is the final answer; an ATIF dict, a
  :class:`~trajguard.atif.Trajectory` or a path to an ATIF file is the trajectory as it is;
  ``None`` leaves the trajectory to capture. An exception type listed in ``agent_errors`` (or
  ``ctx.agent_error(reason, message)``) ends the run as ``agent_error`` with that reason (it
  gave up); any other exception is a ``crash``, ``SystemExit``, ``KeyboardInterrupt`` and
  ``GeneratorExit`` of its own included (never the batch's end), recorded with where the agent's
  own code raised it (:mod:`._raise_site`). Either way the run keeps what was captured until
  then.
  An async function runs on the event loop; a sync one in its own daemon thread, under a copy
  of the run's context (so zero-code capture sees its litellm calls), so that it neither
  blocks the other runs nor escapes the per-run timeout (:mod:`trajguard._user_code`). A thread
  cannot be killed: after a timeout the run is recorded as ``timeout`` at once, but the function
  keeps running in the background until it returns (its result is discarded; its wire requests
  are refused);
* ``command``: an external process (argv list, never a shell string); see :mod:`._command`.

Errors are sorted here into what the runner records: :class:`~trajguard.errors.AgentFailure`
(the agent crashed: data; an invalid trajectory from any kind of agent is one) versus
everything else (harness or infrastructure).
"""

from __future__ import annotations

import asyncio
import inspect
import os
from collections.abc import Callable
from pathlib import Path
from types import MappingProxyType
from typing import Any

from trajguard._text import safe_str
from trajguard._user_code import as_user_code_error, in_thread, is_signal_interrupt
from trajguard.atif import Trajectory, load_trajectory
from trajguard.capture import ChatModel
from trajguard.errors import AgentFailure, TrajguardError, UserCodeError
from trajguard.faults import ToolFaults
from trajguard.runner._captured import RunCapture, agent_name
from trajguard.runner._command import run_command
from trajguard.runner._context import WIRE_API_KEY, RunContext
from trajguard.runner._conversation import Conversation, user_for
from trajguard.runner._raise_site import raise_site
from trajguard.suite import BuiltinAgent, CallableAgent, ResolvedScenario, import_object

__all__ = ["run_agent", "trajectory_of"]


async def run_agent(
    resolved: ResolvedScenario,
    *,
    model: ChatModel,
    seed: int,
    api_base: str | None,
    capture: RunCapture | None = None,
    faults: ToolFaults | None = None,
    state: dict[str, Any] | None = None,
) -> Trajectory:
    """Run the scenario once and return the trajectory.

    Args:
        capture: the run's recorders (its wire session, if any); a fresh one without a wire
            endpoint when omitted.
        faults: the run's fault plan (a builtin agent's tools meet them; a callable agent gets
            them as ``ctx.faults``).
        api_base: the model's own endpoint, for a command agent run without a wire endpoint.
        state: the run's shared state, changed in place by the agent's tools (a builtin
            agent's tools that take ``state``, ``ctx.state``, a command's ``{final_state}``).

    Raises:
        AgentFailure: the agent raised or produced no usable trajectory.
    """
    agent = resolved.agent
    if capture is None:
        capture = RunCapture(agent_name=agent_name(resolved), model_name=resolved.model)
    state = {} if state is None else state
    if isinstance(agent, BuiltinAgent):
        return await _run_builtin(
            resolved, agent, model=model, seed=seed, faults=faults, state=state
        )
    if isinstance(agent, CallableAgent):
        return await _run_callable(
            resolved, agent, model=model, seed=seed, capture=capture, faults=faults, state=state
        )
    base_url = capture.base_url or api_base
    conversation, first = await _conversation(resolved, model, seed)
    if conversation is None:
        return await run_command(
            resolved, agent, seed=seed, api_base=base_url, capture=capture, state=state
        )
    if capture.session is not None:
        capture.session.conversation = conversation.submit
    try:
        trajectory = await run_command(
            resolved.model_copy(update={"input": first}),
            agent,
            seed=seed,
            api_base=base_url,
            capture=capture,
            state=state,
        )
    except AgentFailure as exc:
        if exc.trajectory is not None:
            exc.trajectory = conversation.finish(exc.trajectory)
        raise
    return conversation.finish(trajectory)


async def _run_builtin(
    resolved: ResolvedScenario,
    spec: BuiltinAgent,
    *,
    model: ChatModel,
    seed: int,
    faults: ToolFaults | None,
    state: dict[str, Any],
) -> Trajectory:
    from trajguard.agent import AgentConfig, ReferenceAgent

    config = AgentConfig(
        system_prompt=resolved.system_prompt or "",
        tools=[import_object(path, allowed_modules=resolved.allow_modules) for path in spec.tools],
        mode=spec.mode,
        max_steps=resolved.max_steps,
        tool_budget=spec.tool_budget,
        temperature=resolved.temperature,
        max_tokens=resolved.max_tokens,
        faults=faults,
        state=state,
    )
    if resolved.turns is not None or resolved.user is not None:
        from trajguard.agent import converse
        from trajguard.runner._conversation import user_for

        user = user_for(resolved, model, seed)
        return (await converse(ReferenceAgent(config), model, user, seed=seed)).trajectory
    result = await ReferenceAgent(config).run(model, resolved.input, seed=seed)
    return result.trajectory


def context_for(
    resolved: ResolvedScenario,
    *,
    model: ChatModel,
    seed: int,
    capture: RunCapture,
    faults: ToolFaults | None = None,
    state: dict[str, Any] | None = None,
    conversation: Conversation | None = None,
    first_message: str | None = None,
) -> RunContext:
    """The :class:`RunContext` of one run of a callable agent."""
    extra: dict[str, Any] = {"faults": faults} if faults is not None else {}
    if state is not None:
        extra["state"] = state
    if conversation is not None:
        extra["conversation"] = conversation
    return RunContext(
        **extra,
        input=resolved.input if first_message is None else first_message,
        scenario=resolved.scenario,
        variant=resolved.variant,
        seed=seed,
        temperature=resolved.temperature,
        max_tokens=resolved.max_tokens,
        max_steps=resolved.max_steps,
        system_prompt=resolved.system_prompt,
        params=MappingProxyType(dict(resolved.params)),
        model=model,
        model_name=resolved.model,
        litellm_model=f"openai/{resolved.model}",
        base_url=capture.base_url,
        api_key=WIRE_API_KEY,
        recorder=capture.recorder,
        agent_error=capture.agent_error,
    )


async def _run_callable(
    resolved: ResolvedScenario,
    spec: CallableAgent,
    *,
    model: ChatModel,
    seed: int,
    capture: RunCapture,
    faults: ToolFaults | None,
    state: dict[str, Any],
) -> Trajectory:
    from trajguard.capture.zerocode import capture_litellm

    function = import_object(spec.function, allowed_modules=resolved.allow_modules)
    conversation, first = await _conversation(resolved, model, seed)
    context = context_for(
        resolved,
        model=model,
        seed=seed,
        capture=capture,
        faults=faults,
        state=state,
        conversation=conversation,
        first_message=first,
    )
    declared = {import_object(path): reason for path, reason in spec.agent_errors.items()}

    def site(error: BaseException) -> str | None:
        return raise_site(error, function=function, base_dir=resolved.base_dir)

    async with capture_litellm(agent_name=spec.function) as litellm_capture:
        capture.litellm = litellm_capture
        try:
            returned = await _call(function, context, what=f"agent {spec.function}")
        except UserCodeError as exc:  # SystemExit and the like, raised in its thread
            trajectory = await capture.trajectory(error=exc)
            raise AgentFailure(exc.message, trajectory=trajectory, raised_at=site(exc)) from exc
        except (TrajguardError, asyncio.CancelledError):
            raise
        except Exception as exc:
            reason = next((r for t, r in declared.items() if isinstance(exc, t)), None)
            message = f"{type(exc).__name__}: {safe_str(exc)}"
            if reason is None:
                trajectory = await capture.trajectory(error=exc)
                raise AgentFailure(message, trajectory=trajectory, raised_at=site(exc)) from exc
            capture.agent_error(reason, message)
            returned = None
        except BaseException as exc:  # an async agent's own SystemExit, on the loop
            if is_signal_interrupt(exc):
                raise  # a second Ctrl-C: the batch stops
            escape = as_user_code_error(exc, f"agent {spec.function}")
            trajectory = await capture.trajectory(error=escape)
            failure = AgentFailure(escape.message, trajectory=trajectory, raised_at=site(exc))
            raise failure from escape
    trajectory = await _result(spec.function, returned, capture)
    return conversation.finish(trajectory) if conversation is not None else trajectory


async def _conversation(
    resolved: ResolvedScenario, model: ChatModel, seed: int
) -> tuple[Conversation | None, str | None]:
    """The user's side of a conversational run, and its first message (else two ``None``)."""
    if resolved.turns is None and resolved.user is None:
        return None, None
    conversation = Conversation(user_for(resolved, model, seed), asyncio.get_running_loop())
    return conversation, await conversation.start()


async def _result(name: str, returned: Any, capture: RunCapture) -> Trajectory:
    """What the callable returned, read as the module docstring says."""
    if isinstance(returned, str):
        capture.final_output = returned
    elif returned is not None:
        if not isinstance(returned, Trajectory | dict | os.PathLike):
            raise AgentFailure(
                f"{name} returned a {type(returned).__name__}: return the final answer as a "
                "string, an ATIF trajectory (dict or Trajectory), a path to an ATIF file, "
                "or None"
            )
        try:
            source = Path(returned) if isinstance(returned, os.PathLike) else returned
            given = load_trajectory(source)
        except (TrajguardError, TypeError, ValueError) as exc:
            raise AgentFailure(f"{name} returned an invalid trajectory: {exc}") from None
        return capture.stamp(given, source="returned")
    trajectory = await capture.trajectory()
    if trajectory is None:
        raise AgentFailure(
            f"{name} made no model call trajguard could see and fed no recorder: point the "
            "framework's client at ctx.base_url (or litellm at ctx.litellm_model with "
            "api_base=ctx.base_url), or return an ATIF trajectory"
        )
    return trajectory


async def _call(function: Callable[[RunContext], Any], context: RunContext, *, what: str) -> Any:
    """Call the agent: async on the loop, sync in a thread of its own (see the module doc)."""
    if inspect.iscoroutinefunction(function):
        return await function(context)
    name = f"trajguard-agent-{context.scenario}/{context.variant}"
    returned = await in_thread(function, context, what=what, name=name)
    if inspect.isawaitable(returned):  # a sync callable handing back a coroutine
        returned = await returned
    return returned


def trajectory_of(error: BaseException) -> Trajectory | None:
    """The partial trajectory an error (or the error it was raised from) carries, if any.

    The reference agent stamps the finished trajectory on any exception that escapes a run,
    cancellation included; ``asyncio.wait_for`` raises its ``TimeoutError`` from that one.
    """
    for candidate in (error, error.__cause__, error.__context__):
        found: Any = getattr(candidate, "trajectory", None)
        if isinstance(found, Trajectory):
            return found
    return None
