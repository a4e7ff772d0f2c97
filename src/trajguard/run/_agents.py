"""Run one scenario once, whatever kind of agent it names, and return its trajectory.

* ``builtin``: the reference agent (:mod:`trajguard.agent`) on the scenario's model;
* ``callable``: ``module:function(ctx)``, sync or async, given a :class:`RunContext`. It may
  return a trajectory (a :class:`~trajguard.atif.Trajectory`, an ATIF dict or JSON text), feed
  ``ctx.recorder``, or call litellm itself and leave capture to zero-code capture. An async
  function runs on the event loop; a sync one in its own daemon thread, under a copy of the
  run's context (so zero-code capture sees its litellm calls), so that it neither blocks the
  other runs nor escapes the per-run timeout. A thread cannot be killed: after a timeout the
  run is recorded as ``timeout`` at once, but the function keeps running in the background until
  it returns (its result is discarded; being a daemon thread, it does not hold the process open);
* ``command``: an external process (argv list, never a shell string) that writes an ATIF file to
  the path substituted for ``{output}``. ``{input}``, ``{model}``, ``{api_base}`` and ``{seed}`` are
  substituted too, and the same values are in the environment as ``TRAJGUARD_INPUT`` …

Errors are sorted here into what the runner records: :class:`~trajguard.errors.AgentFailure`
(the agent misbehaved: data; an invalid trajectory from any kind of agent is one) versus
everything else (harness or infrastructure).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import inspect
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from trajguard.atif import Trajectory, load_trajectory
from trajguard.capture.recorder import TrajectoryRecorder
from trajguard.capture.types import ChatModel
from trajguard.errors import AgentFailure, TrajguardError
from trajguard.run._command import run_command
from trajguard.suite import BuiltinAgent, CallableAgent, ResolvedScenario, import_object

__all__ = ["RunContext", "run_agent", "trajectory_of"]


@dataclass(frozen=True, kw_only=True)
class RunContext:
    """What a ``callable`` agent receives."""

    input: str
    model: ChatModel
    recorder: TrajectoryRecorder
    seed: int
    scenario: str
    variant: str
    system_prompt: str | None
    max_steps: int
    temperature: float | None = None


async def run_agent(
    resolved: ResolvedScenario, *, model: ChatModel, seed: int, api_base: str | None
) -> Trajectory:
    """Run the scenario once and return the trajectory.

    Raises:
        AgentFailure: the agent raised or produced no usable trajectory.
    """
    agent = resolved.agent
    if isinstance(agent, BuiltinAgent):
        return await _run_builtin(resolved, agent, model=model, seed=seed)
    if isinstance(agent, CallableAgent):
        return await _run_callable(resolved, agent, model=model, seed=seed)
    return await run_command(resolved, agent, seed=seed, api_base=api_base)


async def _run_builtin(
    resolved: ResolvedScenario, spec: BuiltinAgent, *, model: ChatModel, seed: int
) -> Trajectory:
    from trajguard.agent import AgentConfig, ReferenceAgent

    config = AgentConfig(
        system_prompt=resolved.system_prompt or "",
        tools=[import_object(path) for path in spec.tools],
        mode=spec.mode,
        max_steps=resolved.max_steps,
        tool_budget=spec.tool_budget,
        temperature=resolved.temperature,
        max_tokens=resolved.max_tokens,
    )
    result = await ReferenceAgent(config).run(model, resolved.input, seed=seed)
    return result.trajectory


async def _run_callable(
    resolved: ResolvedScenario, spec: CallableAgent, *, model: ChatModel, seed: int
) -> Trajectory:
    from trajguard.capture.zerocode import capture_litellm

    function = import_object(spec.function)
    recorder = TrajectoryRecorder(
        agent_name=spec.function, agent_version="0", model_name=model.model_name
    )
    context = RunContext(
        input=resolved.input,
        model=model,
        recorder=recorder,
        seed=seed,
        scenario=resolved.scenario,
        variant=resolved.variant,
        system_prompt=resolved.system_prompt,
        max_steps=resolved.max_steps,
        temperature=resolved.temperature,
    )
    async with capture_litellm(agent_name=spec.function) as captured:
        try:
            returned = await _call(function, context)
        except (TrajguardError, asyncio.CancelledError):
            raise
        except Exception as exc:
            trajectory = recorder.finish(error=exc) if recorder.steps else None
            raise AgentFailure(f"{type(exc).__name__}: {exc}", trajectory=trajectory) from exc
    if returned is not None:
        try:
            return load_trajectory(returned)
        except (TrajguardError, TypeError, ValueError) as exc:
            raise AgentFailure(f"{spec.function} returned an invalid trajectory: {exc}") from None
    if recorder.steps:
        return recorder.finish()
    trajectory = captured.trajectory
    if not trajectory.steps:
        raise AgentFailure(
            f"{spec.function} returned nothing, fed no recorder and made no litellm call"
        )
    return trajectory


async def _call(function: Callable[[RunContext], Any], context: RunContext) -> Any:
    """Call the agent: async on the loop, sync in a thread of its own (see the module doc)."""
    if inspect.iscoroutinefunction(function):
        return await function(context)
    returned = await _in_thread(function, context)
    if inspect.isawaitable(returned):  # a sync callable handing back a coroutine
        returned = await returned
    return returned


async def _in_thread(function: Callable[[RunContext], Any], context: RunContext) -> Any:
    """``asyncio.to_thread`` in a daemon thread of its own.

    Like ``to_thread`` it runs under a copy of the caller's context; unlike it, a run that hangs
    neither occupies a slot of the shared executor (starving later runs) nor keeps the process
    from exiting (``asyncio.run`` and the interpreter wait for executor threads).
    """
    loop = asyncio.get_running_loop()
    future: asyncio.Future[Any] = loop.create_future()
    copied = contextvars.copy_context()

    def settle(value: Any, error: BaseException | None) -> None:
        if future.done():  # cancelled: the run timed out, its result is discarded
            return
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(value)

    def target() -> None:
        value: Any = None
        error: BaseException | None = None
        try:
            value = copied.run(function, context)
        except StopIteration as exc:  # a Future refuses StopIteration: it would never settle
            error = RuntimeError(f"the agent raised StopIteration: {exc}")
        except BaseException as exc:  # handed to the awaiting run, whatever it is
            error = exc
        with contextlib.suppress(RuntimeError):  # the loop closed after a timeout
            loop.call_soon_threadsafe(settle, value, error)

    name = f"trajguard-agent-{context.scenario}/{context.variant}"
    threading.Thread(target=target, name=name, daemon=True).start()
    return await future


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
