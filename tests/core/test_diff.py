"""diff() and render_diff(): what changed between the golden run and the actual run."""

from __future__ import annotations

import copy
import random

import pytest

from trajguard.atif import load_trajectory
from trajguard.core.diff import Delta, diff, render_diff
from trajguard.core.normalize import normalize
from trajguard.core.shape import shape


def _fields(deltas: list[Delta]) -> list[str]:
    return [d.field for d in deltas]


def _insert_step(data: dict, index: int, step: dict) -> dict:
    """A copy of ``data`` with ``step`` inserted at ``index`` and step_ids renumbered."""
    out = copy.deepcopy(data)
    out["steps"].insert(index, copy.deepcopy(step))
    for number, item in enumerate(out["steps"], start=1):
        item["step_id"] = number
    return out


# ---------------------------------------------------------------- the two negative tests


def test_runs_differing_only_in_volatile_fields_give_no_deltas(
    make_trajectory, perturb_volatile
) -> None:
    golden = make_trajectory()
    for seed in range(10):
        actual = perturb_volatile(golden, random.Random(seed))
        actual["subagent_trajectories"].reverse()  # and certainly a different subagent order
        assert actual != golden
        assert diff(golden, actual) == []
        assert diff(load_trajectory(golden), load_trajectory(actual)) == []
        assert render_diff(normalize(golden), normalize(actual)) == ""


def test_hand_perturbed_run_gives_no_deltas(make_trajectory) -> None:
    golden = make_trajectory()
    actual = make_trajectory()
    actual["session_id"] = "sess-other"
    actual["trajectory_id"] = "traj-root-99"
    for step in actual["steps"]:
        step["timestamp"] = "2031-07-07T07:07:07Z"
    actual["steps"][0]["message"] = (
        actual["steps"][0]["message"]
        .replace("0x7f3c2a1b9d00", "0x7f99ffee0010")
        .replace("0x10fe2b3c4", "0x1200aa000")
    )
    actual["steps"][2]["extra"]["generation_id"] = "gen-new"
    actual["steps"][2]["metrics"]["cost_usd"] = 9.99
    actual["final_metrics"]["total_cost_usd"] = 19.99
    actual["steps"][2]["tool_calls"][0]["tool_call_id"] = "call_NEW1"
    actual["steps"][2]["observation"]["results"][0]["source_call_id"] = "call_NEW1"
    # rename checker-a everywhere, then swap the subagent order
    actual["subagent_trajectories"][1]["trajectory_id"] = "traj-renamed-a"
    actual["steps"][3]["observation"]["results"][1]["subagent_trajectory_ref"][0][
        "trajectory_id"
    ] = "traj-renamed-a"
    actual["subagent_trajectories"][0]["subagent_trajectories"][0]["steps"][1]["observation"][
        "results"
    ][0]["subagent_trajectory_ref"][0]["trajectory_id"] = "traj-renamed-a"
    actual["subagent_trajectories"].reverse()
    assert diff(golden, actual) == []


def test_one_extra_step_is_named_first_with_its_dependent_deltas(make_trajectory) -> None:
    golden = make_trajectory()
    repeated = copy.deepcopy(golden["steps"][2])  # the agent repeats its search turn
    # a second call's prompt holds the first turn; equal usage would make it the same response
    repeated["metrics"]["prompt_tokens"] = 130
    actual = _insert_step(golden, 3, repeated)
    deltas = diff(golden, actual)
    assert deltas[0] == Delta("step_count", 5, 6, "structure")
    g, a = shape(golden), shape(actual)
    assert deltas == [
        Delta("step_count", 5, 6, "structure"),
        Delta("steps", g.steps, (*g.steps[:3], ("agent", 1), *g.steps[3:]), "structure"),
        Delta("tool_calls", g.tool_calls, a.tool_calls, "structure"),
        Delta(
            "tool_counts",
            {"calculator": 1, "delegate": 1, "read_file": 1, "search": 2},
            {"calculator": 1, "delegate": 1, "read_file": 2, "search": 3},
            "structure",
        ),
        Delta("prompt_tokens", 570, 700, "tokens"),
        Delta("completion_tokens", 79, 99, "tokens"),
        Delta("cached_tokens", 65, 75, "tokens"),
        Delta("content_hash", g.content_hash, a.content_hash, "content"),
    ]
    assert a.tool_calls == (
        "search",
        "read_file",
        "search",
        "read_file",
        "delegate",
        "calculator",
        "search",
    )


