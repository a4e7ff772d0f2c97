"""Record model calls into a cassette once; replay them strictly, detecting request drift.

:class:`RecordingModel` wraps any :class:`~trajguard.capture.ChatModel`: it forwards each
call and stores the (redacted) request and response. :class:`ReplayModel` stands in for the
model and answers from a :class:`~trajguard.capture.Cassette`, in order:

* a call beyond the recording raises :class:`~trajguard.errors.ScriptExhausted` ("call 4 of 3
  recorded"): an agent that makes one more model call is the regression frozen mode exists for;
* a request whose fingerprint differs from the recorded one raises
  :class:`~trajguard.errors.RequestDrift` naming the first differing message (index, role, a
  short before/after), or the tools or params that differ: a prompt edit must not keep passing on
  a stale cassette;
* ``model_name`` and every response's ``model`` are the recorded ones, so a replayed trajectory
  equals its live original even though no model ran;
* a recorded :class:`~trajguard.errors.ModelRequestError` is raised again.

**A recorded run and its replay give the same trajectory.** While recording, the agent is handed
each response exactly as the replay will return it: redacted (a ``trajguard_redact`` pattern that
matches a response makes the recording run see ``[REDACTED]`` too), with the live
``latency_s``, which no trajectory carries. A :class:`~trajguard.errors.ModelRequestError` is
re-raised redacted, and ``model_name`` is the redacted name. So a golden written by the
recording run (``--golden-update``) is the golden the replay compares with, and no secret that a
pattern catches reaches the golden file.

Request parameters a model adds to every call (``LiteLLMModel(extra_params={"top_p": 0.9})``)
are part of the request: :class:`RecordingModel` stores the inner model's ``extra_params``, and
:class:`ReplayModel` must be given the same ``params`` (the pytest fixture does this), or it
reports drift naming the parameter.

Replay is positional. Concurrent calls (``asyncio.gather``) take their positions in the order
they *start*, under an :class:`asyncio.Lock`, and the recording reserves positions the same way;
this is deterministic as long as the agent starts its calls in the same order every run. Agents
whose call start order varies between runs cannot be replayed positionally (the fingerprints
then report drift).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from trajguard.capture._cassette import (
    Cassette,
    Interaction,
    RecordedError,
    fingerprint,
    make_request,
    redact_response,
)
from trajguard.capture._drift import describe_drift, last_message
from trajguard.capture._types import ChatModel, LLMResponse, Message
from trajguard.errors import CassetteError, ModelRequestError, RequestDrift, ScriptExhausted

__all__ = ["RecordingModel", "ReplayModel", "describe_drift", "model_params"]

DEFAULT_HINT = "re-record the cassette: pytest <test> --llm-record-mode=all --golden-update"


class RecordingModel:
    """A :class:`ChatModel` that forwards every call to ``inner`` and records it in ``cassette``.

    The agent receives each response as the replay will return it: redacted with the
    cassette's redactor (only ``latency_s`` is the live one), so the recording run and its replay
    produce the same trajectory. Call :meth:`finish` (or :meth:`save`) when the run is over.

    Args:
        inner: the real model.
        cassette: where the calls go; its ``model_name`` becomes ``inner.model_name`` (redacted)
            and its previous interactions are replaced.
        params: the parameters ``inner`` adds to every call (see
            :func:`~trajguard.capture.stored_params`); by default its ``extra_params``
            attribute, if it has one (:class:`~trajguard.capture.LiteLLMModel` does).
    """

    def __init__(
        self, inner: ChatModel, cassette: Cassette, *, params: Mapping[str, Any] | None = None
    ) -> None:
        self.inner = inner
        self.cassette = cassette
        self.params: dict[str, Any] = dict(params if params is not None else model_params(inner))
        cassette.model_name = cassette.redactor.text(inner.model_name)
        self._slots: list[Interaction | None] = []
        self._failures: list[str] = []
        self._lock = asyncio.Lock()

    def __repr__(self) -> str:
        return f"RecordingModel({self.inner!r}, {str(self.cassette.path)!r})"

    @property
    def model_name(self) -> str:
        """The inner model's name, redacted (as the replay will report it)."""
        return self.cassette.model_name

    @property
    def calls(self) -> int:
        """How many calls have started."""
        return len(self._slots)

    async def complete(
        self,
        messages: Sequence[Message],
        *,
        tools: Sequence[Mapping[str, Any]] | None = None,
        response_format: Mapping[str, Any] | None = None,
        temperature: float | None = None,
        max_tokens: int | None = None,
        seed: int | None = None,
    ) -> LLMResponse:
        """Forward the call to the inner model and record it (see ``ChatModel.complete``)."""
        redactor = self.cassette.redactor
        request = make_request(
            messages,
            tools=tools,
            response_format=response_format,
            temperature=temperature,
            max_tokens=max_tokens,
            seed=seed,
            redactor=redactor,
            extra_params=self.params,
        )
        async with self._lock:  # positions are taken in call start order, as replay does
            index = len(self._slots)
            self._slots.append(None)
        try:
            response = await self.inner.complete(
                messages,
                tools=tools,
                response_format=response_format,
                temperature=temperature,
                max_tokens=max_tokens,
                seed=seed,
            )
        except ModelRequestError as exc:
            error = RecordedError(
                message=redactor.text(exc.message),
                hint=None if exc.hint is None else redactor.text(exc.hint),
                context_overflow=exc.context_overflow,
            )
            self._slots[index] = Interaction(request, fingerprint(request), error=error)
            raise _replayed_error(error) from exc
        except BaseException as exc:
            self._failures.append(f"call {index + 1} raised {type(exc).__name__}")
            raise
        stored = redact_response(response, redactor)
        self._slots[index] = Interaction(request, fingerprint(request), response=stored)
        # what the replay will return, so the recorded run's trajectory is the replayed one
        return replace(stored, latency_s=response.latency_s)

    def finish(self) -> Cassette:
        """Put the recorded calls into the cassette and return it.

        Raises:
            CassetteError: a call failed in a way that cannot be replayed (the model was
                unreachable, the run was cancelled) or is still in flight.
        """
        if self._failures or any(slot is None for slot in self._slots):
            problems = self._failures or ["a call was still running"]
            raise CassetteError(
                f"recording incomplete, not saved: {'; '.join(problems)}",
                file=self.cassette.path,
                hint="fix the model connection and record again",
            )
        self.cassette.interactions = [slot for slot in self._slots if slot is not None]
        return self.cassette

    def save(self) -> None:
        """:meth:`finish`, then write the cassette file atomically."""
        self.finish().save()


