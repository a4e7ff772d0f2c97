"""Reading and writing ATIF v1.0 to v1.8 (trajguard.atif._io)."""

from __future__ import annotations

import json

import pytest

from trajguard.atif import (
    ATIF_VERSION,
    MAX_NESTING,
    ImagePart,
    TextPart,
    Trajectory,
    UnknownFieldsWarning,
    dump_trajectory,
    load_trajectory,
    trajectory_to_dict,
    unknown_fields,
)
from trajguard.errors import InvalidTrajectory, TrajguardError, UnsupportedSchemaVersion


def _v10_style(version: str) -> dict:
    """What an old producer writes: no trajectory_id, no session_id, no subagents."""
    return {
        "schema_version": version,
        "agent": {"name": "old", "version": "0.9"},
        "steps": [
            {"step_id": 1, "source": "user", "message": "hi"},
            {
                "step_id": 2,
                "source": "agent",
                "message": "calling",
                "tool_calls": [{"tool_call_id": "c1", "function_name": "ls", "arguments": {}}],
                "observation": {"results": [{"source_call_id": "c1", "content": "a b"}]},
                "metrics": {"prompt_tokens": 3, "completion_tokens": 1},
            },
        ],
    }


# ---------------------------------------------------------------- versions


@pytest.mark.parametrize("minor", range(9))
def test_every_v1_version_loads(minor: int) -> None:
    version = f"ATIF-v1.{minor}"
    traj = load_trajectory(_v10_style(version))
    assert traj.schema_version == version
    assert [s.source for s in traj.steps] == ["user", "agent"]
    assert traj.steps[1].tool_calls is not None
    assert traj.steps[1].tool_calls[0].function_name == "ls"


@pytest.mark.parametrize(
    "version", ["ATIF-v2.0", "ATIF-v1.9", "1.7", "ATIF-v1.7.1", "atif-v1.7", 17]
)
def test_unsupported_schema_version(version: object, make_minimal_trajectory) -> None:
    data = make_minimal_trajectory(schema_version=version)
    with pytest.raises(UnsupportedSchemaVersion) as info:
        load_trajectory(data)
    err = info.value
    assert err.path == "$.schema_version"
    assert isinstance(err, InvalidTrajectory)
    assert isinstance(err, TrajguardError)
    assert repr(version) in err.message
    assert err.hint


def test_v2_from_a_file_names_the_file(tmp_path, make_minimal_trajectory) -> None:
    path = tmp_path / "run.json"
    path.write_text(json.dumps(make_minimal_trajectory(schema_version="ATIF-v2.0")))
    with pytest.raises(UnsupportedSchemaVersion) as info:
        load_trajectory(path)
    assert info.value.file == str(path)
    assert info.value.path == "$.schema_version"
    assert str(path) in str(info.value)


def test_missing_schema_version_is_not_atif(make_minimal_trajectory) -> None:
    data = make_minimal_trajectory()
    del data["schema_version"]
    with pytest.raises(InvalidTrajectory) as info:
        load_trajectory(data)
    assert type(info.value) is InvalidTrajectory
    assert info.value.path == "$.schema_version"
    assert "schema_version" in info.value.message


# ---------------------------------------------------------------- bad input


