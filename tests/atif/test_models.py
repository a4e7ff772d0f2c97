"""The ATIF schema (trajguard.atif._models): v1.8 audio, and the structure Harbor's models enforce.

Each fixture is written from the field descriptions of the ATIF spec (v1.8): what the field is,
whether it is required, which values it allows.
"""

from __future__ import annotations

from typing import Any

import pytest

from trajguard.atif import (
    AudioPart,
    AudioSource,
    ImagePart,
    load_trajectory,
    trajectory_to_dict,
)
from trajguard.errors import InvalidTrajectory


def _with_message(message: Any, version: str = "ATIF-v1.8") -> dict[str, Any]:
    return {
        "schema_version": version,
        "agent": {"name": "listener", "version": "1"},
        "steps": [{"step_id": 1, "source": "user", "message": message}],
    }


def _rejected_at(data: dict[str, Any]) -> str:
    with pytest.raises(InvalidTrajectory) as info:
        load_trajectory(data)
    assert info.value.path is not None
    return info.value.path


# ---------------------------------------------------------------- v1.8: audio content parts


def test_an_audio_part_with_its_duration_loads_and_round_trips() -> None:
    # v1.8: "audio" parts carry an AudioSource: media_type, path, optional duration_sec
    part = {
        "type": "audio",
        "source": {"media_type": "audio/wav", "path": "clips/q1.wav", "duration_sec": 3.5},
    }
    data = _with_message([{"type": "text", "text": "listen:"}, part])
    traj = load_trajectory(data)
    message = traj.steps[0].message
    assert isinstance(message, list)
    assert isinstance(message[1], AudioPart)
    assert isinstance(message[1].source, AudioSource)
    assert message[1].source.duration_sec == 3.5
    assert trajectory_to_dict(traj)["steps"][0]["message"] == data["steps"][0]["message"]


@pytest.mark.parametrize("spelling", ["audio/mp3", "AUDIO/X-WAV", " audio/m4a ", "audio/flac"])
def test_audio_aliases_are_accepted_and_kept_as_written(spelling: str) -> None:
    # v1.8 accepts the spellings producers copy from provider responses ("audio/mp3")
    data = _with_message([{"type": "audio", "source": {"media_type": spelling, "path": "a"}}])
    out = trajectory_to_dict(load_trajectory(data))
    assert out["steps"][0]["message"][0]["source"]["media_type"] == spelling


@pytest.mark.parametrize(
    ("part", "path"),
    [
        (
            {"type": "audio", "source": {"media_type": "audio/midi", "path": "a.mid"}},
            "$.steps[0].message[0].source.media_type",
        ),
        (
            {
                "type": "audio",
                "source": {"media_type": "audio/wav", "path": "a", "duration_sec": -1},
            },
            "$.steps[0].message[0].source.duration_sec",
        ),
        (
            {"type": "image", "source": {"media_type": "image/tiff", "path": "a.tif"}},
            "$.steps[0].message[0].source.media_type",
        ),
        (  # an audio source under type "image": the source must be of the declared kind
            {"type": "image", "source": {"media_type": "audio/wav", "path": "a.wav"}},
            "$.steps[0].message[0].source.media_type",
        ),
        ({"type": "audio"}, "$.steps[0].message[0].source"),
        (
            {"type": "text", "text": "t", "source": {"media_type": "image/png", "path": "p"}},
            "$.steps[0].message[0].source",
        ),
        (
            {
                "type": "image",
                "text": "caption",
                "source": {"media_type": "image/png", "path": "p"},
            },
            "$.steps[0].message[0].text",
        ),
        ({"type": "video", "source": {"path": "v.mp4"}}, "$.steps[0].message[0]"),
    ],
)
def test_content_parts_outside_the_spec_are_rejected_with_their_path(
    part: dict[str, Any], path: str
) -> None:
    assert _rejected_at(_with_message([part])) == path


def test_an_explicit_null_on_the_other_kind_of_part_is_allowed() -> None:
    # text is "required when type='text'", source "required when type='image'": a null for the
    # field that does not apply is the same as leaving it out
    image = {"type": "image", "text": None, "source": {"media_type": "image/png", "path": "p"}}
    traj = load_trajectory(_with_message([{"type": "text", "text": "t", "source": None}, image]))
    message = traj.steps[0].message
    assert isinstance(message, list)
    assert isinstance(message[1], ImagePart)