def test_one_extra_step_without_tools_or_metrics(make_trajectory) -> None:
    golden = make_trajectory()
    actual = _insert_step(golden, 2, {"source": "user", "message": "Please hurry."})
    g, a = shape(golden), shape(actual)
    assert diff(golden, actual) == [
        Delta("step_count", 5, 6, "structure"),
        Delta("steps", g.steps, (*g.steps[:2], ("user", 0), *g.steps[2:]), "structure"),
        Delta("content_hash", g.content_hash, a.content_hash, "content"),
    ]


def test_one_step_fewer(make_trajectory) -> None:
    golden = make_trajectory()
    actual = copy.deepcopy(golden)
    del actual["steps"][1]
    for number, step in enumerate(actual["steps"], start=1):
        step["step_id"] = number
    assert _fields(diff(golden, actual)) == ["step_count", "steps", "content_hash"]
    assert diff(golden, actual)[0] == Delta("step_count", 5, 4, "structure")


# ---------------------------------------------------------------- ordering


def test_schema_version_delta_comes_first(make_trajectory) -> None:
    golden = make_trajectory()
    actual = _insert_step(golden, 2, {"source": "user", "message": "more"})
    actual["schema_version"] = "ATIF-v1.6"
    deltas = diff(golden, actual)
    assert deltas[0] == Delta("schema_version", "ATIF-v1.7", "ATIF-v1.6", "schema")
    assert _fields(deltas) == ["schema_version", "step_count", "steps", "content_hash"]


def test_schema_bump_alone(make_trajectory) -> None:
    golden = make_trajectory()
    actual = make_trajectory()
    actual["schema_version"] = "ATIF-v1.5"
    assert _fields(diff(golden, actual)) == ["schema_version", "content_hash"]


def test_content_only_change_gives_only_content_deltas_hash_last(make_trajectory) -> None:
    golden = make_trajectory()
    actual = make_trajectory()
    actual["steps"][4]["message"] = "The answer is 41."
    deltas = diff(golden, actual)
    assert _fields(deltas) == ["final_output", "content_hash"]
    assert deltas[0] == Delta("final_output", "The answer is 42.", "The answer is 41.", "content")
    assert deltas[-1].kind == "content"


def test_hidden_content_change_is_caught_by_the_hash_alone(make_trajectory) -> None:
    golden = make_trajectory()
    actual = make_trajectory()
    actual["subagent_trajectories"][1]["steps"][1]["tool_calls"][0]["arguments"]["expr"] = "6*8"
    deltas = diff(golden, actual)
    assert _fields(deltas) == ["content_hash"]
    assert "see the diff" in str(deltas[0])


def test_model_swap_is_caught(make_trajectory) -> None:
    golden = make_trajectory()
    actual = make_trajectory()
    actual["agent"]["model_name"] = "gpt-other"
    assert _fields(diff(golden, actual)) == ["content_hash"]


def test_structure_deltas_precede_token_and_content_deltas(make_trajectory) -> None:
    golden = make_trajectory()
    actual = make_trajectory()
    actual["extra"] = {"crashed": True}
    actual["steps"][4]["message"] = "boom"
    actual["steps"][4]["metrics"]["completion_tokens"] = 1
    del actual["subagent_trajectories"][0]["subagent_trajectories"]
    assert _fields(diff(golden, actual)) == [
        "subagent_count",
        "crashed",
        "prompt_tokens",
        "completion_tokens",
        "final_output",
        "content_hash",
    ]
    deltas = diff(golden, actual)
    assert deltas[0] == Delta("subagent_count", 3, 2, "structure")
    assert deltas[1] == Delta("crashed", False, True, "structure")


