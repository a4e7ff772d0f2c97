"""The ATIF normative rules N1 to N9 (trajguard.normative)."""

from __future__ import annotations

import pytest

from trajguard.atif import load_trajectory
from trajguard.normative import Violation, check_normative


def _check(data: dict) -> list[tuple[str, str]]:
    return [(v.rule, v.path) for v in check_normative(load_trajectory(data))]


def test_full_valid_run_with_nested_subagents_and_refs(make_trajectory) -> None:
    assert check_normative(load_trajectory(make_trajectory())) == []


def test_minimal_valid_run(make_minimal_trajectory) -> None:
    assert check_normative(load_trajectory(make_minimal_trajectory())) == []


def test_violation_str_names_rule_and_path() -> None:
    v = Violation("N1", "$.steps[0].step_id", "expected step_id 1")
    assert str(v) == "N1 $.steps[0].step_id: expected step_id 1"


# ---------------------------------------------------------------- N1


def test_n1_step_ids_must_be_sequential_from_one(make_minimal_trajectory) -> None:
    data = make_minimal_trajectory(
        {"source": "user", "message": "a"},
        {"source": "agent", "message": "b"},
        {"source": "agent", "message": "c"},
    )
    data["steps"][2]["step_id"] = 4  # a gap
    violations = check_normative(load_trajectory(data))
    assert [(v.rule, v.path) for v in violations] == [("N1", "$.steps[2].step_id")]
    assert "expected step_id 3" in violations[0].message
    assert "found 4" in violations[0].message


def test_n1_starting_at_zero_flags_every_step(make_minimal_trajectory) -> None:
    data = make_minimal_trajectory()
    for index, step in enumerate(data["steps"]):
        step["step_id"] = index
    assert _check(data) == [("N1", "$.steps[0].step_id"), ("N1", "$.steps[1].step_id")]


def test_n1_inside_a_subagent(make_trajectory) -> None:
    data = make_trajectory()
    data["subagent_trajectories"][1]["steps"][2]["step_id"] = 7
    assert _check(data) == [("N1", "$.subagent_trajectories[1].steps[2].step_id")]


# ---------------------------------------------------------------- N2


def test_n2_observation_must_join_a_call_of_the_same_step(make_minimal_trajectory) -> None:
    data = make_minimal_trajectory(
        {"source": "user", "message": "go"},
        {
            "source": "agent",
            "message": "",
            "tool_calls": [{"tool_call_id": "c1", "function_name": "f", "arguments": {}}],
            "observation": {
                "results": [
                    {"source_call_id": "c1", "content": "ok"},
                    {"source_call_id": "c9", "content": "orphan"},
                ]
            },
        },
    )
    violations = check_normative(load_trajectory(data))
    assert [(v.rule, v.path) for v in violations] == [
        ("N2", "$.steps[1].observation.results[1].source_call_id")
    ]
    assert "'c9'" in violations[0].message


def test_n2_join_to_a_call_of_another_step_is_a_violation(make_minimal_trajectory) -> None:
    data = make_minimal_trajectory(
        {
            "source": "agent",
            "message": "",
            "tool_calls": [{"tool_call_id": "c1", "function_name": "f", "arguments": {}}],
        },
        {
            "source": "agent",
            "message": "",
            "observation": {"results": [{"source_call_id": "c1", "content": "late"}]},
        },
    )
    assert _check(data) == [("N2", "$.steps[1].observation.results[0].source_call_id")]


def test_n2_call_without_result_and_result_without_source_are_allowed(
    make_minimal_trajectory,
) -> None:
    data = make_minimal_trajectory(
        {
            "source": "agent",
            "message": "",
            "tool_calls": [
                {"tool_call_id": "c1", "function_name": "f", "arguments": {}},
                {"tool_call_id": "c2", "function_name": "g", "arguments": {}},
            ],
            "observation": {"results": [{"source_call_id": None, "content": "note"}]},
        },
    )
    assert _check(data) == []


# ---------------------------------------------------------------- N3


def test_n3_duplicate_subagent_ids(make_trajectory) -> None:
    data = make_trajectory()
    data["subagent_trajectories"][1]["trajectory_id"] = "traj-child-bbb"
    violations = check_normative(load_trajectory(data))
    n3 = [(v.rule, v.path) for v in violations if v.rule == "N3"]
    assert n3 == [("N3", "$.subagent_trajectories[1].trajectory_id")]
    assert "duplicate" in next(v.message for v in violations if v.rule == "N3")


def test_n3_subagent_without_trajectory_id(make_trajectory) -> None:
    data = make_trajectory()
    del data["subagent_trajectories"][0]["subagent_trajectories"][0]["trajectory_id"]
    violations = _check(data)
    assert ("N3", "$.subagent_trajectories[0].subagent_trajectories[0].trajectory_id") in violations
    # the ref to it no longer resolves either
    assert violations == [
        (
            "N9",
            "$.subagent_trajectories[0].steps[2].observation.results[0]"
            ".subagent_trajectory_ref[0].trajectory_id",
        ),
        ("N3", "$.subagent_trajectories[0].subagent_trajectories[0].trajectory_id"),
    ]


