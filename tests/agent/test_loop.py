"""The reference agent on a scripted fake model: both modes, every way a weak model fails."""

from __future__ import annotations

import asyncio
import copy
import json

import pytest

from trajguard.agent import AgentConfig, ReferenceAgent, derive_seed
from trajguard.agent.actions import action_schema, final_text, parse_action
from trajguard.agent.tools import tool
from trajguard.capture import LLMResponse, ToolCallRequest, TrajectoryRecorder, Usage
from trajguard.core.shape import shape
from trajguard.errors import ModelRequestError, ModelUnavailable
from trajguard.normative import check_normative


class ScriptedModel:
    """A ChatModel that returns canned responses in order and records every request."""

    def __init__(self, *script, name="fake/model"):
        self.script = list(script)
        self.calls = []
        self._name = name

    @property
    def model_name(self):
        return self._name

    async def complete(
        self,
        messages,
        *,
        tools=None,
        response_format=None,
        temperature=None,
        max_tokens=None,
        seed=None,
    ):
        self.calls.append(
            {
                "messages": copy.deepcopy(list(messages)),
                "tools": tools,
                "response_format": response_format,
                "temperature": temperature,
                "max_tokens": max_tokens,
                "seed": seed,
            }
        )
        if not self.script:
            raise AssertionError("the script is exhausted")
        item = self.script.pop(0)
        if isinstance(item, BaseException):
            raise item
        if callable(item):
            return await item()
        return item


def text(content, *, prompt=20, completion=5):
    return LLMResponse(content=content, usage=Usage(prompt, completion), model="fake-1")


def action(name, **fields):
    return text(json.dumps({"tool": name, **fields}))


def calls(*requests, content=None):
    return LLMResponse(
        content=content,
        tool_calls=tuple(ToolCallRequest(*r) for r in requests),
        usage=Usage(30, 8),
        model="fake-1",
    )


def calculator(expression: str) -> str:
    """Evaluate an arithmetic expression."""
    if not set(expression) <= set("0123456789+-*/ ()"):
        raise ValueError(f"cannot evaluate {expression!r}")
    return str(eval(expression))


async def get_weather(city: str, days: int = 1) -> dict:
    """Get the weather for a city."""
    return {"city": city, "days": days, "sky": "sunny"}


def agent(**options):
    defaults = {"system_prompt": "You are helpful.", "tools": [calculator, get_weather]}
    return ReferenceAgent(AgentConfig(**{**defaults, **options}))


def sequence(trajectory):
    return [c.function_name for s in trajectory.steps for c in s.tool_calls or ()]


def results(trajectory):
    return [
        (r.source_call_id, r.content, (r.extra or {}).get("error"))
        for s in trajectory.steps
        for r in (s.observation.results if s.observation else ())
    ]


# --- json mode -------------------------------------------------------------------------------


async def test_json_mode_calls_a_tool_then_answers():
    model = ScriptedModel(
        action("calculator", arguments={"expression": "17 * 23"}),
        action("final_answer", answer="17 * 23 = 391"),
    )
    result = await agent().run(model, "What is 17 * 23?")
    assert result.status == "ok"
    assert result.final_answer == "17 * 23 = 391"
    traj = result.trajectory
    assert check_normative(traj) == []
    assert [s.source for s in traj.steps] == ["system", "user", "agent", "agent"]
    assert traj.steps[2].tool_calls[0].model_dump(exclude_unset=True) == {
        "tool_call_id": "call_1",
        "function_name": "calculator",
        "arguments": {"expression": "17 * 23"},
    }
    assert traj.steps[2].message == ""
    assert results(traj) == [("call_1", "391", None)]
    assert traj.steps[3].message == "17 * 23 = 391"
    assert traj.steps[3].tool_calls is None
    assert all(s.llm_call_count == 1 and s.model_name == "fake-1" for s in traj.steps[2:])
    assert traj.final_metrics.total_prompt_tokens == 40
    assert traj.agent.model_name == "fake/model"
    assert traj.agent.extra == {"mode": "json", "max_steps": 10, "tool_budget": None}
    assert [d["function"]["name"] for d in traj.agent.tool_definitions] == [
        "calculator",
        "get_weather",
    ]
    shaped = shape(traj)
    assert shaped.tool_calls == ("calculator",)
    assert shaped.final_output == "17 * 23 = 391"
    assert not shaped.crashed


