"""normalize(): remove what varies between identical runs, keep everything else."""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from trajguard.atif import load_trajectory
from trajguard.core.normalize import (
    VOLATILE_KEYS,
    DropKey,
    Normalized,
    Replace,
    canonical_json,
    normalize,
)
from trajguard.core.shape import shape
from trajguard.normative import check_normative


def _keys(value: Any, path: str = "$") -> Iterator[tuple[str, str]]:
    """(path, key) of every dict key in a JSON tree."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield path, key
            yield from _keys(item, f"{path}.{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _keys(item, f"{path}[{index}]")


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def _refs(node: dict) -> list[str]:
    return [
        ref["trajectory_id"]
        for step in node["steps"]
        for result in (step.get("observation") or {}).get("results", [])
        for ref in result.get("subagent_trajectory_ref") or []
    ]


# ---------------------------------------------------------------- volatile fields


def test_volatile_keys_are_the_documented_ones() -> None:
    assert (
        frozenset(
            {
                "session_id",
                "trajectory_id",
                "timestamp",
                "generation_id",
                "cost_usd",
                "total_cost_usd",
            }
        )
        == VOLATILE_KEYS
    )


def _values(value: Any, key: str) -> Iterator[Any]:
    """Every value stored under ``key`` anywhere in a JSON tree."""
    if isinstance(value, dict):
        for k, item in value.items():
            if k == key:
                yield item
            yield from _values(item, key)
    elif isinstance(value, list):
        for item in value:
            yield from _values(item, key)


def test_no_volatile_key_survives_anywhere_except_subagent_names(make_trajectory) -> None:
    out = normalize(make_trajectory())
    found = {key for _, key in _keys(out) if key in VOLATILE_KEYS}
    # the only trajectory_ids left are the positional names normalize gives subagents and refs,
    # the only session_ids the names of the refs' session ids
    assert found == {"trajectory_id", "session_id"}
    assert set(_values(out, "trajectory_id")) == {"sub_1", "sub_2", "sub_2.1"}
    assert list(_values(out, "session_id")) == ["session_1"]
    assert not [key for _, key in _keys(out) if key.startswith("\0")]  # no bookkeeping keys


def test_root_volatile_fields_removed(make_trajectory) -> None:
    out = normalize(make_trajectory())
    assert "session_id" not in out
    assert "trajectory_id" not in out
    assert "total_cost_usd" not in out["final_metrics"]
    assert out["final_metrics"] == {
        "total_prompt_tokens": 450,
        "total_completion_tokens": 60,
        "total_cached_tokens": 60,
        "total_steps": 5,
    }


def test_step_volatile_fields_removed(make_trajectory) -> None:
    out = normalize(make_trajectory())
    step = out["steps"][2]
    assert "timestamp" not in step
    assert "extra" not in step  # only generation_id was in it; an empty extra is dropped
    assert step["metrics"] == {"prompt_tokens": 100, "completion_tokens": 20, "cached_tokens": 10}
    assert all("timestamp" not in s for s in out["steps"])


def test_generation_id_removed_but_rest_of_extra_kept(make_minimal_trajectory) -> None:
    data = make_minimal_trajectory(
        {
            "source": "agent",
            "message": "x",
            "extra": {"generation_id": "g-1", "strategy": "react", "nested": {"timestamp": 5}},
            "metrics": {"prompt_tokens": 1, "cost_usd": 0.5, "extra": {"generation_id": "g-2"}},
        },
        extra={"crashed": True, "generation_id": "g-3", "session_id": "s"},
    )
    out = normalize(data)
    assert out["extra"] == {"crashed": True}
    # extra's own keys are ATIF-level: volatile ones go; a nested payload dict is data
    assert out["steps"][0]["extra"] == {"strategy": "react", "nested": {"timestamp": 5}}
    assert out["steps"][0]["metrics"] == {"prompt_tokens": 1}


def test_subagent_volatile_fields_removed(make_trajectory) -> None:
    out = normalize(make_trajectory())
    for child in out["subagent_trajectories"]:
        assert "session_id" not in child
        assert child["trajectory_id"].startswith("sub_")
        for step in child["steps"]:
            assert "timestamp" not in step
            assert "cost_usd" not in step.get("metrics", {})
            assert "generation_id" not in step.get("extra", {})
    checker_a = out["subagent_trajectories"][0]
    assert checker_a["final_metrics"] == {"total_prompt_tokens": 70, "total_completion_tokens": 9}


def test_ref_session_id_is_renamed_not_removed(make_trajectory) -> None:
    # before v1.7 a ref's session_id was its join key: renamed like a call id, never dropped
    out = normalize(make_trajectory())
    ref = out["steps"][3]["observation"]["results"][0]["subagent_trajectory_ref"]
    assert ref == [{"trajectory_id": "sub_2", "session_id": "session_1"}]


def _file_ref_run(*sessions: str) -> dict[str, Any]:
    """A v1.5 run whose subagents live in files, joined by session id (as terminus-2 writes)."""
    results = [
        {
            "content": f"summary {index}",
            "subagent_trajectory_ref": [
                {"session_id": session, "trajectory_path": f"sub-{index}.json"}
            ],
        }
        for index, session in enumerate(sessions)
    ]
    return {
        "schema_version": "ATIF-v1.5",
        "session_id": "run-af31",
        "agent": {"name": "a", "version": "1"},
        "steps": [
            {"step_id": 1, "source": "user", "message": "go"},
            {"step_id": 2, "source": "agent", "message": "", "observation": {"results": results}},
        ],
    }


def _ref_sessions(out: dict[str, Any]) -> list[str]:
    return [
        ref["session_id"]
        for result in out["steps"][1]["observation"]["results"]
        for ref in result["subagent_trajectory_ref"]
    ]


def test_ref_session_ids_are_named_by_first_appearance() -> None:
    out = normalize(_file_ref_run("run-af31-summ-1", "run-af31-q-1", "run-af31-summ-1"))
    assert _ref_sessions(out) == ["session_1", "session_2", "session_1"]
    assert "session_id" not in out  # the trajectory's own session id is still volatile
    again = normalize(_file_ref_run("x-9", "x-2", "x-9"))
    assert canonical_json(again) == canonical_json(out)
    differs = normalize(_file_ref_run("x-9", "x-2", "x-2"))  # a different join: a different run
    assert _ref_sessions(differs) == ["session_1", "session_2", "session_2"]


def test_dropping_session_id_drops_it_from_refs_too() -> None:
    out = normalize(_file_ref_run("s-1", "s-2"), scrubbers=[DropKey("session_id")])
    assert [r["subagent_trajectory_ref"] for r in out["steps"][1]["observation"]["results"]] == [
        [{"trajectory_path": "sub-0.json"}],
        [{"trajectory_path": "sub-1.json"}],
    ]
    assert not [key for _, key in _keys(out) if key.startswith("\0")]


def test_volatile_names_inside_payloads_are_kept(make_minimal_trajectory) -> None:
    data = make_minimal_trajectory(
        {
            "source": "agent",
            "message": "scheduling",
            "tool_calls": [
                {
                    "tool_call_id": "c1",
                    "function_name": "schedule",
                    "arguments": {
                        "timestamp": "2025-06-01T09:00:00Z",
                        "session_id": "user-chosen",
                        "opts": {"cost_usd": 3},
                    },
                }
            ],
            "observation": {"results": [{"source_call_id": "c1", "content": "ok"}]},
        },
    )
    out = normalize(data)
    assert out["steps"][0]["tool_calls"][0]["arguments"] == {
        "timestamp": "2025-06-01T09:00:00Z",
        "session_id": "user-chosen",
        "opts": {"cost_usd": 3},
    }


def test_tool_definition_parameters_are_payload(make_minimal_trajectory) -> None:
    schema = {"type": "object", "properties": {"timestamp": {"type": "string"}}}
    data = make_minimal_trajectory(
        agent={
            "name": "a",
            "version": "1",
            "tool_definitions": [
                {"type": "function", "function": {"name": "at", "parameters": schema}}
            ],
        }
    )
    out = normalize(data)
    assert out["agent"]["tool_definitions"][0]["function"]["parameters"] == schema


def test_schema_version_and_model_name_kept(make_trajectory) -> None:
    data = make_trajectory()
    data["schema_version"] = "ATIF-v1.3"
    out = normalize(load_trajectory(data))
    assert out["schema_version"] == "ATIF-v1.3"
    assert out["agent"]["model_name"] == "gpt-test"
    assert out["steps"][2]["model_name"] == "gpt-test"
    assert normalize(data)["schema_version"] == "ATIF-v1.3"


def test_null_fields_dropped(make_minimal_trajectory) -> None:
    data = make_minimal_trajectory({"source": "user", "message": "x", "model_name": None})
    assert "model_name" not in normalize(data)["steps"][0]


def test_input_is_not_mutated(make_trajectory) -> None:
    data = make_trajectory()
    before = copy.deepcopy(data)
    normalize(data)
    assert data == before


# ---------------------------------------------------------------- addresses


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("<function f at 0x7f3c2a1b9d00>", "<function f at 0xADDR>"),
        ("<__main__.Foo object at 0x10fe2b3c4>", "<__main__.Foo object at 0xADDR>"),
        (
            "ctx: <bound method A.run of <__main__.A object at 0x7f0000000abc>> and "
            "<function g at 0xDEADBEEF01>",
            "ctx: <bound method A.run of <__main__.A object at 0xADDR>> and <function g at 0xADDR>",
        ),
        ("<coroutine object main at 0x1>", "<coroutine object main at 0xADDR>"),
        (
            "<weakref at 0x7fc87f0db9c0; to 'A' at 0x7fc87eeb03d0>",
            "<weakref at 0xADDR; to 'A' at 0xADDR>",
        ),
        (
            "<cell at 0x7fc87db9cbb0: int object at 0x7fc87f94e8a8>",
            "<cell at 0xADDR: int object at 0xADDR>",
        ),
        ("<function f.<locals>.g at 0x7f3c2a1b9d00>", "<function f.<locals>.g at 0xADDR>"),
        ("<generator object <genexpr> at 0x7f3c>", "<generator object <genexpr> at 0xADDR>"),
        # only the innermost "<...>" is a repr; the stray "> at 0x1f>" after it is text
        ("<f at 0x7f> at 0x1f>", "<f at 0xADDR> at 0x1f>"),
    ],
)
def test_object_repr_addresses_are_masked(
    text: str, expected: str, make_minimal_trajectory
) -> None:
    data = make_minimal_trajectory({"source": "system", "message": text})
    assert normalize(data)["steps"][0]["message"] == expected


@pytest.mark.parametrize(
    "text",
    [
        "the magic value is 0xdeadbeef",
        "mask = 0x1F  # in code",
        "commit 3f2c1a9b0d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a",
        "sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        "allocated at 0x7f3c2a1b9d00 by malloc",
        "pointer 0x7f3c2a1b9d00>",
        "<0x7f3c2a1b9d00>",
        "<at 0x10>",
        "if a < b and the register at 0x1F > 3",
        "<p>the register at 0x1F</p>",
        "<f at 0x7fzz>",
    ],
)
def test_ordinary_hex_is_not_masked(text: str, make_minimal_trajectory) -> None:
    data = make_minimal_trajectory({"source": "agent", "message": text})
    assert normalize(data)["steps"][0]["message"] == text


# Whole reprs, stray brackets and loose addresses, so examples mix nested and broken reprs.
_REPR_FRAGMENTS = st.sampled_from(
    [
        "<f at 0x7f>",
        " at 0x1F>",
        "<cell at 0x7fc8: int object at 0x7fa0>",
        "<weakref at 0x7fc8; to 'A' at 0x7fa0>",
        "<function f.<locals>.g at 0x7f3c>",
        "<bound method A.run of ",
        "<",
        ">",
        " at ",
        "0x1F",
        "0xADDR",
        " ",
        "\n",
    ]
)


@settings(max_examples=200, deadline=None)
@given(text=st.lists(_REPR_FRAGMENTS, max_size=8).map("".join))
@example(text="<f at 0x7f> at 0x1f>")
def test_address_masking_is_idempotent(text: str, make_minimal_trajectory) -> None:
    once = normalize(make_minimal_trajectory({"source": "agent", "message": text}))
    assert normalize(once) == once


def test_addresses_masked_everywhere(make_minimal_trajectory) -> None:
    addr = "<function f at 0x7f3c2a1b9d00>"
    data = make_minimal_trajectory(
        {
            "source": "agent",
            "message": [{"type": "text", "text": f"part {addr}"}],
            "reasoning_content": addr,
            "tool_calls": [{"tool_call_id": "c", "function_name": "f", "arguments": {"v": addr}}],
            "observation": {"results": [{"source_call_id": "c", "content": f"got {addr}"}]},
        },
        notes=addr,
    )
    out = normalize(data)
    assert not any("0x7f3c2a1b9d00" in s for s in _strings(out))
    assert out["notes"] == "<function f at 0xADDR>"
    assert out["steps"][0]["message"][0]["text"] == "part <function f at 0xADDR>"
    assert out["steps"][0]["tool_calls"][0]["arguments"] == {"v": "<function f at 0xADDR>"}


# ---------------------------------------------------------------- tool-call ids


def test_tool_call_ids_renumbered_across_steps_with_joins(make_trajectory) -> None:
    out = normalize(make_trajectory())
    calls = [c["tool_call_id"] for s in out["steps"] for c in s.get("tool_calls", [])]
    assert calls == ["call_1", "call_2", "call_3"]
    step3 = out["steps"][2]
    # two calls in one step: each result still joins its own call
    assert [(c["tool_call_id"], c["function_name"]) for c in step3["tool_calls"]] == [
        ("call_1", "search"),
        ("call_2", "read_file"),
    ]
    assert [(r["source_call_id"], r["content"]) for r in step3["observation"]["results"]] == [
        ("call_1", "42"),
        ("call_2", "notes: multiply"),
    ]
    assert out["steps"][3]["observation"]["results"][0]["source_call_id"] == "call_3"
    assert "source_call_id" not in out["steps"][3]["observation"]["results"][1]


def test_results_in_a_different_order_keep_their_join(make_minimal_trajectory) -> None:
    data = make_minimal_trajectory(
        {
            "source": "agent",
            "message": "",
            "tool_calls": [
                {"tool_call_id": "zz", "function_name": "a", "arguments": {}},
                {"tool_call_id": "aa", "function_name": "b", "arguments": {}},
            ],
            "observation": {
                "results": [
                    {"source_call_id": "aa", "content": "from b"},
                    {"source_call_id": "zz", "content": "from a"},
                ]
            },
        },
    )
    out = normalize(data)["steps"][0]
    joined = {
        r["content"]: next(
            c["function_name"]
            for c in out["tool_calls"]
            if c["tool_call_id"] == r["source_call_id"]
        )
        for r in out["observation"]["results"]
    }
    assert joined == {"from a": "a", "from b": "b"}
    assert [r["source_call_id"] for r in out["observation"]["results"]] == ["call_2", "call_1"]


def test_dangling_source_call_id_is_not_joined_to_a_real_call(make_minimal_trajectory) -> None:
    data = make_minimal_trajectory(
        {
            "source": "agent",
            "message": "",
            "tool_calls": [{"tool_call_id": "real", "function_name": "a", "arguments": {}}],
            "observation": {
                "results": [
                    {"source_call_id": "real", "content": "ok"},
                    {"source_call_id": "ghost-7f3a", "content": "orphan"},
                ]
            },
        },
    )
    out = normalize(data)
    results = out["steps"][0]["observation"]["results"]
    assert results[0]["source_call_id"] == "call_1"
    assert results[1]["source_call_id"] not in {"call_1", "ghost-7f3a"}
    # and the random dangling id does not leak into the comparison
    other = copy.deepcopy(data)
    other["steps"][0]["observation"]["results"][1]["source_call_id"] = "ghost-0000"
    assert normalize(other) == out
    # the N2 violation is still visible after normalising
    assert [v.rule for v in check_normative(load_trajectory(out))] == ["N2"]


def test_tool_call_numbering_restarts_per_trajectory(make_trajectory) -> None:
    out = normalize(make_trajectory())
    for child in out["subagent_trajectories"]:
        ids = [c["tool_call_id"] for s in child["steps"] for c in s.get("tool_calls", [])]
        assert ids == ["call_1"]


def test_tool_call_extra_is_kept(make_minimal_trajectory) -> None:
    data = make_minimal_trajectory(
        {
            "source": "agent",
            "message": "",
            "tool_calls": [
                {
                    "tool_call_id": "c",
                    "function_name": "a",
                    "arguments": {},
                    "extra": {"parallel": True, "timestamp": "t"},
                }
            ],
        },
    )
    assert normalize(data)["steps"][0]["tool_calls"][0] == {
        "tool_call_id": "call_1",
        "function_name": "a",
        "arguments": {},
        "extra": {"parallel": True},
    }


# ---------------------------------------------------------------- subagents


def test_subagents_sorted_by_content(make_trajectory) -> None:
    data = make_trajectory()
    assert [c["agent"]["name"] for c in data["subagent_trajectories"]] == [
        "checker-b",
        "checker-a",
    ]
    out = normalize(data)
    assert [c["agent"]["name"] for c in out["subagent_trajectories"]] == [
        "checker-a",
        "checker-b",
    ]
    assert [c["trajectory_id"] for c in out["subagent_trajectories"]] == ["sub_1", "sub_2"]


def test_subagent_order_is_irrelevant(make_trajectory) -> None:
    data = make_trajectory()
    swapped = make_trajectory()
    swapped["subagent_trajectories"].reverse()
    assert canonical_json(normalize(data)) == canonical_json(normalize(swapped))


def test_sort_subagents_false_keeps_recorded_order(make_trajectory) -> None:
    data = make_trajectory()
    out = normalize(data, sort_subagents=False)
    assert [c["agent"]["name"] for c in out["subagent_trajectories"]] == [
        "checker-b",
        "checker-a",
    ]
    # names follow position, and refs follow the names
    assert out["steps"][3]["observation"]["results"][0]["subagent_trajectory_ref"] == [
        {"trajectory_id": "sub_1", "session_id": "session_1"}
    ]
    assert out["steps"][3]["observation"]["results"][1]["subagent_trajectory_ref"] == [
        {"trajectory_id": "sub_2"}
    ]
    swapped = make_trajectory()
    swapped["subagent_trajectories"].reverse()
    assert normalize(swapped, sort_subagents=False) != out
    assert check_normative(load_trajectory(out)) == []


def test_refs_rewritten_to_new_names_and_resolve(make_trajectory) -> None:
    data = make_trajectory()
    out = normalize(data)
    checker_a, checker_b = out["subagent_trajectories"]
    # root step 4: first result refs checker-b, second refs checker-a
    assert _refs(out) == ["sub_2", "sub_1"]
    assert checker_b["agent"]["name"] == "checker-b"
    assert checker_b["trajectory_id"] == "sub_2"
    # nested: checker-b refs its own child; the grandchild refs its uncle checker-a
    assert _refs(checker_b) == ["sub_2.1"]
    grandchild = checker_b["subagent_trajectories"][0]
    assert grandchild["trajectory_id"] == "sub_2.1"
    assert _refs(grandchild) == [checker_a["trajectory_id"]] == ["sub_1"]
    assert check_normative(load_trajectory(out)) == []


def test_nested_subagents_are_sorted_and_named(make_minimal_trajectory) -> None:
    def leaf(tid: str, text: str) -> dict:
        return {
            "trajectory_id": tid,
            "session_id": f"s-{tid}",
            "agent": {"name": "leaf", "version": "1"},
            "steps": [{"step_id": 1, "source": "user", "message": text}],
        }

    def ref_step(*tids: str) -> dict:
        return {
            "source": "agent",
            "message": "fan out",
            "observation": {
                "results": [{"subagent_trajectory_ref": [{"trajectory_id": t}]} for t in tids]
            },
        }

    middle = make_minimal_trajectory(
        ref_step("x-9", "x-1"),
        trajectory_id="mid-1",
        subagent_trajectories=[leaf("x-9", "zebra"), leaf("x-1", "apple")],
    )
    del middle["schema_version"]
    data = make_minimal_trajectory(ref_step("mid-1"), subagent_trajectories=[middle])
    out = normalize(data)
    mid = out["subagent_trajectories"][0]
    assert mid["trajectory_id"] == "sub_1"
    assert [c["steps"][0]["message"] for c in mid["subagent_trajectories"]] == ["apple", "zebra"]
    assert [c["trajectory_id"] for c in mid["subagent_trajectories"]] == ["sub_1.1", "sub_1.2"]
    assert _refs(mid) == ["sub_1.2", "sub_1.1"]  # zebra, apple
    assert _refs(out) == ["sub_1"]
    assert check_normative(load_trajectory(out)) == []


def test_identical_subagents_keep_their_refs_whatever_the_order(make_minimal_trajectory) -> None:
    """Fan-out of the same task twice: only the refs say which child is which."""

    def child(tid: str) -> dict:
        return {
            "trajectory_id": tid,
            "agent": {"name": "worker", "version": "1"},
            "steps": [{"step_id": 1, "source": "user", "message": "same task"}],
        }

    def run(order: str) -> dict:
        return make_minimal_trajectory(
            {
                "source": "agent",
                "message": "first",
                "observation": {"results": [{"subagent_trajectory_ref": [{"trajectory_id": "a"}]}]},
            },
            {
                "source": "agent",
                "message": "second",
                "observation": {"results": [{"subagent_trajectory_ref": [{"trajectory_id": "b"}]}]},
            },
            subagent_trajectories=[child(t) for t in order],
        )

    assert normalize(run("ab")) == normalize(run("ba"))
    assert _refs(normalize(run("ba"))) == ["sub_1", "sub_2"]


def test_subagents_differing_only_in_their_ref_targets_sort_stably(make_minimal_trajectory) -> None:
    """Two copies of a task, each with the same two helpers, but each merging a different one."""

    def helper(tid: str, text: str) -> dict:
        return {
            "trajectory_id": tid,
            "agent": {"name": "helper", "version": "1"},
            "steps": [{"step_id": 1, "source": "user", "message": text}],
        }

    def copy_of_task(tid: str, helper_ids: tuple[str, str], merged: str) -> dict:
        return {
            "trajectory_id": tid,
            "agent": {"name": "task", "version": "1"},
            "steps": [
                {
                    "step_id": 1,
                    "source": "agent",
                    "message": "merge",
                    "observation": {
                        "results": [{"subagent_trajectory_ref": [{"trajectory_id": merged}]}]
                    },
                }
            ],
            "subagent_trajectories": [helper(helper_ids[0], "one"), helper(helper_ids[1], "two")],
        }

    first = copy_of_task("a", ("g1", "g2"), "g1")  # merges "one"
    second = copy_of_task("b", ("h1", "h2"), "h2")  # merges "two"
    out = normalize(make_minimal_trajectory(subagent_trajectories=[first, second]))
    swapped = normalize(make_minimal_trajectory(subagent_trajectories=[second, first]))
    assert swapped == out
    merged = [
        next(h for h in c["subagent_trajectories"] if h["trajectory_id"] == _refs(c)[0])
        for c in out["subagent_trajectories"]
    ]
    assert sorted(h["steps"][0]["message"] for h in merged) == ["one", "two"]
    assert check_normative(load_trajectory(out)) == []


def test_unresolvable_ref_is_left_as_is(make_minimal_trajectory) -> None:
    data = make_minimal_trajectory(
        {
            "source": "agent",
            "message": "",
            "observation": {
                "results": [
                    {"subagent_trajectory_ref": [{"trajectory_id": "elsewhere", "x": 1}]},
                    {"subagent_trajectory_ref": [{"trajectory_path": "child.json"}]},
                ]
            },
        },
    )
    out = normalize(data)
    results = out["steps"][0]["observation"]["results"]
    assert results[0]["subagent_trajectory_ref"] == [{"trajectory_id": "elsewhere", "x": 1}]
    assert results[1]["subagent_trajectory_ref"] == [{"trajectory_path": "child.json"}]


# ---------------------------------------------------------------- scrubbers


def test_dropkey_removes_a_key_at_every_level_including_payloads(make_minimal_trajectory) -> None:
    data = make_minimal_trajectory(
        {
            "source": "agent",
            "message": "",
            "extra": {"duration_ms": 12, "kept": 1},
            "tool_calls": [
                {
                    "tool_call_id": "c",
                    "function_name": "f",
                    "arguments": {"duration_ms": 3, "n": {"duration_ms": 4, "m": 5}},
                }
            ],
            "observation": {"results": [{"source_call_id": "c", "content": "x", "duration_ms": 9}]},
        },
        duration_ms=100,
    )
    out = normalize(data, scrubbers=[DropKey("duration_ms")])
    assert not [k for _, k in _keys(out) if k == "duration_ms"]
    assert out["steps"][0]["extra"] == {"kept": 1}
    assert out["steps"][0]["tool_calls"][0]["arguments"] == {"n": {"m": 5}}
    # without the scrubber it is all still there
    assert len([k for _, k in _keys(normalize(data)) if k == "duration_ms"]) == 5


def test_replace_temp_path_with_cwd_placeholder(tmp_path, make_minimal_trajectory) -> None:
    cwd = str(tmp_path)
    data = make_minimal_trajectory(
        {
            "source": "agent",
            "message": f"working in {cwd}",
            "tool_calls": [
                {
                    "tool_call_id": "c",
                    "function_name": "read",
                    "arguments": {"path": f"{cwd}/a.txt"},
                }
            ],
            "observation": {
                "results": [
                    {
                        "source_call_id": "c",
                        "content": [
                            {
                                "type": "image",
                                "source": {"media_type": "image/png", "path": f"{cwd}/s.png"},
                            }
                        ],
                    }
                ]
            },
        },
    )
    out = normalize(data, scrubbers=[Replace.literal(cwd, "{{cwd}}")])
    step = out["steps"][0]
    assert step["message"] == "working in {{cwd}}"
    assert step["tool_calls"][0]["arguments"] == {"path": "{{cwd}}/a.txt"}
    assert step["observation"]["results"][0]["content"][0]["source"]["path"] == "{{cwd}}/s.png"
    assert not any(cwd in s for s in _strings(out))
    # two runs in different temp dirs compare equal once scrubbed
    other = json.loads(json.dumps(data).replace(cwd, "/tmp/pytest-of-x/other0"))
    scrub_other = [Replace.literal("/tmp/pytest-of-x/other0", "{{cwd}}")]
    assert normalize(other, scrubbers=scrub_other) == out


def test_replace_regex(make_minimal_trajectory) -> None:
    data = make_minimal_trajectory({"source": "agent", "message": "took 123ms then 9ms"})
    out = normalize(data, scrubbers=[Replace.regex(r"\d+ms", "{{duration}}")])
    assert out["steps"][0]["message"] == "took {{duration}} then {{duration}}"


def test_scrubbers_and_address_masking_combine(make_minimal_trajectory) -> None:
    data = make_minimal_trajectory(
        {"source": "system", "message": "<function f at 0x7f00deadbeef> in /tmp/w1"}
    )
    out = normalize(data, scrubbers=(Replace.literal("/tmp/w1", "{{cwd}}"),))
    assert out["steps"][0]["message"] == "<function f at 0xADDR> in {{cwd}}"


# ---------------------------------------------------------------- inputs, idempotence


def test_dict_and_trajectory_input_give_the_same_result(make_trajectory) -> None:
    data = make_trajectory()
    from_dict = normalize(data)
    from_model = normalize(load_trajectory(data))
    assert from_dict == from_model
    assert canonical_json(from_dict) == canonical_json(from_model)


def test_result_is_a_normalized_json_ready_dict(make_trajectory) -> None:
    out = normalize(make_trajectory())
    assert isinstance(out, Normalized)
    assert isinstance(out, dict)
    assert json.loads(canonical_json(out)) == out


def test_idempotent(make_trajectory) -> None:
    once = normalize(make_trajectory())
    twice = normalize(once)
    assert twice == once
    assert normalize(load_trajectory(once)) == once


def test_idempotent_with_scrubbers(make_trajectory) -> None:
    rules = [DropKey("reasoning_content"), Replace.regex(r"\d+", "N")]
    once = normalize(make_trajectory(), scrubbers=rules)
    assert normalize(once, scrubbers=rules) == once
    assert "reasoning_content" not in once["steps"][2]
    assert once["steps"][4]["message"] == "The answer is N."


def test_idempotent_unsorted(make_trajectory) -> None:
    once = normalize(make_trajectory(), sort_subagents=False)
    assert normalize(once, sort_subagents=False) == once


def test_two_recordings_of_the_same_run_normalise_equal(make_trajectory, perturb_volatile) -> None:
    data = make_trajectory()
    for seed in range(5):
        other = perturb_volatile(data, random.Random(seed))
        assert other != data
        assert canonical_json(normalize(other)) == canonical_json(normalize(data))


def test_canonical_json_sorts_keys_and_is_compact() -> None:
    assert canonical_json({"b": 1, "a": [1, {"d": "é", "c": None}]}) == (
        '{"a":[1,{"c":null,"d":"é"}],"b":1}'
    )
    assert canonical_json({"b": 1, "a": 2}, indent=2) == '{\n  "a": 2,\n  "b": 1\n}'


# ---------------------------------------------------------------- a dict reads as the model does


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("reasoning_effort", 2),  # str | float: an integer is a number either way
        ("step_id", "2"),  # some producers write step ids as strings
        ("llm_call_count", "1"),
        ("is_copied_context", "false"),
    ],
)
def test_a_dict_normalises_as_the_loaded_trajectory(
    field: str, value: object, make_minimal_trajectory
) -> None:
    data = make_minimal_trajectory()
    data["steps"][1][field] = value
    from_dict, from_model = normalize(data), normalize(load_trajectory(data))
    assert canonical_json(from_dict) == canonical_json(from_model)
    assert shape(data).content_hash == shape(load_trajectory(data)).content_hash


def test_integer_logprobs_hash_as_the_loaded_trajectory(make_minimal_trajectory) -> None:
    data = make_minimal_trajectory()
    data["steps"][1]["metrics"] = {"prompt_tokens": 3, "logprobs": [0, -1]}
    assert canonical_json(normalize(data)) == canonical_json(normalize(load_trajectory(data)))
    assert normalize(data)["steps"][1]["metrics"]["logprobs"] == [0.0, -1.0]


def test_a_dict_the_model_refuses_is_normalised_as_given() -> None:
    partial = {"steps": [{"source": "agent", "message": "x", "timestamp": "t"}]}
    assert normalize(partial) == {"steps": [{"source": "agent", "message": "x"}]}