def test_n3_same_id_in_different_arrays_is_fine(make_trajectory) -> None:
    data = make_trajectory()
    # the grandchild reuses its uncle's id: uniqueness is per array
    grandchild = data["subagent_trajectories"][0]["subagent_trajectories"][0]
    grandchild["trajectory_id"] = "traj-child-aaa"
    data["subagent_trajectories"][0]["steps"][2]["observation"]["results"][0][
        "subagent_trajectory_ref"
    ] = [{"trajectory_id": "traj-child-aaa"}]
    assert _check(data) == []


# ---------------------------------------------------------------- N4


def _compaction_run(copied: list[bool | None], marker: object = "replace") -> dict:
    steps: list[dict] = [
        {"step_id": i + 1, "source": "user", "message": f"m{i}"}
        | ({} if flag is None else {"is_copied_context": flag})
        for i, flag in enumerate(copied)
    ]
    steps.append(
        {
            "step_id": len(steps) + 1,
            "source": "system",
            "message": "context compacted",
            "extra": {"context_compaction": marker},
        }
    )
    steps.append({"step_id": len(steps) + 1, "source": "agent", "message": "after"})
    return {"schema_version": "ATIF-v1.7", "agent": {"name": "a", "version": "1"}, "steps": steps}


def test_n4_steps_before_a_compaction_boundary_must_be_copied() -> None:
    violations = check_normative(load_trajectory(_compaction_run([True, None, False])))
    assert [(v.rule, v.path) for v in violations] == [
        ("N4", "$.steps[1].is_copied_context"),
        ("N4", "$.steps[2].is_copied_context"),
    ]
    assert "step 4" in violations[0].message  # the boundary, 1-based


@pytest.mark.parametrize("marker", ["replace", True])
def test_n4_marker_documented_in_normative(marker: object) -> None:
    assert _check(_compaction_run([True, True], marker)) == []
    assert _check(_compaction_run([True, False], marker)) == [
        ("N4", "$.steps[1].is_copied_context")
    ]


@pytest.mark.parametrize("marker", ["append", False, None, "summary"])
def test_n4_other_markers_are_not_boundaries(marker: object) -> None:
    assert _check(_compaction_run([None, False], marker)) == []


def test_n4_marker_on_a_non_system_step_is_not_a_boundary() -> None:
    data = _compaction_run([None, None])
    data["steps"][2]["source"] = "user"
    assert _check(data) == []


def test_n4_uses_the_last_boundary() -> None:
    data = _compaction_run([True, True])
    # a second boundary after a non-copied step makes everything before it subject to N4
    data["steps"].append(
        {
            "step_id": 5,
            "source": "system",
            "message": "compacted again",
            "extra": {"context_compaction": "replace"},
        }
    )
    assert _check(data) == [
        ("N4", "$.steps[2].is_copied_context"),
        ("N4", "$.steps[3].is_copied_context"),
    ]


# ---------------------------------------------------------------- N5


def test_n5_dispatch_step_forbids_metrics_and_reasoning(make_minimal_trajectory) -> None:
    data = make_minimal_trajectory(
        {"source": "user", "message": "go"},
        {
            "source": "agent",
            "message": "dispatch",
            "llm_call_count": 0,
            "metrics": {"prompt_tokens": 1},
            "reasoning_content": "thinking",
        },
    )
    violations = check_normative(load_trajectory(data))
    assert [(v.rule, v.path) for v in violations] == [
        ("N5", "$.steps[1].metrics"),
        ("N5", "$.steps[1].reasoning_content"),
    ]


def test_n5_dispatch_step_without_metrics_is_fine(make_minimal_trajectory) -> None:
    data = make_minimal_trajectory(
        {"source": "agent", "message": "dispatch", "llm_call_count": 0},
        {"source": "agent", "message": "x", "llm_call_count": 2, "metrics": {"prompt_tokens": 1}},
    )
    assert _check(data) == []


# ---------------------------------------------------------------- N6


@pytest.mark.parametrize("stamp", ["yesterday", "2025-13-01T00:00:00Z", "10:00 01/01/2025", ""])
def test_n6_timestamps_must_be_iso8601(stamp: str, make_minimal_trajectory) -> None:
    data = make_minimal_trajectory()
    data["steps"][1]["timestamp"] = stamp
    violations = check_normative(load_trajectory(data))
    assert [(v.rule, v.path) for v in violations] == [("N6", "$.steps[1].timestamp")]


@pytest.mark.parametrize(
    "stamp",
    ["2025-01-01T10:00:00Z", "2025-01-01T10:00:00.123456+02:00", "2025-01-01", "2025-01-01T10:00"],
)
def test_n6_valid_timestamps(stamp: str, make_minimal_trajectory) -> None:
    data = make_minimal_trajectory()
    data["steps"][0]["timestamp"] = stamp
    assert _check(data) == []


