"""shape(): the comparable summary of one run."""

from __future__ import annotations

import dataclasses
import hashlib

import pytest

from trajguard.atif import load_trajectory
from trajguard.core.normalize import canonical_json, normalize
from trajguard.core.shape import Shape, content_hash, message_text, shape


def test_every_field_of_the_hand_built_run(make_trajectory) -> None:
    data = make_trajectory()
    s = shape(data)
    assert s.schema_version == "ATIF-v1.7"
    assert s.step_count == 5
    assert s.steps == (("system", 0), ("user", 0), ("agent", 1), ("agent", 2), ("agent", 1))
    # root first, then the subagents in normalised order (checker-a before checker-b)
    assert s.tool_calls == ("search", "read_file", "delegate", "calculator", "search")
    assert dict(s.tool_counts) == {"calculator": 1, "delegate": 1, "read_file": 1, "search": 2}
    assert list(s.tool_counts) == ["calculator", "delegate", "read_file", "search"]
    assert s.subagent_count == 3
    assert s.crashed is False
    assert s.prompt_tokens == 450 + 70 + 45 + 5
    assert s.completion_tokens == 60 + 9 + 9 + 1
    assert s.cached_tokens == 60 + 0 + 5
    assert s.final_output == "The answer is 42."
    assert s.content_hash == content_hash(normalize(data))
    assert len(s.content_hash) == 16
    assert s.llm_calls == 4
    assert s.total_tokens == 570 + 79


def test_shape_of_model_dict_and_normalized_agree(make_trajectory) -> None:
    data = make_trajectory()
    assert shape(load_trajectory(data)) == shape(data) == shape(normalize(data))


def test_shape_is_hashable_and_frozen(make_trajectory) -> None:
    s = shape(make_trajectory())
    assert hash(s) == hash(shape(make_trajectory()))
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.step_count = 1  # type: ignore[misc]


def test_content_hash_is_sha256_prefix_of_canonical_json(make_trajectory) -> None:
    norm = normalize(make_trajectory())
    expected = hashlib.sha256(canonical_json(norm).encode()).hexdigest()[:16]
    assert content_hash(norm) == expected


def test_content_hash_moves_with_any_content_change(make_trajectory) -> None:
    data = make_trajectory()
    before = shape(data)
    data["subagent_trajectories"][0]["steps"][1]["observation"]["results"][0]["content"] = "6x7=41"
    after = shape(data)
    assert after.content_hash != before.content_hash
    assert dataclasses.replace(after, content_hash=before.content_hash) == before


def test_content_hash_ignores_volatile_fields(make_trajectory, perturb_volatile) -> None:
    import random

    data = make_trajectory()
    assert shape(perturb_volatile(data, random.Random(7))) == shape(data)


def test_crashed_flag(make_minimal_trajectory) -> None:
    assert shape(make_minimal_trajectory()).crashed is False
    assert shape(make_minimal_trajectory(extra={"crashed": True})).crashed is True
    assert shape(make_minimal_trajectory(extra={"crashed": False})).crashed is False


def test_crashed_on_a_subagent_does_not_mark_the_run(make_trajectory) -> None:
    data = make_trajectory()
    data["subagent_trajectories"][0]["extra"] = {"crashed": True}
    assert shape(data).crashed is False


def test_final_output_from_content_parts(make_minimal_trajectory) -> None:
    data = make_minimal_trajectory(
        {"source": "user", "message": "draw"},
        {
            "source": "agent",
            "message": [
                {"type": "text", "text": "Here is "},
                {"type": "image", "source": {"media_type": "image/png", "path": "a.png"}},
                {"type": "text", "text": "the chart."},
            ],
        },
        {"source": "user", "message": "thanks"},  # the last step is not an agent step
    )
    assert shape(data).final_output == "Here is the chart."


def test_final_output_none_without_agent_steps(make_minimal_trajectory) -> None:
    s = shape(
        make_minimal_trajectory(
            {"source": "system", "message": "s"}, {"source": "user", "message": "u"}
        )
    )
    assert s.final_output is None
    assert s.steps == (("system", 0), ("user", 0))
    assert s.llm_calls == 0


def test_final_output_ignores_subagents(make_trajectory) -> None:
    data = make_trajectory()
    data["steps"][4]["message"] = ""
    assert shape(data).final_output == ""


