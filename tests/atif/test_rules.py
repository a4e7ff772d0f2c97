"""The ATIF rules across fields, N1 to N11, and their severities (trajguard.atif._rules).

Fixtures are written from the spec's sentences; each rule's test says which one.
"""

from __future__ import annotations

import pytest

from trajguard.atif import Violation, check_normative, load_trajectory


def _check(data: dict) -> list[tuple[str, str]]:
    return [(v.rule, v.path) for v in check_normative(load_trajectory(data))]


def _severities(data: dict) -> list[tuple[str, str]]:
    return [(v.rule, v.severity) for v in check_normative(load_trajectory(data))]


def test_full_valid_run_with_nested_subagents_and_refs(make_trajectory) -> None:
    assert check_normative(load_trajectory(make_trajectory())) == []


def test_minimal_valid_run(make_minimal_trajectory) -> None:
    assert check_normative(load_trajectory(make_minimal_trajectory())) == []


def test_violation_str_names_severity_rule_and_path() -> None:
    v = Violation(rule="N1", path="$.steps[0].step_id", message="expected step_id 1")
    assert v.severity == "error"
    assert str(v) == "error N1 $.steps[0].step_id: expected step_id 1"
    warning = Violation(rule="N8", path="$.final_metrics", message="m", severity="warning")
    assert str(warning) == "warning N8 $.final_metrics: m"


def test_the_old_module_still_offers_the_rules() -> None:
    import trajguard.normative

    assert trajguard.normative.check_normative is check_normative
    assert trajguard.normative.Violation is Violation


# ---------------------------------------------------------------- N1


def test_n1_step_ids_must_be_sequential_from_one(make_minimal_trajectory) -> None:
    data = make_minimal_trajectory(
        {"source": "user", "message": "a"},
        {"source": "agent", "message": "b"},
        {"source": "agent", "message": "c"},
    )
    data["steps"][2]["step_id"] = 4  # a gap
    violations = check_normative(load_trajectory(data))
    assert [(v.rule, v.path, v.severity) for v in violations] == [
        ("N1", "$.steps[2].step_id", "error")
    ]
    assert "expected step_id 3" in violations[0].message
    assert "found 4" in violations[0].message


def test_n1_reports_only_the_first_break(make_minimal_trajectory) -> None:
    # one gap shifts every later id: one line says where to renumber from, not one per step
    data = make_minimal_trajectory(*({"source": "user", "message": str(i)} for i in range(6)))
    for step in data["steps"][2:]:
        step["step_id"] += 1
    violations = check_normative(load_trajectory(data))
    assert [(v.rule, v.path) for v in violations] == [("N1", "$.steps[2].step_id")]
    assert "later step ids are not checked" in violations[0].message