def test_not_json_from_a_file_reports_file_and_line(tmp_path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{\n  "schema_version": "ATIF-v1.7",\n  "agent": {,\n}\n')
    with pytest.raises(InvalidTrajectory) as info:
        load_trajectory(path)
    err = info.value
    assert err.file == str(path)
    assert err.line == 3
    assert "not valid JSON" in err.message
    assert f"{path}:3" in str(err)


def test_not_json_from_a_path_string(tmp_path) -> None:
    path = tmp_path / "broken.json"
    path.write_text("not json at all")
    with pytest.raises(InvalidTrajectory) as info:
        load_trajectory(str(path))
    assert info.value.file == str(path)
    assert info.value.line == 1


def test_not_json_from_a_string_and_bytes() -> None:
    with pytest.raises(InvalidTrajectory) as info:
        load_trajectory('{"schema_version": ')
    assert info.value.file == "<string>"
    assert info.value.line == 1
    with pytest.raises(InvalidTrajectory) as info_bytes:
        load_trajectory(b"\xff{")
    assert "not valid JSON" in info_bytes.value.message


def test_top_level_list_is_rejected_with_root_path() -> None:
    with pytest.raises(InvalidTrajectory) as info:
        load_trajectory('[{"schema_version": "ATIF-v1.7"}]')
    assert info.value.path == "$"
    assert "list" in info.value.message


def test_top_level_list_from_file(tmp_path) -> None:
    path = tmp_path / "list.json"
    path.write_text("[]")
    with pytest.raises(InvalidTrajectory) as info:
        load_trajectory(path)
    assert info.value.path == "$"
    assert info.value.file == str(path)


def _nested_arguments(depth: int) -> dict:
    """A tool call whose arguments make the document ``depth`` levels deep."""
    value: dict = {}
    for _ in range(depth - 6):  # root, steps, step, tool_calls, call and arguments are 6
        value = {"x": value}
    return {
        "schema_version": "ATIF-v1.7",
        "agent": {"name": "deep", "version": "1"},
        "steps": [
            {
                "step_id": 1,
                "source": "agent",
                "message": "",
                "tool_calls": [{"tool_call_id": "c", "function_name": "f", "arguments": value}],
            }
        ],
    }


def test_nesting_up_to_the_limit_loads_and_normalizes() -> None:
    from trajguard.core.shape import shape

    trajectory = load_trajectory(_nested_arguments(MAX_NESTING))
    assert shape(trajectory).tool_calls == ("f",)


@pytest.mark.parametrize("depth", [MAX_NESTING + 1, 500])
def test_nesting_beyond_the_limit_names_the_json_path(depth: int, tmp_path) -> None:
    path = tmp_path / "deep.json"
    path.write_text(json.dumps(_nested_arguments(depth)))
    with pytest.raises(InvalidTrajectory) as info:
        load_trajectory(path)
    assert info.value.file == str(path)
    assert f"nested more than {MAX_NESTING} levels deep" in info.value.message
    assert info.value.path is not None
    assert info.value.path.startswith("$.steps[0].tool_calls[0].arguments.x.x")
    assert len(info.value.path) < 80  # the repeating tail is cut


def test_nesting_too_deep_to_parse_is_invalid_not_a_recursion_error() -> None:
    for source in ("[" * 100_000, b"[" * 100_000, '{"a":' * 100_000):
        with pytest.raises(InvalidTrajectory) as info:
            load_trajectory(source)
        assert info.value.file == "<string>"
        assert info.value.path == "$"
        assert "nested more than" in info.value.message


def test_file_not_found(tmp_path) -> None:
    missing = tmp_path / "nope.json"
    with pytest.raises(InvalidTrajectory) as info:
        load_trajectory(missing)
    assert info.value.file == str(missing)
    assert "not found" in info.value.message


def test_wrong_source_literal_reports_its_path(make_minimal_trajectory) -> None:
    data = make_minimal_trajectory()
    data["steps"][1]["source"] = "assistant"
    with pytest.raises(InvalidTrajectory) as info:
        load_trajectory(data)
    assert type(info.value) is InvalidTrajectory
    assert info.value.path == "$.steps[1].source"
    assert "'assistant'" in info.value.message


def test_wrong_source_from_file_has_file_and_path(tmp_path, make_minimal_trajectory) -> None:
    data = make_minimal_trajectory()
    data["steps"][1]["source"] = "assistant"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data, indent=2))
    with pytest.raises(InvalidTrajectory) as info:
        load_trajectory(path)
    assert info.value.file == str(path)
    assert info.value.path == "$.steps[1].source"


def test_arguments_as_a_string_is_rejected(make_minimal_trajectory) -> None:
    data = make_minimal_trajectory(
        {"source": "user", "message": "go"},
        {
            "source": "agent",
            "message": "",
            "tool_calls": [{"tool_call_id": "c", "function_name": "f", "arguments": '{"x": 1}'}],
        },
    )
    with pytest.raises(InvalidTrajectory) as info:
        load_trajectory(data)
    assert info.value.path == "$.steps[1].tool_calls[0].arguments"


@pytest.mark.parametrize(
    ("mutate", "path"),
    [
        (lambda d: d.pop("agent"), "$.agent"),
        (lambda d: d.pop("steps"), "$.steps"),
        (lambda d: d.__setitem__("steps", {"step_id": 1}), "$.steps"),
        (lambda d: d["steps"][0].__setitem__("step_id", "one"), "$.steps[0].step_id"),
        (lambda d: d["agent"].pop("version"), "$.agent.version"),
        (
            lambda d: d["steps"][1].__setitem__("metrics", {"prompt_tokens": "many"}),
            "$.steps[1].metrics.prompt_tokens",
        ),
        (
            lambda d: d["steps"][1].__setitem__(
                "observation", {"results": [{"subagent_trajectory_ref": [{}]}]}
            ),
            "$.steps[1].observation.results[0].subagent_trajectory_ref[0]",
        ),
    ],
)
def test_structural_errors_name_the_json_path(mutate, path, make_minimal_trajectory) -> None:
    data = make_minimal_trajectory()
    mutate(data)
    with pytest.raises(InvalidTrajectory) as info:
        load_trajectory(data)
    assert info.value.path == path
    assert path in str(info.value)