# ---------------------------------------------------------------- N7


def test_n7_message_must_be_present(make_minimal_trajectory) -> None:
    data = make_minimal_trajectory(
        {"source": "user", "message": ""},  # empty is allowed
        {"source": "agent"},
    )
    violations = check_normative(load_trajectory(data))
    assert [(v.rule, v.path) for v in violations] == [("N7", "$.steps[1].message")]


def test_n7_explicit_null_message(make_minimal_trajectory) -> None:
    data = make_minimal_trajectory()
    data["steps"][0]["message"] = None
    assert _check(data) == [("N7", "$.steps[0].message")]


# ---------------------------------------------------------------- N8


def test_n8_totals_must_equal_the_step_sums(make_trajectory) -> None:
    data = make_trajectory()
    data["final_metrics"]["total_completion_tokens"] = 61
    violations = check_normative(load_trajectory(data))
    assert [(v.rule, v.path) for v in violations] == [
        ("N8", "$.final_metrics.total_completion_tokens")
    ]
    assert "61" in violations[0].message
    assert "(60)" in violations[0].message


def test_n8_in_a_subagent(make_trajectory) -> None:
    data = make_trajectory()
    data["subagent_trajectories"][1]["final_metrics"]["total_prompt_tokens"] = 1
    assert _check(data) == [("N8", "$.subagent_trajectories[1].final_metrics.total_prompt_tokens")]


def test_n8_waived_when_notes_say_so(make_trajectory) -> None:
    data = make_trajectory()
    data["final_metrics"]["total_prompt_tokens"] = 9999
    data["notes"] = "Totals include a retried call that has no step."
    assert _check(data) == []


def test_n8_missing_totals_are_not_checked(make_minimal_trajectory) -> None:
    data = make_minimal_trajectory(
        {"source": "agent", "message": "x", "metrics": {"prompt_tokens": 5}},
        final_metrics={"total_steps": 1},
    )
    assert _check(data) == []


# ---------------------------------------------------------------- N9


def test_n9_ref_must_resolve(make_trajectory) -> None:
    data = make_trajectory()
    data["steps"][3]["observation"]["results"][1]["subagent_trajectory_ref"] = [
        {"trajectory_id": "traj-child-aaa"},
        {"trajectory_id": "traj-missing"},
    ]
    violations = check_normative(load_trajectory(data))
    assert [(v.rule, v.path) for v in violations] == [
        ("N9", "$.steps[3].observation.results[1].subagent_trajectory_ref[1].trajectory_id")
    ]
    assert "'traj-missing'" in violations[0].message


def test_n9_ref_to_an_ancestors_subagent_from_inside_a_child_resolves(make_trajectory) -> None:
    data = make_trajectory()
    grandchild = data["subagent_trajectories"][0]["subagent_trajectories"][0]
    ref = grandchild["steps"][1]["observation"]["results"][0]["subagent_trajectory_ref"]
    assert ref == [{"trajectory_id": "traj-child-aaa"}]  # the root's child, the uncle
    assert _check(data) == []
    ref[0]["trajectory_id"] = "traj-nowhere"
    assert _check(data) == [
        (
            "N9",
            "$.subagent_trajectories[0].subagent_trajectories[0].steps[1].observation"
            ".results[0].subagent_trajectory_ref[0].trajectory_id",
        )
    ]


def test_n9_ref_to_a_descendant_below_the_children_does_not_resolve(make_trajectory) -> None:
    data = make_trajectory()
    # the root may refer to its own children, not to a grandchild
    data["steps"][3]["observation"]["results"][1]["subagent_trajectory_ref"] = [
        {"trajectory_id": "traj-gc-111"}
    ]
    assert _check(data) == [
        ("N9", "$.steps[3].observation.results[1].subagent_trajectory_ref[0].trajectory_id")
    ]


def test_n9_path_only_ref_is_not_checked(make_minimal_trajectory) -> None:
    data = make_minimal_trajectory(
        {
            "source": "agent",
            "message": "",
            "observation": {
                "results": [{"subagent_trajectory_ref": [{"trajectory_path": "other.json"}]}]
            },
        }
    )
    assert _check(data) == []


def test_all_violations_are_reported_together(make_minimal_trajectory) -> None:
    data = make_minimal_trajectory(
        {"source": "user", "message": "a", "timestamp": "never"},
        {"source": "agent", "llm_call_count": 0, "reasoning_content": "r"},
    )
    data["steps"][1]["step_id"] = 3
    assert sorted(_check(data)) == [
        ("N1", "$.steps[1].step_id"),
        ("N5", "$.steps[1].reasoning_content"),
        ("N6", "$.steps[0].timestamp"),
        ("N7", "$.steps[1].message"),
    ]
