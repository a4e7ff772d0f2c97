"""Turn the litellm calls seen by a zero-code capture into an ATIF trajectory.

Pure functions over :class:`CallRecord` values (no litellm import, no globals), so the
conversion can be tested without a model. :mod:`trajguard.capture.zerocode` fills the records
from litellm's callbacks; see its docstring for what is and is not seen.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import Enum
from typing import Any

from trajguard.atif import Step, Trajectory
from trajguard.capture.recorder import TrajectoryRecorder
from trajguard.capture.types import LLMResponse, Message, ToolCallRequest, Usage

__all__ = [
    "CallRecord",
    "build_trajectory",
    "is_chat_response",
    "normalize_messages",
    "normalize_response",
]


@dataclass
class CallRecord:
    """One litellm chat call as seen through the callbacks.

    Attributes:
        call_id: litellm's ``litellm_call_id``.
        seq: process-wide order in which the calls were made (pre-call order).
        started_at: when the request left (UTC).
        model: the model the request named.
        messages: the request messages, normalised and copied when the call was made.
        tools: the tool definitions sent with the request.
        response: the response, once a success event delivered it.
        error: ``(type, message)`` once a failure event delivered it.
        ended_at: when the response or error arrived (UTC).
        async_call: made with ``acompletion``: litellm reports its outcome from a task on the
            caller's event loop, not from a thread.
        api_base: the endpoint the request was sent to, when known.
        notes: what the agent step of this call records in ``step.extra`` (e.g. how the wire
            endpoint rewrote the request).
    """

    call_id: str
    seq: int
    started_at: datetime
    model: str | None
    messages: list[Message]
    tools: list[dict[str, Any]] = field(default_factory=list)
    response: LLMResponse | None = None
    error: tuple[str, str] | None = None
    ended_at: datetime | None = None
    async_call: bool = False
    api_base: str | None = None
    notes: dict[str, Any] | None = None

    @property
    def done(self) -> bool:
        """Whether litellm has reported the outcome of the call."""
        return self.response is not None or self.error is not None


def _get(obj: Any, name: str, default: Any = None) -> Any:
    if isinstance(obj, Mapping):
        return obj.get(name, default)
    return getattr(obj, name, default)


def _plain(obj: Any) -> Any:
    """A JSON-like copy of ``obj`` (pydantic objects dumped, containers copied)."""
    if hasattr(obj, "model_dump"):
        obj = obj.model_dump()
    if isinstance(obj, Mapping):
        return {str(key): _plain(value) for key, value in obj.items()}
    if isinstance(obj, list | tuple):
        return [_plain(value) for value in obj]
    if obj is None or isinstance(obj, str | int | float | bool):
        return obj
    return str(obj)


def _arguments_text(arguments: Any) -> str:
    if isinstance(arguments, str):
        return arguments
    if arguments is None:
        return ""
    return json.dumps(_plain(arguments), ensure_ascii=False)


def _tool_calls(raw: Any) -> list[dict[str, Any]]:
    calls = []
    for call in raw or ():
        function = _get(call, "function") or {}
        calls.append(
            {
                "id": _get(call, "id") or "",
                "name": _get(function, "name") or "",
                "arguments": _arguments_text(_get(function, "arguments")),
            }
        )
    return calls


def _role(value: Any) -> str:
    """A message role as text: an enum role (smolagents' ``MessageRole``) by its value."""
    if isinstance(value, Enum):
        value = value.value
    return str(value or "")


def normalize_messages(messages: Any) -> list[Message]:
    """Plain-dict copies of chat messages, reduced to what the conversion reads.

    The copy is taken when the call is made: agents append to the same list afterwards.
    """
    out: list[Message] = []
    for message in messages or ():
        normal: Message = {
            "role": _role(_get(message, "role")),
            "content": _plain(_get(message, "content")),
        }
        calls = _tool_calls(_get(message, "tool_calls"))
        if calls:
            normal["tool_calls"] = calls
        for key in ("tool_call_id", "name"):
            value = _get(message, key)
            if value is not None:
                normal[key] = str(value)
        out.append(normal)
    return out


def is_chat_response(response: Any) -> bool:
    """Whether ``response`` looks like a chat completion (it has choices)."""
    return bool(_get(response, "choices"))


def normalize_response(response: Any, *, latency_s: float = 0.0) -> LLMResponse:
    """An :class:`LLMResponse` from a litellm ``ModelResponse`` (or its dict form).

    Only the first choice is read.
    """
    choices = _get(response, "choices") or [None]
    message = _get(choices[0], "message") or {}
    usage = _get(response, "usage") or {}
    details = _get(usage, "prompt_tokens_details") or {}
    return LLMResponse(
        content=_text(_get(message, "content")) if _get(message, "content") is not None else None,
        tool_calls=tuple(
            ToolCallRequest(id=call["id"], name=call["name"], arguments=call["arguments"])
            for call in _tool_calls(_get(message, "tool_calls"))
        ),
        finish_reason=_get(choices[0], "finish_reason"),
        usage=Usage(
            prompt_tokens=int(_get(usage, "prompt_tokens") or 0),
            completion_tokens=int(_get(usage, "completion_tokens") or 0),
            cached_tokens=int(_get(details, "cached_tokens") or 0),
        ),
        model=str(_get(response, "model") or ""),
        latency_s=latency_s,
    )


def _text(content: Any) -> str:
    """Message content as text: content parts are joined, non-text parts are named."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for part in content:
            if _get(part, "type") == "text":
                parts.append(str(_get(part, "text") or ""))
            else:
                parts.append(f"[{_get(part, 'type') or 'part'}]")
        return "\n".join(parts)
    return str(content)


def _key(message: Message) -> str:
    return json.dumps(message, sort_keys=True, ensure_ascii=False, default=str)


def _new_positions(keys: list[str], seen: Counter[str]) -> set[int]:
    """Indices of the messages not already present in an earlier request.

    ``seen`` holds, per message, the largest count any earlier request had; the occurrences
    beyond it (the last ones) are new. This finds the suffix of a growing conversation and the
    new turns of a rewritten (compacted) one without assuming either shape.
    """
    counts = Counter(keys)
    new: set[int] = set()
    remaining = {key: counts[key] - seen.get(key, 0) for key in counts}
    for index in range(len(keys) - 1, -1, -1):
        if remaining[keys[index]] > 0:
            remaining[keys[index]] -= 1
            new.add(index)
    return new


def _from_conversation(record: CallRecord, later: Sequence[CallRecord]) -> LLMResponse | None:
    """The assistant message an agent echoed into a later request after ``record``'s messages."""
    size = len(record.messages)
    keys = [_key(m) for m in record.messages]
    for other in later:
        if len(other.messages) <= size or other.messages[size]["role"] != "assistant":
            continue
        if [_key(m) for m in other.messages[:size]] != keys:
            continue
        echoed = other.messages[size]
        return LLMResponse(
            content=_text(echoed.get("content")) if echoed.get("content") is not None else None,
            tool_calls=tuple(
                ToolCallRequest(id=c["id"], name=c["name"], arguments=c["arguments"])
                for c in echoed.get("tool_calls", ())
            ),
            model=record.model or "",
        )
    return None


@dataclass(eq=False)
class _Pending:
    """A tool call of the latest agent step that no result has answered yet."""

    provider_id: str
    step: Step
    call_id: str


class _Builder:
    def __init__(self, recorder: TrajectoryRecorder, clock: list[datetime]) -> None:
        self.recorder = recorder
        self.clock = clock
        self.seen: Counter[str] = Counter()
        self.system_texts: set[str] = set()
        # provider tool-call id -> (step, id recorded on it); the latest call with an id wins
        self.calls: dict[str, tuple[Step, str]] = {}
        self.answered: set[tuple[int, str]] = set()
        self.pending: list[_Pending] = []
        self.errors: list[dict[str, Any]] = []
        self.unjoined = 0

    def request(self, record: CallRecord) -> None:
        self.clock[0] = record.started_at
        keys = [_key(m) for m in record.messages]
        new = _new_positions(keys, self.seen)
        after: list[_Pending] = []  # unanswered calls the latest assistant message refers to
        for index, message in enumerate(record.messages):
            role = message["role"]
            if role == "assistant":
                after = self._referenced(message)
            if index not in new:
                continue
            if role == "tool":
                self._tool_result(message)
            elif role in ("system", "developer"):
                text = _text(message.get("content"))
                if text not in self.system_texts:
                    self.system_texts.add(text)
                    self.recorder.system(text)
            elif role == "user" and any(p in self.pending for p in after):
                self._text_result(_text(message.get("content")), after)
            elif role == "user":
                self.recorder.user(_text(message.get("content")))
        for key, count in Counter(keys).items():
            self.seen[key] = max(self.seen[key], count)

    def _referenced(self, message: Message) -> list[_Pending]:
        """The unanswered calls an assistant message of the conversation makes or names."""
        ids = {call["id"] for call in message.get("tool_calls", ())}
        text = _text(message.get("content"))
        return [
            p
            for p in self.pending
            if p.provider_id and (p.provider_id in ids or _names_id(text, p.provider_id))
        ]

    def _tool_result(self, message: Message) -> None:
        provider_id = message.get("tool_call_id") or ""
        target = self.calls.get(provider_id)
        if target is None:
            return  # answers no call this capture saw: history the agent built itself
        step, call_id = target
        self.pending = [p for p in self.pending if p.provider_id != provider_id]
        if (step.step_id, call_id) in self.answered:
            return
        self.answered.add((step.step_id, call_id))
        self.recorder.observe(step, call_id, _text(message.get("content")))

    def _text_result(self, text: str, after: list[_Pending]) -> None:
        """A user message that follows, in the conversation, an assistant message making (or
        naming) tool calls still unanswered: their results, sent back as text.

        Frameworks such as smolagents send tool results as user text ("Call id: … Observation:
        …") instead of ``role: tool`` messages. The text is joined to the call it names, or to
        the only one of those calls left unanswered; otherwise it is kept as a result of their
        step without a join (``extra.join = "ambiguous"``) and counted in the trajectory's
        ``extra.unjoined_observations``.
        """
        open_calls = [p for p in after if p in self.pending]
        named = [p for p in open_calls if _names_id(text, p.provider_id)]
        target = named[0] if len(named) == 1 else None
        if target is None and not named and len(open_calls) == 1:
            target = open_calls[0]
        if target is None:
            self.unjoined += 1
            self.recorder.observe(open_calls[-1].step, None, text, extra={"join": "ambiguous"})
            return
        self.pending.remove(target)
        self.answered.add((target.step.step_id, target.call_id))
        self.recorder.observe(target.step, target.call_id, text, extra={"join": "user_text"})

    def response(
        self, record: CallRecord, response: LLMResponse, extra: Mapping[str, Any] | None
    ) -> None:
        self.clock[0] = record.ended_at or record.started_at
        notes = {**(record.notes or {}), **(extra or {})}
        step = self.recorder.agent_step(response, extra=notes or None)
        self.pending = []
        for request, call in zip(response.tool_calls, step.tool_calls or (), strict=True):
            self.calls[request.id] = (step, call.tool_call_id)
            self.pending.append(_Pending(request.id, step, call.tool_call_id))

    def failure(self, record: CallRecord, error: tuple[str, str]) -> None:
        self.errors.append(
            {
                "after_step": len(self.recorder.steps),
                "model": record.model,
                "type": error[0],
                "message": error[1],
            }
        )


def _names_id(text: str, call_id: str) -> bool:
    """Whether ``text`` mentions the call id as a whole word (``call_1`` is not ``call_12``)."""
    return re.search(rf"(?<![\w-]){re.escape(call_id)}(?![\w-])", text) is not None


def build_trajectory(
    records: Sequence[CallRecord],
    *,
    agent_name: str,
    agent_version: str,
    error: BaseException | None = None,
) -> Trajectory:
    """The ATIF trajectory of the calls, in the order they were made.

    Args:
        records: the calls of one capture (any order; sorted by ``seq``).
        agent_name: ``agent.name``.
        agent_version: ``agent.version``.
        error: the exception that escaped the captured block, if any.

    Returns:
        A trajectory that passes :func:`~trajguard.normative.check_normative`.
    """
    ordered = sorted(records, key=lambda r: r.seq)
    tools: dict[str, dict[str, Any]] = {}
    for record in ordered:
        for tool in record.tools:
            name = str(_get(_get(tool, "function") or {}, "name") or len(tools))
            tools.setdefault(name, tool)
    clock = [ordered[0].started_at if ordered else datetime.now(UTC)]
    recorder = TrajectoryRecorder(
        agent_name=agent_name,
        agent_version=agent_version,
        model_name=ordered[0].model if ordered else None,
        tool_definitions=list(tools.values()) or None,
        clock=lambda: clock[0],
    )
    builder = _Builder(recorder, clock)
    for index, record in enumerate(ordered):
        builder.request(record)
        if record.response is not None:
            builder.response(record, record.response, None)
        elif record.error is not None:
            builder.failure(record, record.error)
        else:
            echoed = _from_conversation(record, ordered[index + 1 :])
            if echoed is not None:
                builder.response(record, echoed, {"response": "from_next_request"})
            else:
                builder.response(record, LLMResponse(content=None), {"response": "unseen"})
    if ordered and ordered[-1].error is not None and error is None:
        recorder.agent_error("llm_error", f"{ordered[-1].error[0]}: {ordered[-1].error[1]}")
    trajectory = recorder.finish(error=error)
    if builder.errors or builder.unjoined:
        extra = dict(trajectory.extra or {})
        if builder.errors:
            extra["llm_errors"] = builder.errors
        if builder.unjoined:
            extra["unjoined_observations"] = builder.unjoined
        trajectory = trajectory.model_copy(update={"extra": extra})
    return trajectory