class ReplayModel:
    """A :class:`ChatModel` that answers from a cassette, strictly and in order.

    Args:
        cassette: the recording to replay.
        params: the parameters the replaced model would add to every call (its
            ``extra_params``); they are part of every request, as when recording.
        rerecord_hint: what a drift or exhaustion error tells the user to do; the pytest
            fixture passes the exact command for the test.
    """

    def __init__(
        self,
        cassette: Cassette,
        *,
        params: Mapping[str, Any] | None = None,
        rerecord_hint: str = DEFAULT_HINT,
    ) -> None:
        self.cassette = cassette
        self.params: dict[str, Any] = dict(params or {})
        self.rerecord_hint = rerecord_hint
        self.errors: list[CassetteError] = []
        """Every drift and exhaustion raised, even if the agent swallowed it."""
        self._next = 0
        self._lock = asyncio.Lock()

    def __repr__(self) -> str:
        return f"ReplayModel({str(self.cassette.path)!r})"

    @property
    def model_name(self) -> str:
        """The recorded model's name (not this object's): replays report what was recorded."""
        return self.cassette.model_name

    @property
    def calls(self) -> int:
        """How many calls were made so far."""
        return self._next

    @property
    def unused(self) -> int:
        """How many recorded calls were not (yet) replayed."""
        return max(0, len(self.cassette.interactions) - self._next)

    async def complete(
        self,
        messages: Sequence[Message],
        *,
        tools: Sequence[Mapping[str, Any]] | None = None,
        response_format: Mapping[str, Any] | None = None,
        temperature: float | None = None,
        max_tokens: int | None = None,
        seed: int | None = None,
    ) -> LLMResponse:
        """The recorded response of the next call (see ``ChatModel.complete``).

        Raises:
            ScriptExhausted: the cassette holds no further call.
            RequestDrift: the request differs from the recorded one (``seed`` aside).
            ModelRequestError: the recorded call raised it.
        """
        __tracebackhide__ = True  # pytest: the error names the cassette; our frames add nothing
        request = make_request(
            messages,
            tools=tools,
            response_format=response_format,
            temperature=temperature,
            max_tokens=max_tokens,
            seed=seed,
            redactor=self.cassette.redactor,
            extra_params=self.params,
        )
        async with self._lock:
            index = self._next
            self._next += 1
        try:
            interaction = self._match(index, request)
        except CassetteError as exc:
            self.errors.append(exc)
            raise
        if interaction.error is not None:
            raise _replayed_error(interaction.error)
        assert interaction.response is not None  # an interaction holds one or the other
        return interaction.response

    def _match(self, index: int, request: dict[str, Any]) -> Interaction:
        __tracebackhide__ = True
        recorded = self.cassette.interactions
        if index >= len(recorded):
            raise ScriptExhausted(
                f"replay exhausted: the run made call {index + 1} of {len(recorded)} recorded "
                f"(last message: {last_message(request)})",
                file=self.cassette.path,
                path="$.interactions",
                hint=self.rerecord_hint,
            )
        interaction = recorded[index]
        if fingerprint(request) != interaction.fingerprint:
            what, where = describe_drift(interaction.request, request)
            raise RequestDrift(
                f"request drift at call {index + 1} of {len(recorded)}: {what}",
                file=self.cassette.path,
                path=f"$.interactions[{index}].request{where}",
                hint=f"if the change is intended, {self.rerecord_hint}",
            )
        return interaction


def model_params(model: ChatModel) -> dict[str, Any]:
    """The parameters ``model`` adds to every call: its ``extra_params`` mapping, if any."""
    extra = getattr(model, "extra_params", None)
    return dict(extra) if isinstance(extra, Mapping) else {}


def _replayed_error(error: RecordedError) -> ModelRequestError:
    return ModelRequestError(
        error.message, context_overflow=error.context_overflow, hint=error.hint
    )
