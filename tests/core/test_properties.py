"""Property tests: normalize is idempotent and blind to every volatile field."""

from __future__ import annotations

import copy
import string
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from trajguard.atif import load_trajectory
from trajguard.core.diff import diff
from trajguard.core.normalize import canonical_json, normalize
from trajguard.core.shape import shape
from trajguard.normative import check_normative

SETTINGS = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.large_base_example,
    ],
)

_ALPHABET = string.ascii_letters + string.digits + " .,:_-/"
plain_text = st.text(alphabet=_ALPHABET, max_size=16)
object_reprs = st.builds(
    lambda kind, address: f"<{kind} at 0x{address:x}>",
    st.sampled_from(["function run", "__main__.Agent object", "coroutine object main"]),
    st.integers(min_value=1, max_value=2**48),
)
texts = st.lists(
    st.one_of(plain_text, object_reprs, st.just("0xdeadbeef"), st.just("0x1F")), max_size=3
).map(" ".join)
content_parts = st.lists(
    st.one_of(
        st.builds(lambda t: {"type": "text", "text": t}, texts),
        st.builds(
            lambda p: {"type": "image", "source": {"media_type": "image/png", "path": p}},
            plain_text,
        ),
        st.builds(
            lambda p, mime: {"type": "audio", "source": {"media_type": mime, "path": p}},
            plain_text,
            st.sampled_from(["audio/wav", "audio/mp3", "audio/ogg"]),
        ),
    ),
    min_size=1,
    max_size=3,
)
contents = st.one_of(texts, content_parts)
identifiers = st.text(
    alphabet=string.ascii_lowercase + string.digits + "_-", min_size=1, max_size=10
)
function_names = st.sampled_from(["search", "read_file", "write_file", "run_python"])
arguments = st.dictionaries(
    st.sampled_from(["q", "path", "timestamp", "session_id", "n"]),
    st.one_of(texts, st.integers(-5, 5)),
    max_size=3,
)
timestamps = st.datetimes().map(lambda d: d.isoformat() + "Z")
token_counts = st.integers(min_value=0, max_value=500)
metrics = st.fixed_dictionaries(
    {"prompt_tokens": token_counts, "completion_tokens": token_counts},
    optional={
        "cached_tokens": token_counts,
        "cost_usd": st.floats(0, 1),
        # integers where the schema has floats: the model reads them as floats, so must a dict
        "logprobs": st.lists(st.integers(-5, 0), max_size=3),
    },
)
efforts = st.one_of(st.sampled_from(["low", "high"]), st.integers(0, 3), st.floats(0, 1))


@st.composite
def agent_steps(draw: st.DrawFn, child_ids: list[str]) -> dict[str, Any]:
    step: dict[str, Any] = {"source": "agent", "message": draw(contents)}
    call_ids = draw(st.lists(identifiers, max_size=3, unique=True))
    if call_ids:
        step["tool_calls"] = [
            {"tool_call_id": i, "function_name": draw(function_names), "arguments": draw(arguments)}
            for i in call_ids
        ]
    answered = [i for i in call_ids if draw(st.booleans())]  # a call may have no result
    results: list[dict[str, Any]] = [
        {"source_call_id": i, "content": draw(contents)} for i in draw(st.permutations(answered))
    ]
    if child_ids and draw(st.booleans()):
        for target in draw(st.lists(st.sampled_from(child_ids), min_size=1, max_size=3)):
            ref: dict[str, Any] = {"trajectory_id": target}
            if draw(st.booleans()):
                ref["session_id"] = draw(identifiers)
            if draw(st.booleans()):
                ref["trajectory_path"] = f"{target}.json"
            results.append({"subagent_trajectory_ref": [ref], "content": draw(texts)})
    if results:
        step["observation"] = {"results": results}
    llm_calls = draw(st.sampled_from([None, 0, 1, 2]))
    if llm_calls is not None:
        step["llm_call_count"] = llm_calls
    if llm_calls != 0:  # N5: a deterministic dispatch has neither
        if draw(st.booleans()):
            step["metrics"] = draw(metrics)
        if draw(st.booleans()):
            step["reasoning_content"] = draw(texts)
    if draw(st.booleans()):
        step["reasoning_effort"] = draw(efforts)
    if draw(st.booleans()):
        step["extra"] = {"generation_id": draw(st.uuids()).hex}
    return step


@st.composite
def other_steps(draw: st.DrawFn) -> dict[str, Any]:
    return {"source": draw(st.sampled_from(["system", "user"])), "message": draw(contents)}


