"""Build an ATIF trajectory (the current version, v1.8) from a run, one call at a time.

A :class:`TrajectoryRecorder` is fed the system prompt, the user turn, one
:class:`~trajguard.capture.LLMResponse` per model call and the tool results, and
:meth:`~TrajectoryRecorder.finish` returns a trajectory that passes every normative rule
(N1 to N9). It knows nothing about the agent that drives it, so the reference agent, a user's own
loop or litellm callbacks can all feed it.

How a run is written:

* one agent step per model call, with ``llm_call_count = 1``, token metrics from the usage and
  ``model_name`` from the response (falling back to the configured model), so a replayed run that
  carries the recorded model name forward equals its live original;
* tool-call ids are the provider's; a call without an id (JSON-constrained actions, some local
  servers) gets ``call_1``, ``call_2``, ... in recording order, which is deterministic;
* tool results are observation results of the step that made the call (rule N2); feedback that
  answers no call (e.g. "your reply was not valid JSON") is a result with ``source_call_id = null``;
* a completion that became neither a message nor a tool call although the model produced
  tokens (a tool call the provider could not parse, a reply the agent could not read) is marked
  ``extra.completion_unparsed = true`` on its step, with the text it came as in
  ``extra.raw_completion`` when there is one: the tokens were spent on something a reader can
  see;
* an error that ends the run without an exception (step cap, context overflow) is recorded by
  :meth:`~TrajectoryRecorder.agent_error` as ``extra.agent_error = {"reason", "message"}`` on the
  trajectory, not as a synthetic step: no step was produced, and shapes keep counting real ones;
* an exception that escapes the run is stamped as ``extra.crashed = true`` and
  ``extra.error = {"type", "message"}``: a crashed run is a comparable artifact, not a missing one.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from types import TracebackType
from typing import Any, Literal

from trajguard._json import loads_bounded
from trajguard.atif import (
    ATIF_VERSION,
    Agent,
    Content,
    FinalMetrics,
    Metrics,
    Observation,
    ObservationResult,
    Step,
    ToolCall,
    Trajectory,
)
from trajguard.capture._types import LLMResponse, ToolCallRequest

__all__ = ["TrajectoryRecorder", "recording", "utc_timestamp"]


def utc_timestamp(now: datetime | None = None) -> str:
    """ISO 8601 UTC with a ``Z`` suffix and millisecond precision (``2026-01-02T03:04:05.678Z``)."""
    moment = (now or datetime.now(UTC)).astimezone(UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _set(**fields: Any) -> dict[str, Any]:
    # Only fields that carry a value: the writer dumps with exclude_unset, so an explicit None
    # would appear in the file as null.
    return {key: value for key, value in fields.items() if value is not None}


class TrajectoryRecorder:
    """Records one run as an ATIF trajectory of the current version.

    Usable as a context manager, sync or async: leaving the block finishes the trajectory, with
    ``extra.crashed = true`` when the block raised (the exception propagates).

    Args:
        agent_name: ``agent.name`` of the trajectory.
        agent_version: ``agent.version``.
        model_name: the run's configured model (``agent.model_name``, and the fallback for
            agent steps whose response reports no model).
        tool_definitions: OpenAI-style tool definitions offered to the model.
        agent_extra: producer-specific ``agent.extra`` (e.g. the agent's configuration).
        session_id: the run's session id; a random UUID when omitted (volatile either way).
        clock: the time source for step timestamps (tests pin it).
    """

    def __init__(
        self,
        *,
        agent_name: str,
        agent_version: str,
        model_name: str | None = None,
        tool_definitions: Sequence[Mapping[str, Any]] | None = None,
        agent_extra: Mapping[str, Any] | None = None,
        session_id: str | None = None,
        clock: Callable[[], datetime] | None = None,
    ) -> None:
        self._agent = Agent(
            **_set(
                name=agent_name,
                version=agent_version,
                model_name=model_name,
                tool_definitions=[dict(t) for t in tool_definitions]
                if tool_definitions is not None
                else None,
                extra=dict(agent_extra) if agent_extra else None,
            )
        )
        self._model_name = model_name
        self._session_id = session_id or str(uuid.uuid4())
        self._clock = clock or (lambda: datetime.now(UTC))
        self._steps: list[Step] = []
        self._call_ids: set[str] = set()
        self._next_call = 1
        self._agent_error: dict[str, str] | None = None
        self._result: Trajectory | None = None

    @property
    def steps(self) -> tuple[Step, ...]:
        """The steps recorded so far (live objects; read, do not edit)."""
        return tuple(self._steps)

    @property
    def trajectory(self) -> Trajectory | None:
        """The finished trajectory, or ``None`` before :meth:`finish`."""
        return self._result

    @property
    def finished(self) -> bool:
        """Whether :meth:`finish` has been called."""
        return self._result is not None

    def system(self, text: Content, *, extra: Mapping[str, Any] | None = None) -> Step:
        """Record a system step (the system prompt, or a system notice mid-run)."""
        return self._append(source="system", message=text, extra=extra)

    def user(self, text: Content, *, extra: Mapping[str, Any] | None = None) -> Step:
        """Record a user step."""
        return self._append(source="user", message=text, extra=extra)

    def agent_step(
        self,
        response: LLMResponse,
        *,
        tool_calls: Sequence[ToolCall] | None = None,
        message: Content | None = None,
        model_name: str | None = None,
        extra: Mapping[str, Any] | None = None,
    ) -> Step:
        """Record one model call as an agent step (``llm_call_count = 1``).

        Args:
            response: what the model returned; its usage becomes the step's metrics.
            tool_calls: the calls to record instead of ``response.tool_calls`` (an agent whose
                actions are JSON text passes the parsed action here); ids should come from
                :meth:`new_call_id`.
            message: the step's message instead of ``response.content`` (``""`` when neither).
            model_name: overrides the model name; otherwise ``response.model``, then the
                configured model.
            extra: producer-specific ``step.extra``.

        Returns:
            The step; its ``tool_calls`` carry the ids the agent must answer with.
        """
        if tool_calls is None:
            calls = [self._from_request(request) for request in response.tool_calls]
        else:
            calls = [self._claim(call) for call in tool_calls]
        text = message if message is not None else (response.content or "")
        if not text and not calls and response.usage.completion_tokens > 0:
            extra = {**(extra or {}), **_unparsed(response)}
        usage = response.usage
        metrics = Metrics(
            **_set(
                prompt_tokens=usage.prompt_tokens,
                completion_tokens=usage.completion_tokens,
                cached_tokens=usage.cached_tokens or None,
            )
        )
        return self._append(
            source="agent",
            message=text,
            model_name=model_name or response.model or self._model_name,
            tool_calls=calls or None,
            metrics=metrics,
            llm_call_count=1,
            extra=extra,
        )

    def new_call_id(self) -> str:
        """A fresh deterministic tool-call id (``call_1``, ``call_2``, ...) unused in this run."""
        while True:
            candidate = f"call_{self._next_call}"
            self._next_call += 1
            if candidate not in self._call_ids:
                return candidate

    def observe(
        self,
        step: Step,
        call_id: str | None,
        content: Content,
        *,
        extra: Mapping[str, Any] | None = None,
    ) -> ObservationResult:
        """Record a result on the step that made the call.

        Args:
            step: a step returned by this recorder.
            call_id: the ``tool_call_id`` this answers (a call of ``step``), or ``None`` for
                feedback that answers no call.
            content: the result the model will see.
            extra: producer-specific ``result.extra`` (e.g. ``{"error": "unknown_tool"}``).

        Raises:
            ValueError: ``step`` is not one of this run's steps, or ``call_id`` joins none of
                its tool calls (rule N2).
        """
        self._check_open()
        if not any(step is own for own in self._steps):
            raise ValueError("observe() needs a step returned by this recorder")
        if call_id is not None and call_id not in {c.tool_call_id for c in step.tool_calls or ()}:
            raise ValueError(f"tool_call_id {call_id!r} is not a call of step {step.step_id}")
        result = ObservationResult(
            **_set(source_call_id=call_id, content=content, extra=dict(extra) if extra else None)
        )
        if step.observation is None:
            step.observation = Observation(results=[])
        step.observation.results.append(result)
        return result

    def step_for_call(self, call_id: str) -> Step | None:
        """The step whose tool calls include ``call_id`` (for callers that see results later)."""
        for step in reversed(self._steps):
            if any(call.tool_call_id == call_id for call in step.tool_calls or ()):
                return step
        return None

    def agent_error(self, reason: str, message: str) -> None:
        """Record why the run ended without an answer (the last call wins).

        Args:
            reason: a short code such as ``max_steps`` or ``context_overflow``.
            message: a human-readable explanation.
        """
        self._check_open()
        self._agent_error = {"reason": reason, "message": message}

    def finish(self, *, error: BaseException | None = None) -> Trajectory:
        """Close the run and return its trajectory; later calls return the same object.

        Args:
            error: the exception that escaped the run, if any; stamped as ``extra.crashed``
                and ``extra.error``.

        Returns:
            The trajectory, with ``final_metrics`` totals equal to the sum of step metrics.
        """
        if self._result is not None:
            return self._result
        steps = [step.model_copy(deep=True) for step in self._steps]
        metrics = [step.metrics for step in steps if step.metrics is not None]
        cached = [m.cached_tokens for m in metrics if m.cached_tokens is not None]
        final = FinalMetrics(
            **_set(
                total_prompt_tokens=sum(m.prompt_tokens or 0 for m in metrics),
                total_completion_tokens=sum(m.completion_tokens or 0 for m in metrics),
                total_cached_tokens=sum(cached) if cached else None,
                total_steps=len(steps),
            )
        )
        extra: dict[str, Any] = {}
        if self._agent_error is not None:
            extra["agent_error"] = dict(self._agent_error)
        if error is not None:
            extra["crashed"] = True
            extra["error"] = {"type": type(error).__name__, "message": str(error)}
        self._result = Trajectory(
            **_set(
                schema_version=ATIF_VERSION,
                session_id=self._session_id,
                agent=self._agent.model_copy(deep=True),
                steps=steps,
                final_metrics=final,
                extra=extra or None,
            )
        )
        return self._result

    def __enter__(self) -> TrajectoryRecorder:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> Literal[False]:
        self.finish(error=exc)
        return False

    async def __aenter__(self) -> TrajectoryRecorder:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> Literal[False]:
        self.finish(error=exc)
        return False

    def _check_open(self) -> None:
        if self._result is not None:
            raise RuntimeError("the recorder is finished; start a new one for a new run")

    def _append(self, **fields: Any) -> Step:
        self._check_open()
        extra = fields.pop("extra", None)
        step = Step(
            **_set(
                step_id=len(self._steps) + 1,
                timestamp=utc_timestamp(self._clock()),
                extra=dict(extra) if extra else None,
                **fields,
            )
        )
        self._steps.append(step)
        return step

    def _claim(self, call: ToolCall) -> ToolCall:
        if not call.tool_call_id or call.tool_call_id in self._call_ids:
            call = call.model_copy(update={"tool_call_id": self.new_call_id()})
        self._call_ids.add(call.tool_call_id)
        return call

    def _from_request(self, request: ToolCallRequest) -> ToolCall:
        try:
            arguments = loads_bounded(request.arguments) if request.arguments.strip() else {}
        except ValueError:  # no JSON, nested too deep, a number Python will not convert
            arguments = None
        extra = None
        if not isinstance(arguments, dict):
            arguments, extra = {}, {"raw_arguments": request.arguments}
        call = ToolCall(
            **_set(
                tool_call_id=request.id,
                function_name=request.name,
                arguments=arguments,
                extra=extra,
            )
        )
        return self._claim(call)


def _unparsed(response: LLMResponse) -> dict[str, Any]:
    """What a step keeps of a completion that became neither a message nor a tool call."""
    raw = response.content or response.raw_completion
    return {"completion_unparsed": True, **({"raw_completion": raw} if raw else {})}


def recording(
    *,
    agent_name: str,
    agent_version: str,
    model_name: str | None = None,
    tool_definitions: Sequence[Mapping[str, Any]] | None = None,
    agent_extra: Mapping[str, Any] | None = None,
) -> TrajectoryRecorder:
    """A recorder to use as ``with recording(...) as rec:`` or ``async with recording(...)``.

    Leaving the block finishes the trajectory (``rec.trajectory``); if the block raised, the
    trajectory carries ``extra.crashed = true`` and the error, and the exception propagates.
    Arguments are those of :class:`TrajectoryRecorder`.
    """
    return TrajectoryRecorder(
        agent_name=agent_name,
        agent_version=agent_version,
        model_name=model_name,
        tool_definitions=tool_definitions,
        agent_extra=agent_extra,
    )
