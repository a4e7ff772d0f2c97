"""Record model calls into a cassette once; replay them strictly, detecting request drift.

:class:`RecordingModel` wraps any :class:`~trajguard.capture.types.ChatModel`: it forwards each
call and stores the (redacted) request and response. :class:`ReplayModel` stands in for the
model and answers from a :class:`~trajguard.capture.cassette.Cassette`, in order:

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

from trajguard.capture.cassette import (
    Cassette,
    Interaction,
    RecordedError,
    fingerprint,
    make_request,
    redact_response,
)
from trajguard.capture.types import ChatModel, LLMResponse, Message
from trajguard.core.normalize import canonical_json
from trajguard.errors import CassetteError, ModelRequestError, RequestDrift, ScriptExhausted

__all__ = ["RecordingModel", "ReplayModel", "describe_drift", "model_params"]

DEFAULT_HINT = "re-record the cassette: pytest <test> --llm-record-mode=all --golden-update"
_CONTEXT = 30
_SHOWN = 70


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
            :func:`~trajguard.capture.cassette.stored_params`); by default its ``extra_params``
            attribute, if it has one (:class:`~trajguard.capture.llm.LiteLLMModel` does).
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
                f"(last message: {_last_message(request)})",
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


def describe_drift(recorded: Mapping[str, Any], actual: Mapping[str, Any]) -> tuple[str, str]:
    """Say how two stored requests differ: ``(description, JSON path under the request)``.

    The first differing message comes first (its index, role and a short before/after), then
    the other parts that differ (tools, params, each differing param named); ``seed`` is
    ignored.
    """
    parts: list[tuple[str, str]] = []
    message = _message_drift(recorded.get("messages", []), actual.get("messages", []))
    if message is not None:
        parts.append(message)
    tools = _tools_drift(recorded.get("tools"), actual.get("tools"))
    if tools is not None:
        parts.append((tools, ".tools"))
    params = _params_drift(recorded.get("params", {}), actual.get("params", {}))
    if params is not None:
        parts.append(params)
    if not parts:
        return "the request differs from the recording", ""
    text = parts[0][0]
    if len(parts) > 1:
        text += "\n  also differs: " + ", ".join(where.lstrip(".") for _, where in parts[1:])
    return text, parts[0][1]


def _message_drift(recorded: list[Any], actual: list[Any]) -> tuple[str, str] | None:
    for i in range(max(len(recorded), len(actual))):
        where = f".messages[{i}]"
        if i >= len(recorded):
            new = actual[i]
            return f"messages[{i}] ({_role(new)}) is new: {_excerpt(_text(new), 0)}", where
        if i >= len(actual):
            old = recorded[i]
            return f"messages[{i}] ({_role(old)}) is no longer sent", where
        old, new = recorded[i], actual[i]
        if old == new:
            continue
        if not (isinstance(old, dict) and isinstance(new, dict)):
            return f"messages[{i}] differs\n{_before_after(old, new)}", where
        if old.get("role") != new.get("role"):
            return f"messages[{i}] role was {_role(old)}, now {_role(new)}", where + ".role"
        key = next(k for k in sorted(old.keys() | new.keys()) if old.get(k) != new.get(k))
        change = _before_after(old.get(key), new.get(key))
        return f"messages[{i}] ({_role(new)}) {key} differs\n{change}", f"{where}.{key}"
    return None


def _tools_drift(recorded: list[Any] | None, actual: list[Any] | None) -> str | None:
    if recorded == actual:
        return None
    if not recorded or not actual:
        was, now = len(recorded or ()), len(actual or ())
        return f"tools: {was} offered when recorded, {now} now"
    old, new = _tool_names(recorded), _tool_names(actual)
    if old != new:
        return f"tools: recorded {old}, now {new}"
    for name, a, b in zip(old, recorded, actual, strict=True):
        if a != b:
            return f"tools: definition of {name!r} differs\n{_before_after(a, b)}"
    return "tools differ"  # pragma: no cover - equal names and definitions mean equal lists


def _params_drift(recorded: Mapping[str, Any], actual: Mapping[str, Any]) -> tuple[str, str] | None:
    keys = [
        key
        for key in sorted(recorded.keys() | actual.keys())
        if key != "seed"
        and (key in recorded, recorded.get(key)) != (key in actual, actual.get(key))
    ]
    if not keys:
        return None
    changed = [
        f"{key} {_param(recorded, key, '(not in the recording)')} -> "
        f"{_param(actual, key, '(not sent)')}"
        for key in keys
    ]
    return "params: " + ", ".join(changed), f".params.{keys[0]}"


def _param(params: Mapping[str, Any], key: str, absent: str) -> str:
    return repr(params[key]) if key in params else absent


def _tool_names(tools: list[Any]) -> list[str]:
    names = []
    for tool in tools:
        function = tool.get("function", tool) if isinstance(tool, dict) else {}
        names.append(str(function.get("name", "?")) if isinstance(function, dict) else "?")
    return names


def _role(message: Any) -> str:
    return str(message.get("role", "?")) if isinstance(message, dict) else "?"


def _text(value: Any) -> str:
    if isinstance(value, dict) and set(value) <= {"role", "content"}:
        value = value.get("content")
    return value if isinstance(value, str) else canonical_json(value)


def _excerpt(text: str, at: int) -> str:
    start = max(0, at - _CONTEXT)
    shown = text[start : start + _SHOWN]
    prefix = "…" if start > 0 else ""
    suffix = "…" if start + _SHOWN < len(text) else ""
    return repr(prefix + shown + suffix)


def _before_after(old: Any, new: Any) -> str:
    a, b = _text(old), _text(new)
    at = next(
        (i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b))
    )
    return f"    recorded: {_excerpt(a, at)}\n    now:      {_excerpt(b, at)}"


def _last_message(request: Mapping[str, Any]) -> str:
    messages = request.get("messages") or [{}]
    last = messages[-1]
    content = last.get("content") if isinstance(last, dict) else last
    return f"{_role(last)} {_excerpt(_text(content), 0)}"