async def test_json_mode_requests_carry_the_action_schema_and_no_tools():
    model = ScriptedModel(
        action("calculator", arguments={"expression": "2+2"}), action("final_answer", answer="4")
    )
    await agent(temperature=0.7, max_tokens=64).run(model, "What is 2+2?")
    first, second = model.calls
    assert first["tools"] is None
    schema = first["response_format"]["schema"]
    assert first["response_format"]["type"] == "json_object"
    assert [b["properties"]["tool"]["const"] for b in schema["anyOf"]] == [
        "calculator",
        "get_weather",
        "final_answer",
    ]
    assert schema["anyOf"][0]["properties"]["arguments"]["required"] == ["expression"]
    assert (first["temperature"], first["max_tokens"]) == (0.7, 64)
    system = first["messages"][0]
    assert system["role"] == "system"
    assert system["content"].startswith("You are helpful.\n\nYou can use these tools:")
    assert (
        "- calculator(expression: string): Evaluate an arithmetic expression." in system["content"]
    )
    assert '"' not in system["content"]  # llama.cpp's template would HTML-escape it
    assert second["messages"][-2:] == [
        {
            "role": "assistant",
            "content": json.dumps({"tool": "calculator", "arguments": {"expression": "2+2"}}),
        },
        {"role": "user", "content": "Result of calculator: 4"},
    ]


async def test_malformed_json_is_fed_back_and_the_run_goes_on():
    model = ScriptedModel(
        text('{"tool": "calculator", "arguments": {"expression": "17 *'),
        action("final_answer", answer="391"),
    )
    result = await agent().run(model, "What is 17 * 23?")
    assert result.status == "ok"
    traj = result.trajectory
    assert check_normative(traj) == []
    bad = traj.steps[2]
    assert bad.message == '{"tool": "calculator", "arguments": {"expression": "17 *'
    assert bad.tool_calls is None
    ((source, feedback, error),) = results(traj)
    assert (source, error) == (None, "malformed_action")
    assert feedback.startswith("Error: the reply is not valid JSON")
    assert model.calls[1]["messages"][-1] == {"role": "user", "content": feedback}
    assert model.calls[1]["response_format"] is not None


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        ("", "the reply was empty"),
        ("[1, 2]", "the reply is a JSON list, not an object"),
        ('{"arguments": {}}', "the reply has no tool (a tool name or final_answer)"),
        ('{"tool": "final_answer"}', "final_answer needs an answer"),
    ],
)
async def test_every_kind_of_malformed_reply_is_reported(reply, reason):
    model = ScriptedModel(text(reply), action("final_answer", answer="ok"))
    result = await agent().run(model, "q")
    assert result.status == "ok"
    assert reason in results(result.trajectory)[0][1]


async def test_unknown_tools_wrong_arguments_and_raising_tools_become_error_observations():
    model = ScriptedModel(
        action("search", arguments={"q": "x"}),
        action("calculator", arguments={"expr": "1+1"}),
        action("get_weather", arguments={"city": "Oslo", "days": "many"}),
        action("calculator", arguments="17*23"),
        action("calculator", arguments={"expression": "import os"}),
        action("calculator", arguments={"expression": "1+1"}),
        action("final_answer", answer=2),
    )
    result = await agent().run(model, "q")
    assert result.status == "ok"
    assert result.final_answer == "2"
    traj = result.trajectory
    assert check_normative(traj) == []
    assert sequence(traj) == [
        "search",
        "calculator",
        "get_weather",
        "calculator",
        "calculator",
        "calculator",
    ]
    observed = results(traj)
    assert observed[0] == (
        "call_1",
        "Error: unknown tool 'search'. Available tools: calculator, get_weather.",
        "unknown_tool",
    )
    assert observed[1] == (
        "call_2",
        "Error: invalid arguments for calculator: missing required argument 'expression'; "
        "unexpected argument 'expr'",
        "invalid_arguments",
    )
    assert observed[2][1].startswith(
        "Error: invalid arguments for get_weather: days: Input should be a valid integer"
    )
    assert observed[3][1] == (
        "Error: invalid arguments for calculator: arguments must be a JSON object, got '17*23'"
    )
    assert traj.steps[5].tool_calls[0].arguments == {}
    assert traj.steps[5].tool_calls[0].extra == {"raw_arguments": '"17*23"'}
    assert observed[4] == ("call_5", "Error: ValueError: cannot evaluate 'import os'", "tool_error")
    assert observed[5] == ("call_6", "2", None)