def test_llm_call_count_defaults(make_minimal_trajectory) -> None:
    data = make_minimal_trajectory(
        {"source": "agent", "message": "default"},
        {"source": "agent", "message": "dispatch", "llm_call_count": 0},
        {"source": "agent", "message": "aggregated", "llm_call_count": 3},
        {"source": "user", "message": "u"},
        agent={"name": "tiny", "version": "0.1", "model_name": "m"},  # a model ran
    )
    s = shape(data)
    assert s.steps == (("agent", 1), ("agent", 0), ("agent", 3), ("user", 0))
    assert s.llm_calls == 4


def test_subagent_tools_and_tokens_are_counted(make_minimal_trajectory) -> None:
    child = make_minimal_trajectory(
        {
            "source": "agent",
            "message": "",
            "tool_calls": [
                {"tool_call_id": "x", "function_name": "grep", "arguments": {}},
                {"tool_call_id": "y", "function_name": "grep", "arguments": {}},
            ],
            "metrics": {"prompt_tokens": 7, "completion_tokens": 2, "cached_tokens": 1},
        },
        trajectory_id="c1",
    )
    data = make_minimal_trajectory(
        {
            "source": "agent",
            "message": "done",
            "tool_calls": [{"tool_call_id": "z", "function_name": "spawn", "arguments": {}}],
            "metrics": {"prompt_tokens": 10, "completion_tokens": 3},
        },
        subagent_trajectories=[child],
    )
    s = shape(data)
    assert s.tool_calls == ("spawn", "grep", "grep")
    assert dict(s.tool_counts) == {"grep": 2, "spawn": 1}
    assert s.subagent_count == 1
    assert (s.prompt_tokens, s.completion_tokens, s.cached_tokens) == (17, 5, 1)
    assert s.step_count == 1  # only root steps
    assert s.final_output == "done"


def test_missing_metrics_count_as_zero(make_minimal_trajectory) -> None:
    s = shape(make_minimal_trajectory())
    assert (s.prompt_tokens, s.completion_tokens, s.cached_tokens) == (0, 0, 0)
    assert s.tool_calls == ()
    assert dict(s.tool_counts) == {}
    assert s.subagent_count == 0


def test_schema_version_is_the_files(make_trajectory) -> None:
    data = make_trajectory()
    data["schema_version"] = "ATIF-v1.2"
    assert shape(data).schema_version == "ATIF-v1.2"
    assert shape(load_trajectory(data)).schema_version == "ATIF-v1.2"


def test_shape_is_a_shape(make_trajectory) -> None:
    assert isinstance(shape(make_trajectory()), Shape)


@pytest.mark.parametrize(
    ("message", "text"),
    [
        ("plain", "plain"),
        (
            [
                {"type": "text", "text": "a"},
                {"type": "image", "source": {}},
                {"type": "text", "text": "b"},
            ],
            "ab",
        ),
        (None, ""),
        ([], ""),
        # a media part may carry "text": null (the spec only asks a text part for text)
        ([{"type": "audio", "text": None, "source": {}}, {"type": "text", "text": "c"}], "c"),
    ],
)
def test_message_text(message: object, text: str) -> None:
    assert message_text(message) == text


# ---------------------------------------------------------------- copied context


def _step(number: int, source: str, *, copied: bool = False, **fields: object) -> dict:
    step = {"step_id": number, "source": source, "message": f"m{number}", **fields}
    if copied:
        step["is_copied_context"] = True
    return step


def test_a_continuation_counts_only_its_own_model_calls() -> None:
    # is_copied_context: "copied from a previous trajectory for context (e.g., during
    # continuation after summarization)": the copied agent step's call was made in that one
    copied = [_step(1, "system", copied=True), _step(2, "user", copied=True)]
    copied.append(_step(3, "agent", copied=True, model_name="m"))
    real = [_step(4, "user")] + [_step(n, "agent", llm_call_count=1) for n in range(5, 9)]
    data = {
        "schema_version": "ATIF-v1.6",
        "agent": {"name": "a", "version": "1"},
        "steps": copied + real,
    }
    s = shape(data)
    assert s.llm_calls == 4
    assert s.steps[:3] == (("system", 0), ("user", 0), ("agent", 0))
    assert shape(load_trajectory(data)) == s


