"""The recorder: valid ATIF v1.7 from LLM responses and tool results, crashes included."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta

import pytest

from trajguard.atif import ATIF_VERSION, ToolCall, load_trajectory, trajectory_to_dict
from trajguard.capture import (
    LLMResponse,
    ToolCallRequest,
    TrajectoryRecorder,
    Usage,
    recording,
    utc_timestamp,
)
from trajguard.core.normalize import normalize
from trajguard.core.shape import shape
from trajguard.normative import check_normative


def _clock():
    moments = iter(
        datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC) + timedelta(seconds=i) for i in range(99)
    )
    return lambda: next(moments)


def _recorder(**kwargs) -> TrajectoryRecorder:
    options = {"agent_name": "test-agent", "agent_version": "1.0", "model_name": "local/smollm2"}
    return TrajectoryRecorder(**{**options, "clock": _clock(), **kwargs})


def _response(content=None, *calls, prompt=10, completion=5, cached=0, model="smollm2"):
    return LLMResponse(
        content=content,
        tool_calls=tuple(ToolCallRequest(*call) for call in calls),
        usage=Usage(prompt, completion, cached),
        model=model,
    )


def _run(rec: TrajectoryRecorder):
    rec.system("You are a calculator.")
    rec.user("What is 17 * 23?")
    step = rec.agent_step(_response(None, ("call_abc", "calculator", '{"expression": "17*23"}')))
    rec.observe(step, "call_abc", "391")
    rec.agent_step(_response("391", prompt=30, completion=3))
    return rec.finish()


def test_a_run_becomes_a_valid_atif_trajectory():
    trajectory = _run(_recorder())
    assert check_normative(trajectory) == []
    assert trajectory.schema_version == ATIF_VERSION
    assert [s.step_id for s in trajectory.steps] == [1, 2, 3, 4]
    assert [s.source for s in trajectory.steps] == ["system", "user", "agent", "agent"]
    agent = trajectory.steps[2]
    assert agent.llm_call_count == 1
    assert agent.message == ""
    assert agent.metrics.prompt_tokens == 10
    assert agent.metrics.completion_tokens == 5
    assert agent.tool_calls == [
        ToolCall(
            tool_call_id="call_abc", function_name="calculator", arguments={"expression": "17*23"}
        )
    ]
    assert agent.observation.results[0].source_call_id == "call_abc"
    assert agent.observation.results[0].content == "391"
    assert trajectory.steps[3].message == "391"
    assert trajectory.agent.name == "test-agent"
    assert trajectory.agent.model_name == "local/smollm2"
    assert trajectory.final_metrics.total_prompt_tokens == 40
    assert trajectory.final_metrics.total_completion_tokens == 8
    assert trajectory.final_metrics.total_steps == 4
    assert trajectory.final_metrics.total_cached_tokens is None
    assert trajectory.extra is None


def test_user_and_system_steps_carry_no_agent_fields():
    data = trajectory_to_dict(_run(_recorder()))
    for step in data["steps"][:2]:
        assert set(step) == {"step_id", "timestamp", "source", "message"}
    assert "observation" not in data["steps"][3]
    assert "tool_calls" not in data["steps"][3]
    assert load_trajectory(data) == load_trajectory(json.dumps(data))


def test_timestamps_are_iso_8601_utc_with_z():
    trajectory = _run(_recorder())
    assert trajectory.steps[0].timestamp == "2026-01-02T03:04:05.000Z"
    assert trajectory.steps[1].timestamp == "2026-01-02T03:04:06.000Z"
    assert utc_timestamp().endswith("Z")
    local = datetime(2026, 1, 2, 5, 0, tzinfo=UTC).astimezone(UTC)
    assert utc_timestamp(local) == "2026-01-02T05:00:00.000Z"


def test_step_model_name_follows_the_response_then_the_configured_model():
    rec = _recorder()
    reported = rec.agent_step(_response("a", model="smollm2"))
    unreported = rec.agent_step(_response("b", model=""))
    overridden = rec.agent_step(_response("c"), model_name="other")
    assert [reported.model_name, unreported.model_name, overridden.model_name] == [
        "smollm2",
        "local/smollm2",
        "other",
    ]
    assert _recorder(model_name=None).agent_step(_response("x", model="")).model_name is None


def test_cached_tokens_are_totalled_when_reported():
    rec = _recorder()
    rec.agent_step(_response("a", prompt=100, completion=5, cached=40))
    rec.agent_step(_response("b", prompt=120, completion=5))
    trajectory = rec.finish()
    assert trajectory.final_metrics.total_cached_tokens == 40
    assert trajectory.steps[1].metrics.cached_tokens is None
    assert check_normative(trajectory) == []


def test_tool_calls_without_provider_ids_get_deterministic_ids():
    rec = _recorder()
    first = rec.agent_step(_response(None, ("", "a", "{}"), ("", "b", "{}")))
    second = rec.agent_step(_response(None, ("", "c", "{}")))
    assert [c.tool_call_id for c in first.tool_calls] == ["call_1", "call_2"]
    assert [c.tool_call_id for c in second.tool_calls] == ["call_3"]


def test_duplicate_provider_ids_are_replaced_so_results_join_one_call():
    rec = _recorder()
    step = rec.agent_step(_response(None, ("call_1", "a", "{}"), ("call_1", "b", "{}")))
    assert [c.tool_call_id for c in step.tool_calls] == ["call_1", "call_2"]
    assert rec.new_call_id() == "call_3"


def test_minted_ids_skip_ids_the_provider_already_used():
    rec = _recorder()
    rec.agent_step(_response(None, ("call_1", "a", "{}")))
    assert rec.new_call_id() == "call_2"


def test_agent_supplied_tool_calls_are_recorded_as_given():
    rec = _recorder()
    call = ToolCall(tool_call_id=rec.new_call_id(), function_name="calculator", arguments={"x": 1})
    step = rec.agent_step(_response('{"action": "calculator"}'), tool_calls=[call], message="")
    rec.observe(step, "call_1", "1")
    assert step.tool_calls == [call]
    assert step.message == ""
    assert check_normative(rec.finish()) == []


@pytest.mark.parametrize("raw", ["{not json", "[1, 2]", '"text"', "[" * 200_000 + "]" * 200_000])
def test_arguments_that_are_not_a_json_object_are_kept_raw(raw):
    step = _recorder().agent_step(_response(None, ("id1", "calculator", raw)))
    assert step.tool_calls[0].arguments == {}
    assert step.tool_calls[0].extra == {"raw_arguments": raw}


def test_empty_arguments_are_an_empty_object():
    step = _recorder().agent_step(_response(None, ("id1", "now", "")))
    assert step.tool_calls[0].arguments == {}
    assert step.tool_calls[0].extra is None


def test_observe_must_join_a_call_of_the_same_step():
    rec = _recorder()
    calling = rec.agent_step(_response(None, ("id1", "a", "{}")))
    other = rec.agent_step(_response("done"))
    with pytest.raises(ValueError, match="'id1' is not a call of step 2"):
        rec.observe(other, "id1", "x")
    with pytest.raises(ValueError, match="returned by this recorder"):
        rec.observe(_recorder().agent_step(_response("x")), None, "x")
    rec.observe(calling, "id1", "result", extra={"error": "tool_error"})
    rec.observe(other, None, "Error: feedback that answers no call")
    trajectory = rec.finish()
    assert check_normative(trajectory) == []
    assert trajectory.steps[0].observation.results[0].extra == {"error": "tool_error"}
    assert trajectory.steps[1].observation.results[0].source_call_id is None


def test_step_for_call_finds_the_calling_step():
    rec = _recorder()
    step = rec.agent_step(_response(None, ("id1", "a", "{}")))
    assert rec.step_for_call("id1") is step
    assert rec.step_for_call("nope") is None


def test_agent_error_is_recorded_on_the_trajectory():
    rec = _recorder()
    rec.user("hi")
    rec.agent_error("max_steps", "no final answer after 3 model calls")
    trajectory = rec.finish()
    assert trajectory.extra == {
        "agent_error": {"reason": "max_steps", "message": "no final answer after 3 model calls"}
    }
    assert len(trajectory.steps) == 1
    assert check_normative(trajectory) == []


def test_finish_is_idempotent_and_closes_the_recorder():
    rec = _recorder()
    rec.user("hi")
    assert rec.trajectory is None
    assert not rec.finished
    first = rec.finish()
    assert rec.finish() is first
    assert rec.finish(error=ValueError("late")) is first
    assert rec.trajectory is first
    assert rec.finished
    with pytest.raises(RuntimeError, match="finished"):
        rec.user("again")
    with pytest.raises(RuntimeError, match="finished"):
        rec.agent_error("x", "y")


def test_the_finished_trajectory_is_a_snapshot():
    rec = _recorder()
    step = rec.agent_step(_response(None, ("id1", "a", "{}")))
    trajectory = rec.finish()
    step.message = "edited later"
    assert trajectory.steps[0].message == ""


def test_finish_with_an_error_stamps_a_crash():
    rec = _recorder()
    rec.user("hi")
    rec.agent_step(_response("thinking", prompt=7, completion=2))
    trajectory = rec.finish(error=KeyError("missing"))
    assert trajectory.extra == {
        "crashed": True,
        "error": {"type": "KeyError", "message": "'missing'"},
    }
    assert trajectory.final_metrics.total_prompt_tokens == 7
    assert check_normative(trajectory) == []
    assert shape(trajectory).crashed


def _crashing_run(rec: TrajectoryRecorder) -> None:
    with rec:
        rec.system("sys")
        rec.user("What is 1 / 0?")
        step = rec.agent_step(_response(None, ("c1", "divide", '{"a": 1, "b": 0}')))
        rec.observe(step, "c1", "Error: ZeroDivisionError: division by zero")
        _ = 1 / 0


def test_a_crashed_run_is_a_valid_trajectory_via_the_context_manager():
    rec = recording(agent_name="crashy", agent_version="0.1", model_name="local/smollm2")
    with pytest.raises(ZeroDivisionError):
        _crashing_run(rec)
    trajectory = rec.trajectory
    assert trajectory is not None
    assert trajectory.extra["crashed"] is True
    assert trajectory.extra["error"] == {"type": "ZeroDivisionError", "message": "division by zero"}
    assert len(trajectory.steps) == 3
    assert check_normative(trajectory) == []
    reloaded = load_trajectory(trajectory_to_dict(trajectory))
    assert reloaded.extra["crashed"] is True


async def test_the_context_manager_works_async_and_on_success():
    async with recording(agent_name="a", agent_version="1") as rec:
        rec.user("hi")
        await asyncio.sleep(0)
        rec.agent_step(_response("hello"))
    assert rec.trajectory is not None
    assert rec.trajectory.extra is None
    assert check_normative(rec.trajectory) == []

    cancelled = recording(agent_name="a", agent_version="1")

    async def cancelled_run():
        async with cancelled:
            cancelled.user("hi")
            raise asyncio.CancelledError

    with pytest.raises(asyncio.CancelledError):
        await cancelled_run()
    assert cancelled.trajectory.extra["error"]["type"] == "CancelledError"


def test_the_context_manager_keeps_an_explicit_finish():
    with TrajectoryRecorder(agent_name="a", agent_version="1") as rec:
        rec.user("hi")
        early = rec.finish()
    assert rec.trajectory is early


def test_agent_metadata_is_recorded():
    tools = [{"type": "function", "function": {"name": "a", "parameters": {"type": "object"}}}]
    rec = _recorder(tool_definitions=tools, agent_extra={"mode": "json"}, session_id="s-1")
    trajectory = rec.finish()
    assert trajectory.agent.tool_definitions == tools
    assert trajectory.agent.extra == {"mode": "json"}
    assert trajectory.session_id == "s-1"
    assert trajectory.steps == []
    assert trajectory.final_metrics.total_steps == 0
    # ATIF needs at least one step (N10, as Harbor's validator): nothing is invented to fill it
    assert [v.rule for v in check_normative(trajectory)] == ["N10"]


def test_two_recordings_of_the_same_responses_normalise_equal():
    # A replayed run feeds the same responses (model name carried forward) at other times.
    live = _run(_recorder())
    replay = _run(
        TrajectoryRecorder(agent_name="test-agent", agent_version="1.0", model_name="local/smollm2")
    )
    assert live.session_id != replay.session_id
    assert normalize(live) == normalize(replay)


def test_a_reply_the_agent_could_not_read_keeps_its_text_on_the_step():
    # the agent read no message out of the reply (message=""), yet the model wrote 3 tokens
    rec = TrajectoryRecorder(agent_name="a", agent_version="1", model_name="m")
    rec.user("hi")
    step = rec.agent_step(LLMResponse(content='{"acti', usage=Usage(5, 3)), message="")
    assert step.extra == {"completion_unparsed": True, "raw_completion": '{"acti'}
    answered = rec.agent_step(LLMResponse(content="391", usage=Usage(5, 3)))
    assert answered.extra is None
    calling = rec.agent_step(
        LLMResponse(content=None, tool_calls=(ToolCallRequest("c", "f", "{}"),), usage=Usage(5, 3))
    )
    assert calling.extra is None, "a tool call was read: nothing is unparsed"