async def test_the_tool_budget_ends_with_one_call_without_the_schema():
    model = ScriptedModel(
        action("get_weather", arguments={"city": "17"}),
        action("calculator", arguments={"expression": "17*23"}),
        text("The answer is 391."),
    )
    result = await agent(tool_budget=2).run(model, "What is 17 * 23?")
    assert (result.status, result.final_answer) == ("ok", "The answer is 391.")
    last = model.calls[-1]
    assert last["response_format"] is None
    assert last["tools"] is None
    notice = (
        "You have used all your tool calls. Using the results above, answer in plain text: "
        "What is 17 * 23?"
    )
    assert last["messages"][-1] == {"role": "user", "content": notice}
    traj = result.trajectory
    assert check_normative(traj) == []
    assert [s.source for s in traj.steps] == ["system", "user", "agent", "agent", "system", "agent"]
    assert traj.steps[4].message == notice
    assert traj.steps[4].extra == {"notice": "tool_budget_spent"}
    assert traj.steps[5].message == "The answer is 391."


async def test_a_json_final_answer_to_the_last_call_is_unwrapped():
    model = ScriptedModel(
        action("calculator", arguments={"expression": "1+1"}),
        action("final_answer", answer="2"),
    )
    result = await agent(tool_budget=1).run(model, "q")
    assert result.final_answer == "2"
    assert result.trajectory.steps[-1].message == "2"


async def test_a_zero_budget_goes_straight_to_the_answer():
    model = ScriptedModel(text("I cannot use tools."))
    result = await agent(tool_budget=0).run(model, "q")
    assert (result.status, result.final_answer) == ("ok", "I cannot use tools.")
    assert model.calls[0]["response_format"] is None


async def test_max_steps_ends_the_run_as_a_recorded_agent_error():
    model = ScriptedModel(*[action("get_weather", arguments={"city": "x"})] * 3)
    result = await agent(max_steps=3).run(model, "q")
    assert result.status == "agent_error"
    assert result.final_answer is None
    assert result.error_type == "max_steps"
    assert result.error_message == "no final answer after 3 model calls (max_steps)"
    traj = result.trajectory
    assert check_normative(traj) == []
    assert traj.extra == {"agent_error": {"reason": "max_steps", "message": result.error_message}}
    assert sequence(traj) == ["get_weather"] * 3
    assert not shape(traj).crashed


async def test_context_overflow_ends_the_run_cleanly():
    overflow = ModelRequestError("context window exceeded: 4096 tokens", context_overflow=True)
    model = ScriptedModel(action("get_weather", arguments={"city": "x"}), overflow)
    result = await agent().run(model, "q")
    assert (result.status, result.error_type) == ("agent_error", "context_overflow")
    assert result.error_message == "context window exceeded: 4096 tokens"
    traj = result.trajectory
    assert check_normative(traj) == []
    assert traj.extra["agent_error"]["reason"] == "context_overflow"
    assert sum(s.source == "agent" for s in traj.steps) == 1


async def test_a_rejected_request_is_an_agent_error_too():
    model = ScriptedModel(ModelRequestError("bad request: unsupported parameter"))
    result = await agent().run(model, "q")
    assert (result.status, result.error_type) == ("agent_error", "model_request_error")


async def test_model_unavailable_propagates_with_the_finished_trajectory():
    model = ScriptedModel(
        action("calculator", arguments={"expression": "1+1"}), ModelUnavailable("server gone")
    )
    with pytest.raises(ModelUnavailable) as caught:
        await agent().run(model, "q")
    traj = caught.value.trajectory
    assert check_normative(traj) == []
    assert traj.extra == {
        "crashed": True,
        "error": {"type": "ModelUnavailable", "message": "server gone"},
    }
    assert sequence(traj) == ["calculator"]
    assert shape(traj).crashed


async def test_a_crash_inside_the_agent_still_yields_a_valid_trajectory():
    model = ScriptedModel(
        action("calculator", arguments={"expression": "1+1"}), RuntimeError("bug in a wrapper")
    )
    with pytest.raises(RuntimeError, match="bug in a wrapper") as caught:
        await agent().run(model, "q")
    traj = caught.value.trajectory
    assert traj.extra["crashed"] is True
    assert traj.extra["error"] == {"type": "RuntimeError", "message": "bug in a wrapper"}
    assert check_normative(traj) == []
    assert traj.final_metrics.total_steps == len(traj.steps) == 3