@st.composite
def trajectories(draw: st.DrawFn, depth: int = 0, min_children: int = 0) -> dict[str, Any]:
    """A valid ATIF trajectory dict (N1 to N9 hold), with nested subagents below the root."""
    most = max(min_children, 2 if depth < 2 else 0)
    child_ids = draw(st.lists(identifiers, min_size=min_children, max_size=most, unique=True))
    children: list[dict[str, Any]] = []
    for child_id in child_ids:
        if children and draw(st.booleans()):
            child = copy.deepcopy(children[0])  # fan-out of the same task: equal up to ids
            grandchildren = child.get("subagent_trajectories", [])
            if len(grandchildren) == 2 and draw(st.booleans()):
                # equal content, but its refs now point at the other grandchild
                first, second = grandchildren
                first["trajectory_id"], second["trajectory_id"] = (
                    second["trajectory_id"],
                    first["trajectory_id"],
                )
        else:
            child = draw(trajectories(depth=depth + 1))
        child["trajectory_id"] = child_id
        children.append(child)
    steps = draw(st.lists(st.one_of(other_steps(), agent_steps(child_ids)), min_size=1, max_size=5))
    for number, step in enumerate(steps, start=1):
        step["step_id"] = number
        if draw(st.booleans()):
            step["timestamp"] = draw(timestamps)
    traj: dict[str, Any] = {
        "agent": {"name": draw(st.sampled_from(["main", "helper"])), "version": "1.0"},
        "steps": steps,
    }
    if depth == 0:
        traj["schema_version"] = draw(st.sampled_from([f"ATIF-v1.{m}" for m in range(5, 9)]))
        if draw(st.booleans()):
            traj["trajectory_id"] = draw(identifiers)
        if draw(st.booleans()):
            traj["extra"] = {"crashed": draw(st.booleans())}
    if draw(st.booleans()):
        traj["agent"]["model_name"] = draw(st.sampled_from(["m-1", "m-2"]))
    if draw(st.booleans()):
        traj["session_id"] = draw(identifiers)
    if draw(st.booleans()):
        with_metrics = [s["metrics"] for s in steps if "metrics" in s]
        traj["final_metrics"] = {
            "total_prompt_tokens": sum(m["prompt_tokens"] for m in with_metrics),
            "total_completion_tokens": sum(m["completion_tokens"] for m in with_metrics),
            "total_cost_usd": draw(st.floats(0, 10)),
            "total_steps": len(steps),
        }
    if children:
        traj["subagent_trajectories"] = children
    return traj


@st.composite
def fan_outs(draw: st.DrawFn) -> dict[str, Any]:
    """A root that fans one task out to 2 or 3 subagents, equal up to ids.

    Each copy has two subagents of its own and refers to one of them; in a copy the two may
    swap names, so copies that serialise alike (ids aside) can still differ in what they mean.
    """
    template = draw(trajectories(depth=1, min_children=2))
    first_id = template["subagent_trajectories"][0]["trajectory_id"]
    template["steps"].append(
        {
            "step_id": len(template["steps"]) + 1,
            "source": "agent",
            "message": "merging",
            "observation": {
                "results": [{"subagent_trajectory_ref": [{"trajectory_id": first_id}]}]
            },
        }
    )
    if "final_metrics" in template:
        template["final_metrics"]["total_steps"] = len(template["steps"])
    copy_ids = draw(st.lists(identifiers, min_size=2, max_size=3, unique=True))
    copies = []
    for copy_id in copy_ids:
        child = copy.deepcopy(template)
        child["trajectory_id"] = copy_id
        if draw(st.booleans()):
            first, second = child["subagent_trajectories"]
            first["trajectory_id"], second["trajectory_id"] = (
                second["trajectory_id"],
                first["trajectory_id"],
            )
        copies.append(child)
    steps: list[dict[str, Any]] = [{"step_id": 1, "source": "user", "message": "fan out"}]
    for target in draw(st.lists(st.sampled_from(copy_ids), max_size=3)):
        steps.append(
            {
                "step_id": len(steps) + 1,
                "source": "agent",
                "message": "",
                "observation": {
                    "results": [{"subagent_trajectory_ref": [{"trajectory_id": target}]}]
                },
            }
        )
    return {
        "schema_version": "ATIF-v1.7",
        "agent": {"name": "main", "version": "1.0"},
        "steps": steps,
        "subagent_trajectories": copies,
    }


@SETTINGS
@given(trajectories())
def test_generated_trajectories_are_valid_atif(traj: dict[str, Any]) -> None:
    assert check_normative(load_trajectory(traj)) == []


@SETTINGS
@given(trajectories(), st.booleans())
def test_normalize_is_idempotent(traj: dict[str, Any], sort_subagents: bool) -> None:
    once = normalize(traj, sort_subagents=sort_subagents)
    assert normalize(once, sort_subagents=sort_subagents) == once
    assert normalize(copy.deepcopy(dict(once)), sort_subagents=sort_subagents) == once


@SETTINGS
@given(trajectories())
def test_normalize_keeps_the_trajectory_valid(traj: dict[str, Any]) -> None:
    out = normalize(traj)
    assert check_normative(load_trajectory(out)) == []  # in particular every ref resolves (N9)
    # canonical JSON, not ==: 2 == 2.0 in Python, but they hash differently
    assert canonical_json(normalize(load_trajectory(traj))) == canonical_json(out)


@SETTINGS
@given(traj=trajectories(), rng=st.randoms(use_true_random=False))
def test_normalize_is_invariant_under_volatile_perturbation(
    traj: dict[str, Any], rng: Any, perturb_volatile: Any
) -> None:
    perturbed = perturb_volatile(traj, rng)
    assert canonical_json(normalize(perturbed)) == canonical_json(normalize(traj))
    assert diff(traj, perturbed) == []


@settings(SETTINGS, max_examples=25)
@given(traj=fan_outs(), rng=st.randoms(use_true_random=False))
def test_fan_out_of_equal_subagents_is_invariant_under_perturbation(
    traj: dict[str, Any], rng: Any, perturb_volatile: Any
) -> None:
    assert check_normative(load_trajectory(traj)) == []
    perturbed = perturb_volatile(traj, rng)
    out = normalize(traj)
    assert canonical_json(normalize(perturbed)) == canonical_json(out)
    assert normalize(out) == out
    assert check_normative(load_trajectory(out)) == []


@SETTINGS
@given(trajectories())
def test_shape_of_normalized_equals_shape(traj: dict[str, Any]) -> None:
    expected = shape(traj)
    assert shape(normalize(traj)) == expected
    assert shape(dict(normalize(traj))) == expected  # a plain dict is normalised again
    assert shape(load_trajectory(traj)) == expected
    assert expected.step_count == len(traj["steps"])