def test_n1_starting_at_zero_is_one_violation(make_minimal_trajectory) -> None:
    # "Ordinal index of the turn (starting from 1)"
    data = make_minimal_trajectory()
    for index, step in enumerate(data["steps"]):
        step["step_id"] = index
    assert _check(data) == [("N1", "$.steps[0].step_id")]


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
    assert [(v.rule, v.path, v.severity) for v in violations] == [
        ("N4", "$.steps[1].is_copied_context", "warning"),  # trajguard's own marker: no MUST
        ("N4", "$.steps[2].is_copied_context", "warning"),
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
    # "metrics and reasoning_content MUST be absent in that case"
    assert [(v.rule, v.path, v.severity) for v in violations] == [
        ("N5", "$.steps[1].metrics", "error"),
        ("N5", "$.steps[1].reasoning_content", "error"),
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
    # the spec describes the totals ("Sum of all completion tokens across all steps") without
    # a MUST, and producers put subagent or whole-run totals there: a warning
    assert [(v.rule, v.path, v.severity) for v in violations] == [
        ("N8", "$.final_metrics.total_completion_tokens", "warning")
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


def test_n8_total_steps_must_match_or_be_explained(make_minimal_trajectory) -> None:
    # total_steps: "If not equivalent to the number of steps in the trajectory, must be
    # documented in the root-level notes field"
    data = make_minimal_trajectory(final_metrics={"total_steps": 5})
    assert _severities(data) == [("N8", "warning")]
    assert _check(data) == [("N8", "$.final_metrics.total_steps")]
    data["notes"] = "total_steps counts the 3 steps of the summarisation subagents too"
    assert _check(data) == []


def test_n8_whole_run_totals_of_a_continuation_are_only_a_warning() -> None:
    # a continuation file (is_copied_context history, then new calls) whose final_metrics are
    # the whole run's, as a reference agent writes them: valid ATIF, with a warning
    steps: list[dict] = [
        {"step_id": 1, "source": "user", "message": "task", "is_copied_context": True},
        {"step_id": 2, "source": "agent", "message": "old", "is_copied_context": True},
        {"step_id": 3, "source": "user", "message": "handoff: here is the summary"},
        {
            "step_id": 4,
            "source": "agent",
            "message": "new",
            "metrics": {"prompt_tokens": 10, "completion_tokens": 2},
        },
    ]
    data = {
        "schema_version": "ATIF-v1.6",
        "agent": {"name": "a", "version": "1"},
        "steps": steps,
        "final_metrics": {"total_prompt_tokens": 250, "total_completion_tokens": 40},
    }
    assert _severities(data) == [("N8", "warning"), ("N8", "warning")]


# ---------------------------------------------------------------- N9 and file references


def test_n9_is_a_warning(make_trajectory) -> None:
    # the spec tells consumers how to resolve an embedded ref; it puts no MUST on the producer
    data = make_trajectory()
    data["steps"][3]["observation"]["results"][1]["subagent_trajectory_ref"] = [
        {"trajectory_id": "traj-missing"}
    ]
    assert _severities(data) == [("N9", "warning")]


def test_n9_ref_with_id_and_path_resolves_through_the_file(make_minimal_trajectory) -> None:
    # "When both trajectory_id and trajectory_path are set, consumers MAY choose either"
    data = make_minimal_trajectory(
        {
            "source": "agent",
            "message": "",
            "observation": {
                "results": [
                    {
                        "subagent_trajectory_ref": [
                            {"trajectory_id": "sub-7", "trajectory_path": "sub-7.json"}
                        ]
                    }
                ]
            },
        }
    )
    assert _check(data) == []


# ---------------------------------------------------------------- N10 and N11


def test_n10_a_trajectory_needs_a_step(make_minimal_trajectory, make_trajectory) -> None:
    # steps: "Array of step objects representing the complete interaction history"; the
    # reference models require at least one
    data = make_minimal_trajectory()
    data["steps"] = []
    assert _check(data) == [("N10", "$.steps")]
    assert _severities(data) == [("N10", "error")]
    nested = make_trajectory()
    nested["subagent_trajectories"][1]["steps"] = []
    del nested["subagent_trajectories"][1]["final_metrics"]  # its totals no longer add up
    assert _check(nested) == [("N10", "$.subagent_trajectories[1].steps")]


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("model_name", "gpt-test"),
        ("reasoning_effort", "high"),
        ("reasoning_content", "hmm"),
        ("tool_calls", [{"tool_call_id": "c", "function_name": "f", "arguments": {}}]),
        ("metrics", {"prompt_tokens": 1}),
    ],
)
@pytest.mark.parametrize("source", ["system", "user"])
def test_n11_agent_only_fields(field: str, value: object, source: str, make_minimal_trajectory):
    # model_name: "The specific LLM model used for this turn" ... these fields describe a model
    # call, which only agent steps make
    data = make_minimal_trajectory({"source": source, "message": "m", field: value})
    violations = check_normative(load_trajectory(data))
    assert [(v.rule, v.path, v.severity) for v in violations] == [
        ("N11", f"$.steps[0].{field}", "error")
    ]
    assert repr(source) in violations[0].message
    data["steps"][0]["source"] = "agent"
    assert _check(data) == []


# ---------------------------------------------------------------- severities


def test_errors_are_the_rules_the_spec_states_with_must(make_trajectory) -> None:
    data = make_trajectory()
    step = data["steps"][2]
    step["step_id"] = 9  # N1
    step["observation"]["results"][0]["source_call_id"] = "nowhere"  # N2
    data["subagent_trajectories"][1]["trajectory_id"] = "traj-child-bbb"  # N3
    data["steps"][4]["llm_call_count"] = 0  # N5 (the step has metrics)
    data["steps"][0]["timestamp"] = "soon"  # N6
    del data["steps"][1]["message"]  # N7
    data["steps"][1]["model_name"] = "m"  # N11
    data["final_metrics"]["total_prompt_tokens"] = 1  # N8
    data["steps"][3]["observation"]["results"][1]["subagent_trajectory_ref"] = [
        {"trajectory_id": "gone"}  # N9
    ]
    found = {(v.rule, v.severity) for v in check_normative(load_trajectory(data))}
    assert found == {
        ("N1", "error"),
        ("N2", "error"),
        ("N3", "error"),
        ("N5", "error"),
        ("N6", "error"),
        ("N7", "error"),
        ("N11", "error"),
        ("N8", "warning"),
        ("N9", "warning"),
    }