def test_bad_content_part_path_has_no_union_labels(make_minimal_trajectory) -> None:
    data = make_minimal_trajectory(
        {"source": "user", "message": [{"type": "text", "text": "ok"}, {"type": "text"}]}
    )
    with pytest.raises(InvalidTrajectory) as info:
        load_trajectory(data)
    text = str(info.value)
    # the content-part branch of the union says what is wrong; "not a string" would not
    assert info.value.path == "$.steps[0].message[1].text"
    assert "$.steps[0].message[1].text: not valid ATIF: Field required" in text
    assert "valid string" not in text
    assert "tagged-union" not in text
    assert ".text.text" not in text  # the discriminator value is not a document key


def test_error_in_a_subagent_has_the_nested_path(make_trajectory) -> None:
    data = make_trajectory()
    data["subagent_trajectories"][1]["steps"][0]["source"] = "robot"
    with pytest.raises(InvalidTrajectory) as info:
        load_trajectory(data)
    assert info.value.path == "$.subagent_trajectories[1].steps[0].source"


# ---------------------------------------------------------------- coercion, unknown fields


def test_step_id_as_string_is_coerced(make_minimal_trajectory) -> None:
    data = make_minimal_trajectory()
    data["steps"][0]["step_id"] = "1"
    data["steps"][1]["step_id"] = "2"
    traj = load_trajectory(data)
    assert [s.step_id for s in traj.steps] == [1, 2]
    assert trajectory_to_dict(traj)["steps"][1]["step_id"] == 2


def test_unknown_fields_are_kept_and_reported(make_minimal_trajectory) -> None:
    data = make_minimal_trajectory(
        {"source": "user", "message": "go", "x_step": {"a": 1}},
        {
            "source": "agent",
            "message": [{"type": "text", "text": "t", "x_part": True}],
            "tool_calls": [
                {"tool_call_id": "c", "function_name": "f", "arguments": {}, "x_call": 3}
            ],
            "observation": {"results": [{"source_call_id": "c", "content": "r", "x_res": 1}]},
            "extra": {"producer_thing": 1, "generation_id": "g"},
        },
        x_root="kept",
        extra={"not_unknown": True},
    )
    with pytest.warns(UnknownFieldsWarning) as caught:
        traj = load_trajectory(data)
    assert len(caught) == 1  # one warning per document, not one per field
    assert "5 field(s) not in ATIF" in str(caught[0].message)
    assert "$.x_root, $.steps[0].x_step, $.steps[1].message[0].x_part and 2 more" in str(
        caught[0].message
    )
    assert unknown_fields(traj) == [
        "$.x_root",
        "$.steps[0].x_step",
        "$.steps[1].message[0].x_part",
        "$.steps[1].tool_calls[0].x_call",
        "$.steps[1].observation.results[0].x_res",
    ]
    out = trajectory_to_dict(traj)
    assert out["x_root"] == "kept"
    assert out["steps"][0]["x_step"] == {"a": 1}
    assert out["steps"][1]["message"][0]["x_part"] is True
    assert out["steps"][1]["tool_calls"][0]["x_call"] == 3
    assert out["steps"][1]["observation"]["results"][0]["x_res"] == 1
    assert out["extra"] == {"not_unknown": True}
    assert out["steps"][1]["extra"] == {"producer_thing": 1, "generation_id": "g"}


def test_no_unknown_fields_in_a_clean_run(make_trajectory) -> None:
    assert unknown_fields(load_trajectory(make_trajectory())) == []


def test_unknown_field_in_a_subagent_has_its_path(make_trajectory) -> None:
    data = make_trajectory()
    data["subagent_trajectories"][0]["subagent_trajectories"][0]["steps"][1]["x"] = 1
    with pytest.warns(UnknownFieldsWarning, match=r"subagent_trajectories\[0\]"):
        traj = load_trajectory(data)
    assert unknown_fields(traj) == [
        "$.subagent_trajectories[0].subagent_trajectories[0].steps[1].x"
    ]
    assert (
        trajectory_to_dict(traj)["subagent_trajectories"][0]["subagent_trajectories"][0]["steps"][
            1
        ]["x"]
        == 1
    )


# ---------------------------------------------------------------- writing


def test_writing_stamps_the_current_version_on_root_and_subagents(make_trajectory) -> None:
    data = make_trajectory()
    data["schema_version"] = "ATIF-v1.6"
    data["subagent_trajectories"][1]["schema_version"] = "ATIF-v1.5"
    traj = load_trajectory(data)
    assert traj.schema_version == "ATIF-v1.6"  # reading keeps what the file says
    out = json.loads(dump_trajectory(traj))
    assert out["schema_version"] == ATIF_VERSION == "ATIF-v1.8"
    versions = []

    def walk(node: dict) -> None:
        for child in node.get("subagent_trajectories", []):
            versions.append(child["schema_version"])
            walk(child)

    walk(out)
    assert versions == ["ATIF-v1.8"] * 3