def test_a_summarisation_file_with_one_call_counts_one() -> None:
    # a summarisation subagent's file: the history it summarises is copied, then one call
    history = [_step(n, "agent" if n % 2 else "user", copied=True) for n in range(1, 7)]
    data = {
        "schema_version": "ATIF-v1.5",
        "agent": {"name": "summarizer", "version": "1", "model_name": "m"},
        "steps": [*history, _step(7, "user"), _step(8, "agent")],
    }
    assert shape(data).llm_calls == 1


def _agent(message: str, **fields: object) -> dict:
    return {"source": "agent", "message": message, **fields}


def test_steps_of_one_response_id_are_one_call_and_their_usage_counts_once() -> None:
    usage = {"prompt_tokens": 50, "completion_tokens": 7}
    data = {
        "schema_version": "ATIF-v1.5",
        "agent": {"name": "cc", "version": "1", "model_name": "m"},
        "steps": [
            {"step_id": 1, "source": "user", "message": "go"},
            {"step_id": 2, **_agent("a", extra={"message_id": "msg_1"}, metrics=usage)},
            {"step_id": 3, **_agent("b", extra={"message_id": "msg_1"})},
            {"step_id": 4, **_agent("c", extra={"message_id": "msg_2"}, metrics=usage)},
        ],
    }
    s = shape(data)
    assert s.steps == (("user", 0), ("agent", 1), ("agent", 0), ("agent", 1))
    # msg_2 has the same usage as msg_1 but another id: a second response
    assert (s.llm_calls, s.prompt_tokens, s.completion_tokens) == (2, 100, 14)


def test_equal_usage_without_tokens_does_not_join_steps() -> None:
    empty = {"prompt_tokens": 0, "completion_tokens": 0}
    data = {
        "schema_version": "ATIF-v1.5",
        "agent": {"name": "claude-code", "version": "1", "model_name": "m"},
        "steps": [
            {"step_id": 1, **_agent("a", metrics=empty)},
            {"step_id": 2, **_agent("b", metrics=empty)},
        ],
    }
    assert shape(data).llm_calls == 2


def test_equal_usage_on_steps_that_state_their_calls_stays_two_calls() -> None:
    # even in a claude-code export (where equal usage can join split parts), a step that
    # states its llm_call_count has said it is a call of its own
    usage = {"prompt_tokens": 40, "completion_tokens": 8}
    data = {
        "schema_version": "ATIF-v1.6",
        "agent": {"name": "claude-code", "version": "1", "model_name": "m"},
        "steps": [
            {"step_id": 1, **_agent("a", metrics=usage, llm_call_count=1)},
            {"step_id": 2, **_agent("b", metrics=usage, llm_call_count=1)},
        ],
    }
    s = shape(data)
    assert (s.llm_calls, s.prompt_tokens, s.completion_tokens) == (2, 80, 16)


def test_copied_context_adds_no_tokens() -> None:
    data = {
        "schema_version": "ATIF-v1.5",
        "agent": {"name": "a", "version": "1", "model_name": "m"},
        "steps": [
            {
                "step_id": 1,
                **_agent("old", metrics={"prompt_tokens": 900}),
                "is_copied_context": True,
            },
            {"step_id": 2, **_agent("new", metrics={"prompt_tokens": 40})},
        ],
    }
    s = shape(data)
    assert (s.llm_calls, s.prompt_tokens) == (1, 40)


def test_a_trajectory_that_names_no_model_made_no_call() -> None:
    # an oracle: scripted agent steps, no model_name anywhere, no metrics
    data = {
        "schema_version": "ATIF-v1.5",
        "agent": {"name": "oracle", "version": "1"},
        "steps": [
            {"step_id": 1, "source": "user", "message": "task"},
            {"step_id": 2, **_agent("ran solve.sh")},
        ],
    }
    assert shape(data).llm_calls == 0
    # once anything names a model, an agent step is a call
    data["steps"][1]["model_name"] = "m"
    assert shape(data).llm_calls == 1


def test_a_tool_call_never_executed_is_not_counted() -> None:
    calls = [
        {"tool_call_id": "a", "function_name": "search", "arguments": {}},
        {
            "tool_call_id": "b",
            "function_name": "fetch",
            "arguments": {},
            "extra": {"executed": False},
        },
    ]
    data = {
        "schema_version": "ATIF-v1.7",
        "agent": {"name": "a", "version": "1", "model_name": "m"},
        "steps": [{"step_id": 1, **_agent("", tool_calls=calls)}],
    }
    s = shape(data)
    assert s.tool_calls == ("search",)
    assert dict(s.tool_counts) == {"search": 1}