async def test_a_cancelled_run_leaves_its_trajectory_in_the_callers_recorder():
    async def hang():
        await asyncio.sleep(60)

    model = ScriptedModel(action("calculator", arguments={"expression": "1+1"}), hang)
    runner = agent()
    recorder = runner.new_recorder(model)
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(runner.run(model, "q", recorder=recorder), timeout=0.2)
    traj = recorder.trajectory
    assert traj is not None
    assert traj.extra["error"]["type"] == "CancelledError"
    assert check_normative(traj) == []


# --- native mode -----------------------------------------------------------------------------


async def test_native_mode_runs_every_call_and_answers_with_tool_messages():
    model = ScriptedModel(
        calls(
            ("call_x9", "calculator", '{"expression": "17*23"}'),
            ("call_y7", "get_weather", '{"city": "Oslo"}'),
        ),
        text("391, and sunny in Oslo."),
    )
    result = await agent(mode="native").run(model, "q")
    assert (result.status, result.final_answer) == ("ok", "391, and sunny in Oslo.")
    first, second = model.calls
    assert first["response_format"] is None
    assert [t["function"]["name"] for t in first["tools"]] == ["calculator", "get_weather"]
    assert first["messages"][0] == {"role": "system", "content": "You are helpful."}
    assistant, tool_a, tool_b = second["messages"][-3:]
    assert [c["id"] for c in assistant["tool_calls"]] == ["call_x9", "call_y7"]
    assert assistant["content"] == ""  # never None: llama.cpp's template needs the key
    assert assistant["tool_calls"][0]["function"] == {
        "name": "calculator",
        "arguments": '{"expression": "17*23"}',
    }
    assert tool_a == {"role": "tool", "tool_call_id": "call_x9", "content": "391"}
    assert tool_b["tool_call_id"] == "call_y7"
    assert json.loads(tool_b["content"]) == {"city": "Oslo", "days": 1, "sky": "sunny"}
    traj = result.trajectory
    assert check_normative(traj) == []
    assert [r[0] for r in results(traj)] == ["call_x9", "call_y7"]
    assert traj.agent.extra["mode"] == "native"


async def test_native_mode_mints_missing_ids_and_answers_with_them():
    model = ScriptedModel(calls(("", "calculator", '{"expression": "1+1"}')), text("2"))
    result = await agent(mode="native").run(model, "q")
    assistant, answer = model.calls[1]["messages"][-2:]
    assert assistant["tool_calls"][0]["id"] == "call_1"
    assert answer["tool_call_id"] == "call_1"
    assert results(result.trajectory) == [("call_1", "2", None)]


async def test_native_mode_reports_bad_arguments_and_unknown_tools():
    model = ScriptedModel(
        calls(
            ("a", "calculator", "{'expression': 1}"),
            ("b", "nope", "{}"),
            ("c", "calculator", '{"expression": 5}'),
        ),
        text("done"),
    )
    result = await agent(mode="native").run(model, "q")
    observed = results(result.trajectory)
    assert observed[0][2] == "invalid_arguments"
    assert observed[0][1].startswith(
        "Error: invalid arguments for calculator: arguments must be a JSON object"
    )
    assert observed[1][2] == "unknown_tool"
    assert observed[2] == ("c", "5", None)  # 5 is coerced to the string "5"
    assert check_normative(result.trajectory) == []


async def test_native_mode_budget_answers_calls_past_it_without_running_them():
    model = ScriptedModel(
        calls(
            ("a", "calculator", '{"expression": "1+1"}'),
            ("b", "calculator", '{"expression": "2+2"}'),
        ),
        text("2"),
    )
    result = await agent(mode="native", tool_budget=1).run(model, "q")
    assert results(result.trajectory)[1] == (
        "b",
        "Error: the tool budget is spent; this call was not run. Give your final answer.",
        "budget_exhausted",
    )
    assert model.calls[1]["tools"] is None
    assert result.final_answer == "2"


async def test_native_mode_that_never_answers_hits_max_steps():
    model = ScriptedModel(*[calls(("", "get_weather", '{"city": "x"}'))] * 4)
    result = await agent(mode="native", max_steps=4).run(model, "What is 17 * 23?")
    assert (result.status, result.error_type) == ("agent_error", "max_steps")
    traj = result.trajectory
    assert [c.tool_call_id for s in traj.steps for c in s.tool_calls or ()] == [
        "call_1",
        "call_2",
        "call_3",
        "call_4",
    ]
    assert check_normative(traj) == []


# --- seeds, configuration, helpers ---------------------------------------------------------