def test_old_version_upgrades_on_write(tmp_path) -> None:
    traj = load_trajectory(_v10_style("ATIF-v1.0"))
    path = tmp_path / "up.json"
    path.write_text(dump_trajectory(traj))
    again = load_trajectory(path)
    assert again.schema_version == "ATIF-v1.8"
    assert trajectory_to_dict(again) == trajectory_to_dict(traj)


def test_round_trip_load_dump_load_is_equal(make_trajectory, tmp_path) -> None:
    data = make_trajectory()
    data["x_root"] = {"nested": [1, 2]}
    data["schema_version"] = data["subagent_trajectories"][1]["schema_version"] = ATIF_VERSION
    with pytest.warns(UnknownFieldsWarning):
        first = load_trajectory(data)
    text = dump_trajectory(first)
    path = tmp_path / "rt.json"
    path.write_text(text)
    with pytest.warns(UnknownFieldsWarning, match="rt.json"):
        assert load_trajectory(path) == first
    with pytest.warns(UnknownFieldsWarning):
        second = load_trajectory(text)
    assert second == first
    assert trajectory_to_dict(second) == trajectory_to_dict(first)
    with pytest.warns(UnknownFieldsWarning):
        assert load_trajectory(text.encode()) == first


def test_dump_keeps_every_field_of_a_full_run(make_trajectory) -> None:
    data = make_trajectory()
    out = trajectory_to_dict(load_trajectory(data))
    # every field the producer set survives; writing only stamps the current version on every
    # trajectory (checker-b and its verifier carried none, the others v1.7)
    checker_b = data["subagent_trajectories"][0]
    assert "schema_version" not in checker_b
    checker_b["schema_version"] = "ATIF-v1.8"
    checker_b["subagent_trajectories"][0]["schema_version"] = "ATIF-v1.8"
    data["schema_version"] = data["subagent_trajectories"][1]["schema_version"] = "ATIF-v1.8"
    assert out == data


def test_dump_indent_and_unicode(make_minimal_trajectory) -> None:
    traj = load_trajectory(make_minimal_trajectory({"source": "user", "message": "héllo ✓"}))
    compact = dump_trajectory(traj, indent=None)
    assert "\n" not in compact
    assert "héllo ✓" in compact
    assert dump_trajectory(traj).startswith('{\n  "schema_version": "ATIF-v1.8"')


def test_trajectory_instance_passes_through(make_trajectory) -> None:
    traj = load_trajectory(make_trajectory())
    assert load_trajectory(traj) is traj


# ---------------------------------------------------------------- content parts


def test_content_parts_in_messages_and_observations(make_minimal_trajectory) -> None:
    image = {"type": "image", "source": {"media_type": "image/png", "path": "shots/1.png"}}
    data = make_minimal_trajectory(
        {"source": "user", "message": [{"type": "text", "text": "look:"}, image]},
        {
            "source": "agent",
            "message": [{"type": "text", "text": "taking a screenshot"}],
            "tool_calls": [{"tool_call_id": "c", "function_name": "shot", "arguments": {}}],
            "observation": {
                "results": [
                    {"source_call_id": "c", "content": [image, {"type": "text", "text": "done"}]}
                ]
            },
        },
        schema_version="ATIF-v1.6",
    )
    traj = load_trajectory(data)
    user_msg = traj.steps[0].message
    assert isinstance(user_msg, list)
    assert isinstance(user_msg[0], TextPart)
    assert user_msg[0].text == "look:"
    assert isinstance(user_msg[1], ImagePart)
    assert user_msg[1].source.media_type == "image/png"
    assert traj.steps[1].observation is not None
    content = traj.steps[1].observation.results[0].content
    assert isinstance(content, list)
    assert [type(p) for p in content] == [ImagePart, TextPart]
    out = trajectory_to_dict(traj)
    assert out["steps"][0]["message"] == data["steps"][0]["message"]
    assert out["steps"][1]["observation"]["results"][0]["content"] == [
        image,
        {"type": "text", "text": "done"},
    ]


def test_unknown_content_part_type_is_rejected(make_minimal_trajectory) -> None:
    data = make_minimal_trajectory({"source": "user", "message": [{"type": "video", "url": "x"}]})
    with pytest.raises(InvalidTrajectory) as info:
        load_trajectory(data)
    assert "$.steps[0].message[0]:" in str(info.value)


def test_subagents_are_trajectories(make_trajectory) -> None:
    traj = load_trajectory(make_trajectory())
    assert traj.subagent_trajectories is not None
    assert [c.trajectory_id for c in traj.subagent_trajectories] == [
        "traj-child-bbb",
        "traj-child-aaa",
    ]
    nested = traj.subagent_trajectories[0].subagent_trajectories
    assert nested is not None
    assert isinstance(nested[0], Trajectory)
    assert nested[0].agent.name == "verifier"
