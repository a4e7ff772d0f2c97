"""validate(): the verdict of `trajguard validate`; errors as Harbor's validator, warnings shown."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from trajguard.atif import ValidationReport, validate
from trajguard.errors import UnsupportedSchemaVersion


def _write(folder: Path, name: str, data: Any) -> Path:
    path = folder / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_a_valid_file(tmp_path, make_trajectory) -> None:
    report = validate(_write(tmp_path, "run.json", make_trajectory()))
    assert report == ValidationReport(
        file=str(tmp_path / "run.json"),
        schema_version="ATIF-v1.7",
        steps=5,
        subagents=2,
    )
    assert report.valid


def test_the_report_is_frozen_and_keyword_only() -> None:
    report = validate({"schema_version": "ATIF-v1.8"})
    with pytest.raises(dataclasses.FrozenInstanceError):
        report.steps = 3  # type: ignore[misc]
    with pytest.raises(TypeError):
        ValidationReport(None)  # type: ignore[misc]


def test_a_field_outside_the_schema_is_an_error(make_minimal_trajectory) -> None:
    # the reference models forbid extra fields: "custom data goes in extra"
    data = make_minimal_trajectory(x_producer="kept on load, refused by validate")
    data["steps"][1]["x_score"] = 0.5
    report = validate(data)
    assert not report.valid
    assert [(v.rule, v.path) for v in report.errors] == [
        ("unknown-field", "$.x_producer"),
        ("unknown-field", "$.steps[1].x_score"),
    ]
    assert "`extra`" in report.errors[0].message


def test_validate_does_not_warn_about_the_fields_it_reports(make_minimal_trajectory) -> None:
    # the project's pytest configuration turns warnings into errors: this would fail if it did
    assert not validate(make_minimal_trajectory(x_field=1)).valid


def test_warnings_keep_the_file_valid_and_strict_turns_them_into_errors(make_trajectory) -> None:
    data = make_trajectory()
    data["final_metrics"]["total_prompt_tokens"] = 9000  # includes the subagents' tokens
    report = validate(data)
    assert report.valid
    assert report.errors == ()
    assert [(v.rule, v.severity) for v in report.warnings] == [("N8", "warning")]
    strict = validate(data, strict=True)
    assert not strict.valid
    assert strict.warnings == ()
    assert [(v.rule, v.path, v.severity) for v in strict.errors] == [
        ("N8", "$.final_metrics.total_prompt_tokens", "error")
    ]


def test_a_rule_the_spec_states_with_must_is_an_error(make_minimal_trajectory) -> None:
    data = make_minimal_trajectory({"source": "user", "message": "hi", "model_name": "m"})
    report = validate(data)
    assert not report.valid
    assert [(v.rule, v.path) for v in report.errors] == [("N11", "$.steps[0].model_name")]


def test_unreadable_input_is_reported_not_raised(tmp_path, make_minimal_trajectory) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text('{"schema_version": ', encoding="utf-8")
    report = validate(broken)
    assert not report.valid
    assert report.load_error is not None
    assert report.load_error.file == str(broken)
    assert report.load_error.line == 1
    assert report.file == str(broken)
    v2 = validate(make_minimal_trajectory(schema_version="ATIF-v2.0"))
    assert isinstance(v2.load_error, UnsupportedSchemaVersion)
    missing = validate(tmp_path / "nope.json")
    assert missing.load_error is not None
    assert "not found" in missing.load_error.message


def test_a_root_without_schema_version_is_refused(make_minimal_trajectory) -> None:
    # deliberate: the RFC lists schema_version as Required (Harbor fills in its default)
    data = make_minimal_trajectory()
    del data["schema_version"]
    report = validate(data)
    assert report.load_error is not None
    assert report.load_error.path == "$.schema_version"


def test_v18_audio_file_is_valid(tmp_path) -> None:
    (tmp_path / "clips").mkdir()
    (tmp_path / "clips" / "q.mp3").write_bytes(b"ID3")
    data = {
        "schema_version": "ATIF-v1.8",
        "agent": {"name": "voice", "version": "2"},
        "steps": [
            {
                "step_id": 1,
                "source": "user",
                "message": [
                    {"type": "audio", "source": {"media_type": "audio/mp3", "path": "clips/q.mp3"}}
                ],
            },
            {"step_id": 2, "source": "agent", "message": "You asked about the weather."},
        ],
    }
    report = validate(_write(tmp_path, "voice.json", data))
    assert report.valid, report.errors
    assert report.schema_version == "ATIF-v1.8"


# ---------------------------------------------------------------- media files


def _with_media(path: str, *, kind: str = "image", nested: bool = False) -> dict[str, Any]:
    media_type = "image/png" if kind == "image" else "audio/wav"
    step = {
        "step_id": 1,
        "source": "user",
        "message": [{"type": kind, "source": {"media_type": media_type, "path": path}}],
    }
    plain = {"step_id": 1, "source": "user", "message": "look"}
    if not nested:
        return {
            "schema_version": "ATIF-v1.8",
            "agent": {"name": "a", "version": "1"},
            "steps": [step],
        }
    child = {"trajectory_id": "c1", "agent": {"name": "c", "version": "1"}, "steps": [step]}
    return {
        "schema_version": "ATIF-v1.8",
        "agent": {"name": "a", "version": "1"},
        "steps": [plain],
        "subagent_trajectories": [child],
    }


@pytest.mark.parametrize("kind", ["image", "audio"])
def test_a_missing_local_media_file_is_an_error(tmp_path, kind: str) -> None:
    report = validate(_write(tmp_path, "run.json", _with_media("shots/1.bin", kind=kind)))
    assert [(v.rule, v.path) for v in report.errors] == [
        ("media-file", "$.steps[0].message[0].source.path")
    ]
    assert "'shots/1.bin' does not exist" in report.errors[0].message
    (tmp_path / "shots").mkdir()
    (tmp_path / "shots" / "1.bin").write_bytes(b"\x89PNG")
    assert validate(tmp_path / "run.json").valid


def test_media_checks_skip_urls_dicts_and_can_be_turned_off(tmp_path) -> None:
    assert validate(_write(tmp_path, "url.json", _with_media("https://x.test/1.png"))).valid
    assert validate(_with_media("nowhere.png")).valid  # no file, no folder to look in
    path = _write(tmp_path, "off.json", _with_media("nowhere.png"))
    assert validate(path, check_media=False).valid


def test_a_missing_media_file_in_a_subagent_is_a_warning(tmp_path) -> None:
    # the reference validator only looks at the top-level steps
    report = validate(_write(tmp_path, "nested.json", _with_media("gone.png", nested=True)))
    assert report.valid
    assert [(v.rule, v.path, v.severity) for v in report.warnings] == [
        ("media-file", "$.subagent_trajectories[0].steps[0].message[0].source.path", "warning")
    ]


def test_an_absolute_media_path_is_checked_as_is(tmp_path) -> None:
    image = tmp_path / "abs.png"
    image.write_bytes(b"\x89PNG")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert validate(_write(elsewhere, "run.json", _with_media(str(image)))).valid


def _every_problem_document() -> dict:
    call = {"tool_call_id": "c1", "function_name": "f", "arguments": {}}
    return {
        "schema_version": "ATIF-v1.7",
        "agent": {"name": "demo", "version": "1"},
        "steps": [
            {"step_id": 1, "source": "user", "message": "hi", "mystery": 1},
            {  # structure: arguments must be an object
                "step_id": 2,
                "source": "agent",
                "message": "",
                "tool_calls": [{**call, "arguments": "x=1"}],
                "observation": {"results": [{"source_call_id": "c1", "content": "ok"}]},
            },
            {"step_id": 3, "source": "bot", "message": "who"},  # structure: no such source
            {  # N2: the result answers no call of this step
                "step_id": 4,
                "source": "agent",
                "message": "",
                "tool_calls": [call],
                "observation": {"results": [{"source_call_id": "c9", "content": "ok"}]},
            },
            {"step_id": 6, "source": "agent", "message": "done"},  # N1: 5 is missing
        ],
    }


def test_every_problem_is_reported_not_only_the_structural_ones() -> None:
    report = validate(_every_problem_document())
    assert not report.valid
    assert report.load_error is None
    found = [(v.rule, v.path) for v in report.errors]
    assert found == [
        ("structure", "$.steps[1].tool_calls[0].arguments"),
        ("structure", "$.steps[2].source"),
        ("unknown-field", "$.steps[0].mystery"),
        ("N1", "$.steps[4].step_id"),
        ("N2", "$.steps[3].observation.results[0].source_call_id"),
    ]
    assert "Input should be a valid dictionary" in report.errors[0].message
    assert report.steps == 5


def test_a_set_aside_part_is_not_judged_again() -> None:
    # the refused step stands in as an empty one: no N7 (message) or N11 for it, and the
    # tool call refused keeps its id, so its result still joins (no N2 at steps[1])
    report = validate(_every_problem_document())
    judged = [v for v in report.errors if v.rule != "structure"]
    assert not [v for v in judged if v.path.startswith(("$.steps[1].", "$.steps[2]."))]


def test_a_root_the_schema_cannot_read_reports_its_structure_only() -> None:
    report = validate({"schema_version": "ATIF-v1.7", "agent": {"name": "a"}, "steps": "none"})
    assert [(v.rule, v.path) for v in report.errors] == [
        ("structure", "$.agent.version"),
        ("structure", "$.steps"),
    ]