def test_derive_seed_is_deterministic_31_bit_and_varies_by_call():
    seeds = [derive_seed(42, i) for i in range(50)]
    assert seeds == [derive_seed(42, i) for i in range(50)]
    assert len(set(seeds)) == 50
    assert all(0 <= s < 2**31 for s in seeds)
    assert derive_seed(43, 0) != derive_seed(42, 0)
    assert derive_seed(None, 3) is None


async def test_each_call_is_sent_the_seed_derived_from_the_run_seed():
    model = ScriptedModel(
        action("calculator", arguments={"expression": "1"}), action("final_answer", answer="1")
    )
    await agent().run(model, "q", seed=7)
    assert [c["seed"] for c in model.calls] == [derive_seed(7, 0), derive_seed(7, 1)]

    configured = ScriptedModel(action("final_answer", answer="1"))
    await agent(seed=9).run(configured, "q")
    assert configured.calls[0]["seed"] == derive_seed(9, 0)

    unseeded = ScriptedModel(action("final_answer", answer="1"))
    await agent().run(unseeded, "q")
    assert unseeded.calls[0]["seed"] is None


async def test_an_agent_is_reusable_and_runs_concurrently():
    runner = agent()
    models = [
        ScriptedModel(
            action("calculator", arguments={"expression": f"{i}+1"}),
            action("final_answer", answer=str(i + 1)),
        )
        for i in range(5)
    ]
    outcomes = await asyncio.gather(*(runner.run(m, f"{i}+1?") for i, m in enumerate(models)))
    assert [o.final_answer for o in outcomes] == ["1", "2", "3", "4", "5"]
    assert all(check_normative(o.trajectory) == [] for o in outcomes)
    assert len({o.trajectory.session_id for o in outcomes}) == 5


async def test_a_given_recorder_receives_the_run():
    model = ScriptedModel(action("final_answer", answer="hi"))
    recorder = TrajectoryRecorder(agent_name="mine", agent_version="2")
    result = await agent().run(model, "q", recorder=recorder)
    assert result.trajectory is recorder.trajectory
    assert result.trajectory.agent.name == "mine"


async def test_an_empty_system_prompt_adds_no_system_step_in_native_mode():
    model = ScriptedModel(text("hello"))
    result = await ReferenceAgent(mode="native").run(model, "hi")
    assert [s.source for s in result.trajectory.steps] == ["user", "agent"]
    assert model.calls[0]["tools"] is None
    assert result.trajectory.agent.name == "trajguard-reference-agent"


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"mode": "chat"}, "mode must be"),
        ({"max_steps": 0}, "max_steps must be at least 1"),
        ({"tool_budget": -1}, "tool_budget must be"),
        ({"tools": [calculator, tool(calculator)]}, "two tools are named 'calculator'"),
        ({"tools": [tool(calculator, name="final_answer")]}, "reserved"),
    ],
)
def test_invalid_configurations_are_rejected(options, message):
    with pytest.raises(ValueError, match=message):
        ReferenceAgent(**options)


def test_config_and_options_are_exclusive():
    with pytest.raises(ValueError, match="not both"):
        ReferenceAgent(AgentConfig(), mode="json")


def test_action_parsing_is_lenient_only_where_it_is_safe():
    assert parse_action('```json\n{"tool": "a", "arguments": {"x": 1}}\n```').arguments == {"x": 1}
    assert parse_action('{"action": "a", "arguments": {"x": 2}}').arguments == {"x": 2}
    assert (
        parse_action('{"tool": "final_answer", "answer": "line1\nline2"}').answer == "line1\nline2"
    )
    assert parse_action('{"tool": "a"}').arguments == {}
    assert final_text('{"tool": "final_answer", "answer": "391"}') == "391"
    assert (
        final_text('{"tool": "calculator", "arguments": {}}')
        == '{"tool": "calculator", "arguments": {}}'
    )
    assert final_text("It is 391.") == "It is 391."


def test_a_reply_nested_200000_levels_deep_is_a_malformed_action_not_a_crash():
    from trajguard.agent.actions import MalformedAction

    deep = '{"tool": "a", "arguments": ' + "[" * 200_000 + "]" * 200_000 + "}"
    with pytest.raises(MalformedAction, match="nested more than 256 levels deep"):
        parse_action(deep)
    assert final_text(deep) == deep  # the text stays the run's answer, as any non-action


def test_the_action_schema_without_tools_only_allows_an_answer():
    assert action_schema([]) == {
        "anyOf": [
            {
                "type": "object",
                "properties": {"tool": {"const": "final_answer"}, "answer": {"type": "string"}},
                "required": ["tool", "answer"],
            }
        ]
    }