def test_reordered_tool_calls_are_a_structural_change(make_trajectory) -> None:
    golden = make_trajectory()
    actual = make_trajectory()
    actual["steps"][2]["tool_calls"].reverse()
    deltas = diff(golden, actual)
    assert _fields(deltas) == ["tool_calls", "content_hash"]
    assert deltas[0].actual[:2] == ("read_file", "search")


# ---------------------------------------------------------------- tokens


def _with_prompt_tokens(data: dict, root_step_5_prompt: int) -> dict:
    out = copy.deepcopy(data)
    out["steps"][4]["metrics"]["prompt_tokens"] = root_step_5_prompt
    return out


def test_token_tolerance_within(make_trajectory) -> None:
    golden = make_trajectory()  # prompt tokens 570 over the tree
    actual = _with_prompt_tokens(golden, 200 + 57)  # 627: +10 %
    assert _fields(diff(golden, actual, token_tolerance=0.15, compare_content=False)) == []
    assert _fields(diff(golden, actual, token_tolerance=0.10, compare_content=False)) == []
    lower = _with_prompt_tokens(golden, 200 - 57)  # 513: -10 %
    assert diff(golden, lower, token_tolerance=0.10, compare_content=False) == []


def test_token_tolerance_outside(make_trajectory) -> None:
    golden = make_trajectory()
    actual = _with_prompt_tokens(golden, 200 + 58)  # 628: just over +10 %
    assert diff(golden, actual, token_tolerance=0.10, compare_content=False) == [
        Delta("prompt_tokens", 570, 628, "tokens")
    ]
    assert diff(golden, actual, token_tolerance=0.05, compare_content=False) == [
        Delta("prompt_tokens", 570, 628, "tokens")
    ]
    lower = _with_prompt_tokens(golden, 200 - 58)
    assert _fields(diff(golden, lower, token_tolerance=0.10, compare_content=False)) == [
        "prompt_tokens"
    ]


def test_token_default_is_exact(make_trajectory) -> None:
    golden = make_trajectory()
    actual = _with_prompt_tokens(golden, 201)
    assert diff(golden, actual, compare_content=False) == [
        Delta("prompt_tokens", 570, 571, "tokens")
    ]
    # a token change also changes the normalised trajectory, so the hash moves too
    assert _fields(diff(golden, actual)) == ["prompt_tokens", "content_hash"]


def test_tolerance_cannot_hide_tokens_appearing_from_zero(make_minimal_trajectory) -> None:
    agent = {"name": "tiny", "version": "0.1", "model_name": "m"}  # a model ran in both
    golden = make_minimal_trajectory(agent=agent)
    actual = make_minimal_trajectory(
        {"source": "user", "message": "hi"},
        {"source": "agent", "message": "hello", "metrics": {"cached_tokens": 1}},
        agent=agent,
    )
    assert diff(golden, actual, token_tolerance=0.5, compare_content=False) == [
        Delta("cached_tokens", 0, 1, "tokens")
    ]


@pytest.mark.parametrize("tolerance", [-0.1, float("nan")])
def test_negative_or_nan_tolerance_is_rejected(tolerance: float, make_trajectory) -> None:
    run = make_trajectory()
    with pytest.raises(ValueError, match="token_tolerance"):
        diff(run, run, token_tolerance=tolerance)


# ---------------------------------------------------------------- compare_content


def test_compare_content_false_ignores_output_and_hash(make_trajectory) -> None:
    golden = make_trajectory()
    actual = make_trajectory()
    actual["steps"][4]["message"] = "It is forty-two."
    actual["steps"][2]["observation"]["results"][0]["content"] = "forty two"
    assert _fields(diff(golden, actual)) == ["final_output", "content_hash"]
    assert diff(golden, actual, compare_content=False) == []


def test_compare_content_false_still_sees_structure(make_trajectory) -> None:
    golden = make_trajectory()
    actual = _insert_step(golden, 2, {"source": "user", "message": "more"})
    actual["steps"][5]["message"] = "different"
    assert _fields(diff(golden, actual, compare_content=False)) == ["step_count", "steps"]