def test_audio_parts_load_in_files_of_any_version() -> None:
    # one schema for every version, as the reference validator has
    data = _with_message([{"type": "audio", "source": {"media_type": "audio/ogg", "path": "a"}}])
    data["schema_version"] = "ATIF-v1.6"
    assert load_trajectory(data).schema_version == "ATIF-v1.6"


# ---------------------------------------------------------------- required fields and ranges


def _agent_step(**fields: Any) -> dict[str, Any]:
    return {
        "schema_version": "ATIF-v1.8",
        "agent": {"name": "a", "version": "1"},
        "steps": [{"step_id": 1, "source": "agent", "message": "", **fields}],
    }


@pytest.mark.parametrize(
    ("fields", "path"),
    [
        # ToolCall.arguments: "Arguments passed to the function (can be empty dict)": required
        (
            {"tool_calls": [{"tool_call_id": "c", "function_name": "f"}]},
            "$.steps[0].tool_calls[0].arguments",
        ),
        # Observation.results: "Array of result objects": required
        ({"observation": {}}, "$.steps[0].observation.results"),
        # llm_call_count: a number of inferences, so not negative
        ({"llm_call_count": -1}, "$.steps[0].llm_call_count"),
        # logprobs: "Log probability assigned to each generated token": numbers
        ({"metrics": {"logprobs": ["high"]}}, "$.steps[0].metrics.logprobs[0]"),
    ],
)
def test_structure_the_spec_requires(fields: dict[str, Any], path: str) -> None:
    assert _rejected_at(_agent_step(**fields)) == path


def test_total_steps_is_not_negative() -> None:
    data = _agent_step()
    data["final_metrics"] = {"total_steps": -1}
    assert _rejected_at(data) == "$.final_metrics.total_steps"


def test_token_counts_have_no_range_in_the_spec() -> None:
    # the reference models put no bound on token counts; neither does trajguard
    traj = load_trajectory(_agent_step(metrics={"prompt_tokens": -3, "logprobs": [-0.5, 0]}))
    assert traj.steps[0].metrics is not None
    assert traj.steps[0].metrics.prompt_tokens == -3


def test_an_embedded_subagent_with_an_unknown_version_is_rejected() -> None:
    data = _agent_step()
    data["subagent_trajectories"] = [
        {
            "schema_version": "ATIF-v2.0",
            "trajectory_id": "t1",
            "agent": {"name": "sub", "version": "1"},
            "steps": [{"step_id": 1, "source": "user", "message": "x"}],
        }
    ]
    assert _rejected_at(data) == "$.subagent_trajectories[0].schema_version"


def test_reasoning_effort_is_a_string_or_a_number() -> None:
    assert load_trajectory(_agent_step(reasoning_effort="high")).steps[0].reasoning_effort == "high"
    assert load_trajectory(_agent_step(reasoning_effort=2)).steps[0].reasoning_effort == 2
    assert _rejected_at(_agent_step(reasoning_effort=[1])) == "$.steps[0].reasoning_effort"


def test_a_ref_with_both_trajectory_id_and_path_loads() -> None:
    # "When both trajectory_id and trajectory_path are set, consumers MAY choose either"
    ref = {"trajectory_id": "t9", "trajectory_path": "sub.json", "session_id": "s"}
    data = _agent_step(observation={"results": [{"subagent_trajectory_ref": [ref]}]})
    out = trajectory_to_dict(load_trajectory(data))
    assert out["steps"][0]["observation"]["results"][0]["subagent_trajectory_ref"] == [ref]


def test_a_ref_with_only_a_session_id_is_not_resolvable() -> None:
    # v1.7: "session_id alone is not a resolution key"
    data = _agent_step(
        observation={"results": [{"subagent_trajectory_ref": [{"session_id": "s"}]}]}
    )
    assert _rejected_at(data) == "$.steps[0].observation.results[0].subagent_trajectory_ref[0]"
