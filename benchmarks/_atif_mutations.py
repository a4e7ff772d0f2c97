"""Mutations of valid ATIF documents for the conformance harness: one change each.

Each takes a document built by Harbor's models (a JSON dict, changed in place), a random
generator and the output folder, and returns what it changed, or ``None`` when the document has
nothing to change. Whether the result is still valid is not decided here: Harbor's validator and
trajguard's each give their verdict, and the harness compares them.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

Doc = dict[str, Any]
Mutation = Callable[[Doc, random.Random, Path], str | None]


def trajectories(doc: Doc) -> Iterator[Doc]:
    yield doc
    for child in doc.get("subagent_trajectories") or ():
        yield from trajectories(child)


def steps(doc: Doc) -> list[Doc]:
    return [step for traj in trajectories(doc) for step in traj["steps"]]


def objects(doc: Doc) -> list[tuple[str, Doc]]:
    """Every ATIF object of the document with its kind (payload dicts excluded)."""
    found: list[tuple[str, Doc]] = []
    for traj in trajectories(doc):
        found += [("trajectory", traj), ("agent", traj["agent"])]
        if traj.get("final_metrics"):
            found.append(("final_metrics", traj["final_metrics"]))
        for step in traj["steps"]:
            found.append(("step", step))
            found += [("tool_call", c) for c in step.get("tool_calls") or ()]
            if step.get("metrics"):
                found.append(("metrics", step["metrics"]))
            parts = step["message"] if isinstance(step.get("message"), list) else []
            for result in (step.get("observation") or {}).get("results", ()):
                found.append(("result", result))
                found += [("ref", ref) for ref in result.get("subagent_trajectory_ref") or ()]
                parts = parts + (
                    result["content"] if isinstance(result.get("content"), list) else []
                )
            for part in parts:
                found.append(("part", part))
                if "source" in part:
                    found.append(("source", part["source"]))
    return found


def _pick(rng: random.Random, items: list[Any]) -> Any:
    return rng.choice(items) if items else None


def _of(doc: Doc, kind: str) -> list[Doc]:
    return [obj for k, obj in objects(doc) if k == kind]


def _steps_of(doc: Doc, source: str) -> list[Doc]:
    return [s for s in steps(doc) if s["source"] == source]


def unknown_field(doc: Doc, rng: random.Random, folder: Path) -> str | None:
    kind, target = rng.choice(objects(doc))
    target["x_custom"] = rng.choice([1, "kept", {"a": [1]}])
    return f"x_custom on a {kind}"


def drop_required(doc: Doc, rng: random.Random, folder: Path) -> str | None:
    options: list[tuple[Doc, str]] = [(doc, "agent"), (doc, "steps"), (doc["agent"], "name")]
    options += [(doc["agent"], "version")]
    options += [(s, f) for s in steps(doc) for f in ("source", "step_id", "message")]
    options += [(c, f) for c in _of(doc, "tool_call") for f in ("arguments", "tool_call_id")]
    options += [(s["observation"], "results") for s in steps(doc) if s.get("observation")]
    options += [(p, "text") for p in _of(doc, "part") if p["type"] == "text"]
    target, field = rng.choice(options)
    del target[field]
    return f"without {field}"


def renumber(doc: Doc, rng: random.Random, folder: Path) -> str | None:
    traj = rng.choice(list(trajectories(doc)))
    how = rng.choice(["gap", "zero", "string", "float", "repeat"])
    for index, step in enumerate(traj["steps"]):
        if how == "gap" and index >= len(traj["steps"]) // 2:
            step["step_id"] = index + 2
        elif how == "zero":
            step["step_id"] = index
        elif how == "string":
            step["step_id"] = str(index + 1)
        elif how == "float":
            step["step_id"] = float(index + 1)
        elif how == "repeat" and index > 0:
            step["step_id"] = index
    return f"step ids: {how}"


def wrong_type(doc: Doc, rng: random.Random, folder: Path) -> str | None:
    step = rng.choice(steps(doc))
    choice = rng.choice(["source", "message", "extra", "tool_definitions", "tokens", "arguments"])
    if choice == "source":
        step["source"] = "assistant"
    elif choice == "message":
        step["message"] = rng.choice([5, None, {"text": "x"}])
    elif choice == "extra":
        step["extra"] = "not an object"
    elif choice == "tool_definitions":
        doc["agent"]["tool_definitions"] = {"name": "bash"}
    elif choice == "tokens":
        step.setdefault("metrics", {})["prompt_tokens"] = rng.choice(["many", 1.5, "12"])
        step["source"] = "agent"
    else:
        call = _pick(rng, _of(doc, "tool_call"))
        if call is None:
            return None
        call["arguments"] = rng.choice(['{"x": 1}', [1], None])
    return f"wrong type: {choice}"


def media(doc: Doc, rng: random.Random, folder: Path) -> str | None:
    step = rng.choice(steps(doc))
    kind = rng.choice(["image", "audio"])
    how = rng.choice(
        ["bad type", "alias", "missing file", "text null", "text and source", "duration"]
    )
    mime = {"image": "image/png", "audio": "audio/wav"}[kind]
    part: Doc = {"type": kind, "source": {"media_type": mime, "path": "https://m.example/x"}}
    if how == "bad type":
        part["source"]["media_type"] = rng.choice(
            ["image/tiff", "audio/midi", "video/mp4", "AUDIO/MP3"]
        )
    elif how == "alias":
        part = {
            "type": "audio",
            "source": {
                "media_type": rng.choice(["audio/x-wav", " Audio/M4A"]),
                "path": "https://m.example/a",
            },
        }
    elif how == "missing file":
        part["source"]["path"] = f"media/missing-{rng.getrandbits(24):x}.bin"
    elif how == "text null":
        part["text"] = None
    elif how == "text and source":
        part = {"type": "text", "text": "t", "source": part["source"]}
    else:
        part = {
            "type": "audio",
            "source": {
                "media_type": "audio/ogg",
                "path": "https://m.example/a",
                "duration_sec": rng.choice([-1, 0, 2.5, "3"]),
            },
        }
    message = step.get("message")
    step["message"] = (
        message if isinstance(message, list) else [{"type": "text", "text": str(message or "")}]
    ) + [part]
    return f"{kind} part: {how}"


def agent_only(doc: Doc, rng: random.Random, folder: Path) -> str | None:
    step = _pick(rng, _steps_of(doc, "user") + _steps_of(doc, "system"))
    if step is None:
        return None
    field, value = rng.choice(
        [
            ("model_name", "gpt-test"),
            ("reasoning_effort", "low"),
            ("reasoning_content", "thinking"),
            ("metrics", {"prompt_tokens": 1}),
            ("tool_calls", [{"tool_call_id": "c", "function_name": "f", "arguments": {}}]),
        ]
    )
    step[field] = value
    return f"{field} on a {step['source']} step"


def counts(doc: Doc, rng: random.Random, folder: Path) -> str | None:
    step = rng.choice(_steps_of(doc, "agent") or steps(doc))
    how = rng.choice(
        [
            "llm_call_count -1",
            "total_steps -1",
            "prompt_tokens -5",
            "dispatch with metrics",
            "dispatch with reasoning",
            "llm_call_count 3",
        ]
    )
    if how == "llm_call_count -1":
        step["llm_call_count"] = -1
    elif how == "total_steps -1":
        doc["final_metrics"] = {**(doc.get("final_metrics") or {}), "total_steps": -1}
    elif how == "prompt_tokens -5":
        step.setdefault("metrics", {})["prompt_tokens"] = -5
    elif how == "llm_call_count 3":
        step["llm_call_count"] = 3
    else:
        step["llm_call_count"] = 0
        field = "metrics" if how.endswith("metrics") else "reasoning_content"
        step[field] = {"prompt_tokens": 3} if field == "metrics" else "why"
    if step["source"] != "agent" and how != "total_steps -1":
        step["source"] = "agent"
    return how


def timestamp(doc: Doc, rng: random.Random, folder: Path) -> str | None:
    value = rng.choice(
        [
            "yesterday",
            "2025-13-01T00:00:00Z",
            "",
            "2025-01-01T10:00",
            "2025-01-01T10:00:00.5+05:30",
            "20250101T100000Z",
            "2025-W01-1",
        ]
    )
    rng.choice(steps(doc))["timestamp"] = value
    return f"timestamp {value!r}"


def subagents(doc: Doc, rng: random.Random, folder: Path) -> str | None:
    how = rng.choice(
        ["empty steps", "duplicate id", "missing id", "bad nested version", "empty root steps"]
    )
    if how == "empty root steps":
        doc["steps"] = []
        return how
    child = {
        "schema_version": doc.get("schema_version", "ATIF-v1.8"),
        "trajectory_id": "dup",
        "agent": {"name": "sub", "version": "1"},
        "steps": [{"step_id": 1, "source": "user", "message": "x"}],
    }
    doc.setdefault("subagent_trajectories", [])
    doc["subagent_trajectories"] = (doc["subagent_trajectories"] or []) + [child]
    if how == "empty steps":
        child["steps"] = []
    elif how == "duplicate id":
        doc["subagent_trajectories"].append(dict(child))
    elif how == "missing id":
        del child["trajectory_id"]
    else:
        child["schema_version"] = rng.choice(["ATIF-v1.9", "v1.7", None])
    return f"subagent: {how}"


def refs(doc: Doc, rng: random.Random, folder: Path) -> str | None:
    step = rng.choice(steps(doc))
    how = rng.choice(
        [
            "session only",
            "id and path",
            "unresolved id",
            "path only",
            "empty ref",
            "unmatched call id",
        ]
    )
    ref: Doc = {
        "session only": {"session_id": "s-1"},
        "id and path": {
            "trajectory_id": "elsewhere",
            "trajectory_path": "elsewhere.json",
            "session_id": "s-2",
        },
        "unresolved id": {"trajectory_id": "nowhere"},
        "path only": {"trajectory_path": "sub.json"},
        "empty ref": {},
    }.get(how, {})
    result: Doc = (
        {"content": "r", "subagent_trajectory_ref": [ref]}
        if how != "unmatched call id"
        else {"source_call_id": "call_nowhere", "content": "r"}
    )
    step.setdefault("observation", {"results": []})
    step["observation"]["results"] = [*step["observation"].get("results", []), result]
    return f"ref: {how}"


def versions(doc: Doc, rng: random.Random, folder: Path) -> str | None:
    how = rng.choice(
        ["ATIF-v1.9", "ATIF-v2.0", "1.8", "no schema_version", "ATIF-v1.0", "ATIF-v1.4"]
    )
    if how == "no schema_version":
        del doc["schema_version"]
    else:
        doc["schema_version"] = how
    return f"version: {how}"


def totals(doc: Doc, rng: random.Random, folder: Path) -> str | None:
    final = doc.setdefault("final_metrics", {}) or {}
    doc["final_metrics"] = final
    final["total_prompt_tokens"] = (final.get("total_prompt_tokens") or 0) + rng.randint(1, 999)
    final["total_steps"] = len(doc["steps"]) + rng.choice([0, 2])
    if rng.random() < 0.3:
        doc["notes"] = "totals include a call interrupted before it became a step"
    return "final_metrics differ from the steps"


def lax_values(doc: Doc, rng: random.Random, folder: Path) -> str | None:
    step = rng.choice(_steps_of(doc, "agent") or steps(doc))
    step["source"] = "agent"
    how = rng.choice(
        [
            "copied 'yes'",
            "copied 2",
            "effort int",
            "effort list",
            "logprobs ints",
            "logprobs text",
            "cost '0.1'",
        ]
    )
    if how.startswith("copied"):
        step["is_copied_context"] = "yes" if how.endswith("'yes'") else 2
    elif how.startswith("effort"):
        step["reasoning_effort"] = 3 if how.endswith("int") else [1]
    elif how.startswith("logprobs"):
        step.setdefault("metrics", {})["logprobs"] = [0, -1] if how.endswith("ints") else ["low"]
    else:
        step.setdefault("metrics", {})["cost_usd"] = "0.1"
    return how


def edge_values(doc: Doc, rng: random.Random, folder: Path) -> str | None:
    """Values at the edge of what JSON and pydantic's lax mode accept."""
    step = rng.choice(steps(doc))
    edits: dict[str, tuple[str, Any]] = {
        "step_id true": ("step_id", True),
        "empty tool_calls": ("tool_calls", []),
        "empty message list": ("message", []),
        "tokens 2**70": ("metrics", {"prompt_tokens": 2**70}),
        "tokens 1000.0": ("metrics", {"prompt_tokens": 1000.0}),
        "tokens 10.5": ("metrics", {"prompt_tokens": 10.5}),
        "cost NaN": ("metrics", {"cost_usd": float("nan")}),
        "timestamp with a space": ("timestamp", "2025-01-01 10:00:00"),
        "timestamp 24:00": ("timestamp", "2025-01-01T24:00:00"),
        "timestamp 2023-02-29": ("timestamp", "2023-02-29"),
        "timestamp lower z": ("timestamp", "2025-01-01T10:00:00z"),
        "image path empty": (
            "message",
            [{"type": "image", "source": {"media_type": "image/png", "path": ""}}],
        ),
        "image path a folder": (
            "message",
            [{"type": "image", "source": {"media_type": "image/png", "path": "."}}],
        ),
    }
    name = rng.choice(sorted(edits))
    field, value = edits[name]
    step[field] = value
    return f"{name} on a {step['source']} step"


MUTATIONS: dict[str, Mutation] = {
    "unknown field": unknown_field,
    "required field dropped": drop_required,
    "step ids": renumber,
    "wrong type": wrong_type,
    "content parts": media,
    "agent-only field": agent_only,
    "counts": counts,
    "timestamp": timestamp,
    "subagents": subagents,
    "refs": refs,
    "schema_version": versions,
    "totals": totals,
    "lax values": lax_values,
    "edge values": edge_values,
}
