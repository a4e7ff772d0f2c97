"""Capture fidelity of the conversion from model calls to ATIF (shared by zero-code capture and
the wire endpoint): enum roles, tool results that come back as user text, and what is kept when
a result cannot be joined to its call."""

from __future__ import annotations

import enum
from datetime import UTC, datetime
from typing import Any

from trajguard.capture import LLMResponse, ToolCallRequest, Usage
from trajguard.capture.zerocode import CallRecord, build_trajectory, normalize_messages
from trajguard.normative import check_normative

T0 = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
TASK = {"role": "user", "content": "What is 17 * 23?"}


class MessageRole(enum.StrEnum):  # as smolagents defines its roles
    SYSTEM = "system"
    USER = "user"


def _record(seq: int, messages: list[dict[str, Any]], response: LLMResponse) -> CallRecord:
    return CallRecord(
        call_id=f"id{seq}",
        seq=seq,
        started_at=T0,
        model="openai/m",
        messages=normalize_messages(messages),
        response=response,
    )


def _call(call_id: str, name: str = "calculator") -> ToolCallRequest:
    return ToolCallRequest(id=call_id, name=name, arguments='{"expression": "17 * 23"}')


def _calling(*calls: ToolCallRequest, text: str = "") -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": text,
        "tool_calls": [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
            for c in calls
        ],
    }


def test_enum_roles_are_read_by_value() -> None:
    messages = [
        {"role": MessageRole.SYSTEM, "content": [{"type": "text", "text": "Use tools."}]},
        {"role": MessageRole.USER, "content": [{"type": "text", "text": "New task: 17 * 23"}]},
    ]
    assert [m["role"] for m in normalize_messages(messages)] == ["system", "user"]
    trajectory = build_trajectory(
        [_record(1, messages, LLMResponse("391"))], agent_name="a", agent_version="0"
    )
    assert [(s.source, s.message) for s in trajectory.steps] == [
        ("system", "Use tools."),
        ("user", "New task: 17 * 23"),
        ("agent", "391"),
    ]


def test_a_result_sent_back_as_user_text_naming_its_call_is_joined() -> None:
    first, second = _call("call_7"), _call("call_8", "get_weather")
    echoed = {"role": "assistant", "content": "Calling tools: call_7, call_8"}
    results = [
        {"role": "user", "content": "Call id: call_8\nObservation:\nsunny"},
        {"role": "user", "content": "Call id: call_7\nObservation:\n391"},
    ]
    records = [
        _record(1, [TASK], LLMResponse(None, (first, second), usage=Usage(5, 1))),
        _record(2, [TASK, echoed, *results], LLMResponse("391", usage=Usage(9, 1))),
    ]
    trajectory = build_trajectory(records, agent_name="a", agent_version="0")
    assert check_normative(trajectory) == []
    step = trajectory.steps[1]
    assert step.observation is not None
    joined = {(r.source_call_id, r.content) for r in step.observation.results}
    assert joined == {
        ("call_8", "Call id: call_8\nObservation:\nsunny"),
        ("call_7", results[1]["content"]),
    }
    assert all(r.extra == {"join": "user_text"} for r in step.observation.results)
    assert [s.source for s in trajectory.steps] == ["user", "agent", "agent"], "no user steps"
    assert "unjoined_observations" not in (trajectory.extra or {})


def test_the_only_open_call_takes_a_result_that_names_none() -> None:
    call = _call("call_1")
    records = [
        _record(1, [TASK], LLMResponse(None, (call,))),
        _record(
            2,
            [TASK, _calling(call), {"role": "user", "content": "Observation: 391"}],
            LLMResponse("391"),
        ),
    ]
    trajectory = build_trajectory(records, agent_name="a", agent_version="0")
    observation = trajectory.steps[1].observation
    assert observation is not None
    assert [(r.source_call_id, r.content) for r in observation.results] == [
        ("call_1", "Observation: 391")
    ]


def test_an_ambiguous_text_result_is_kept_without_a_join_and_counted() -> None:
    first, second = _call("call_1"), _call("call_2")
    text = {"role": "user", "content": "Observations: 391 and 392"}
    records = [
        _record(1, [TASK], LLMResponse(None, (first, second))),
        _record(2, [TASK, _calling(first, second), text], LLMResponse("done")),
    ]
    trajectory = build_trajectory(records, agent_name="a", agent_version="0")
    assert check_normative(trajectory) == []
    observation = trajectory.steps[1].observation
    assert observation is not None
    (result,) = observation.results
    assert (result.source_call_id, result.content, result.extra) == (
        None,
        "Observations: 391 and 392",
        {"join": "ambiguous"},
    )
    assert (trajectory.extra or {})["unjoined_observations"] == 1


def test_user_text_that_follows_no_call_stays_a_user_turn() -> None:
    call = _call("call_1")
    # a new conversation (another agent's, or a restart) while a call is unanswered
    records = [
        _record(1, [TASK], LLMResponse(None, (call,))),
        _record(2, [{"role": "user", "content": "Weather in Ely?"}], LLMResponse("sunny")),
    ]
    trajectory = build_trajectory(records, agent_name="a", agent_version="0")
    assert [s.source for s in trajectory.steps] == ["user", "agent", "user", "agent"]
    assert trajectory.steps[1].observation is None
