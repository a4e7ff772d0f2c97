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
from typing import Any

from trajguard.atif import Step, Trajectory
from trajguard.capture._recorder import TrajectoryRecorder
from trajguard.capture._types import LLMResponse, Message, ToolCallRequest
from trajguard.capture.zerocode._messages import field_of
from trajguard.capture.zerocode._messages import text as content_text
from trajguard.faults import FAULTS_KEY

__all__ = ["CallRecord", "build_trajectory"]


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
            content=content_text(echoed.get("content"))
            if echoed.get("content") is not None
            else None,
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
        self.previous: CallRecord | None = None
        self.context_break: str | None = None  # why this request starts a new context

    def request(self, record: CallRecord) -> None:
        self.clock[0] = record.started_at
        previous, self.previous = self.previous, record
        self.context_break = None if previous is None else _context_break(previous, record)
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
                text = content_text(message.get("content"))
                if text not in self.system_texts:
                    self.system_texts.add(text)
                    self.recorder.system(text)
            elif role == "user" and any(p in self.pending for p in after):
                self._text_result(content_text(message.get("content")), after)
            elif role == "user":
                self.recorder.user(content_text(message.get("content")))
        for key, count in Counter(keys).items():
            self.seen[key] = max(self.seen[key], count)

    def _referenced(self, message: Message) -> list[_Pending]:
        """The unanswered calls an assistant message of the conversation makes or names."""
        ids = {call["id"] for call in message.get("tool_calls", ())}
        text = content_text(message.get("content"))
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
        self.recorder.observe(step, call_id, content_text(message.get("content")))

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
        notes = {**(record.notes or {}), **(extra or {}), **self._new_context()}
        step = self.recorder.agent_step(response, extra=notes or None)
        self.pending = []
        for request, call in zip(response.tool_calls, step.tool_calls or (), strict=True):
            self.calls[request.id] = (step, call.tool_call_id)
            self.pending.append(_Pending(request.id, step, call.tool_call_id))

    def failure(self, record: CallRecord, error: tuple[str, str]) -> None:
        entry = {
            "after_step": len(self.recorder.steps),
            "model": record.model,
            "type": error[0],
            "message": error[1],
            **self._new_context(),
        }
        # a fault the wire endpoint injected (trajguard.faults' model faults) names its kind
        injected = (record.notes or {}).get(FAULTS_KEY) or ()
        if injected:
            entry["fault"] = injected[-1]["kind"]
        self.errors.append(entry)

    def _new_context(self) -> dict[str, Any]:
        if self.context_break is None:
            return {}
        return {"new_context": True, "new_context_reason": self.context_break}

    def unexecuted(self) -> None:
        """Mark the calls of the run's last response as never run: no request followed it, so
        no result of them reached the model (the framework stopped at its cap, or gave up)."""
        for pending in self.pending:
            for call in pending.step.tool_calls or ():
                if call.tool_call_id == pending.call_id:
                    call.extra = {**(call.extra or {}), "executed": False}
        self.pending = []


def _context_break(previous: CallRecord, record: CallRecord) -> str | None:
    """Why ``record``'s messages do not continue ``previous``'s (its messages, then its
    response), or ``None`` when they do."""
    before = [_key(m) for m in previous.messages]
    now = [_key(m) for m in record.messages]
    if len(now) < len(before):
        return f"{len(now)} messages where the previous request had {len(before)}"
    for index, (old, new) in enumerate(zip(before, now, strict=False)):
        if old != new:
            return f"messages[{index}] differs from the previous request's"
    answered = previous.response is not None and (
        previous.response.content or previous.response.tool_calls
    )
    if answered and len(now) > len(before) and record.messages[len(before)]["role"] != "assistant":
        return f"messages[{len(before)}] is not the previous response"
    return None


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

    Two things a framework did are marked where the capture can see them:

    * a request whose messages do not continue the previous request (its messages, then the
      assistant message of its response) starts a new context: the framework dropped or
      rewrote the history. Its agent step (or its ``extra.llm_errors`` entry) carries
      ``extra.new_context = true`` and ``extra.new_context_reason``;
    * the tool calls of the last response, when no request followed it, are marked
      ``extra.executed = false``: no result of them reached the model (the framework stopped
      at its cap), so a shape does not count them.

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
            name = str(field_of(field_of(tool, "function") or {}, "name") or len(tools))
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
    if ordered and ordered[-1].response is not None:
        builder.unexecuted()
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