# ---------------------------------------------------------------- inputs and rendering


def test_diff_accepts_shapes_models_dicts_and_normalized(make_trajectory) -> None:
    golden = make_trajectory()
    actual = make_trajectory()
    actual["steps"][4]["message"] = "changed"
    expected = diff(golden, actual)
    assert len(expected) == 2
    assert diff(shape(golden), shape(actual)) == expected
    assert diff(load_trajectory(golden), load_trajectory(actual)) == expected
    assert diff(normalize(golden), normalize(actual)) == expected
    assert diff(shape(golden), actual) == expected


def test_delta_str(make_trajectory) -> None:
    golden = make_trajectory()
    repeated = copy.deepcopy(golden["steps"][2])
    repeated["metrics"]["prompt_tokens"] = 130  # a second call: its prompt holds the first
    actual = _insert_step(golden, 3, repeated)
    text = {d.field: str(d) for d in diff(golden, actual)}
    assert text["step_count"] == "step_count: 5 → 6"
    assert text["tool_counts"] == "tool_counts: read_file ×1 → ×2, search ×2 → ×3"
    assert text["steps"].startswith(
        "steps: [system, user, agent, agent (2 model calls), agent] → ["
    )
    assert text["prompt_tokens"] == "prompt_tokens: 570 → 700"
    assert text["content_hash"].startswith("content_hash: ")


def test_render_diff_shows_the_changed_field(make_trajectory) -> None:
    golden = make_trajectory()
    actual = make_trajectory()
    actual["steps"][4]["message"] = "The answer is 41."
    text = render_diff(normalize(golden), normalize(actual))
    lines = text.splitlines()
    assert lines[0] == "--- golden"
    assert lines[1] == "+++ actual"
    removed = [line for line in lines[2:] if line.startswith("-")]
    added = [line for line in lines[2:] if line.startswith("+")]
    assert removed == ['-      "message": "The answer is 42.",']
    assert added == ['+      "message": "The answer is 41.",']
    assert "more diff lines" not in text


def test_render_diff_names_and_context(make_trajectory) -> None:
    golden = normalize(make_trajectory())
    actual = copy.deepcopy(golden)
    actual["steps"][1]["message"] = "What is 6 * 8?"
    text = render_diff(golden, actual, context=0, golden_name="a.json", actual_name="run")
    assert text.splitlines()[:2] == ["--- a.json", "+++ run"]
    body = [line for line in text.splitlines()[2:] if not line.startswith("@@")]
    assert body == ['-      "message": "What is 6 * 7?",', '+      "message": "What is 6 * 8?",']


def test_render_diff_identical_is_empty(make_trajectory) -> None:
    norm = normalize(make_trajectory())
    assert render_diff(norm, copy.deepcopy(norm)) == ""


def test_render_diff_is_trimmed_when_long(make_trajectory) -> None:
    golden = normalize(make_trajectory())
    actual = copy.deepcopy(golden)
    for index, step in enumerate(actual["steps"]):
        step["message"] = f"rewritten {index}"
    actual["steps"].extend(copy.deepcopy(actual["steps"]) * 4)
    full = render_diff(golden, actual, max_lines=100_000)
    total = len(full.splitlines())
    assert total > 40
    short = render_diff(golden, actual, max_lines=40)
    lines = short.splitlines()
    assert len(lines) == 41
    assert lines[:40] == full.splitlines()[:40]
    assert lines[-1] == f"... ({total - 40} more diff lines not shown)"
    assert short.endswith("\n")


@pytest.mark.parametrize("max_lines", [1, 5])
def test_render_diff_note_counts_hidden_lines(max_lines: int, make_trajectory) -> None:
    golden = normalize(make_trajectory())
    actual = copy.deepcopy(golden)
    actual["steps"][4]["message"] = "x"
    full = render_diff(golden, actual, max_lines=1000).splitlines()
    cut = render_diff(golden, actual, max_lines=max_lines).splitlines()
    assert cut[-1] == f"... ({len(full) - max_lines} more diff lines not shown)"
