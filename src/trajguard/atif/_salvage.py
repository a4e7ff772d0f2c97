"""Read what the schema accepts of a document it refuses, so every other rule can still be checked.

``trajguard validate`` reports every problem of a file, not only its structural ones. When the
schema refuses parts of a document, each refused part is set aside and the rest is read:

* an optional field the schema refuses is left out;
* a list element that cannot be read (a step, a tool call, an observation result, a content
  part, an embedded subagent trajectory) is replaced by an empty one of its kind that keeps
  its id (``step_id``, ``tool_call_id``, ``source_call_id``, ``trajectory_id``), so step
  numbering and joins are checked as written;
* a required object that cannot be read (``agent``) is replaced by an empty one;
* anything else that cannot be read takes its parent along, up to the root, where nothing can
  be read and only the structural problems are reported.

The paths set aside are returned: a rule broken at or under one of them is not reported (the
structural problem already is, and the rule would judge a stand-in).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from trajguard.atif._io import document_loc, json_path
from trajguard.atif._models import Trajectory

__all__ = ["salvage"]

_Loc = tuple[int | str, ...]
_MAX_ROUNDS = 64  # each round sets aside at least one part, mostly one level higher
_EMPTY_STEP = {"source": "system", "message": ""}
_EMPTY_AGENT = {"name": "", "version": ""}
_MISSING = object()


def salvage(data: Mapping[str, Any], exc: ValidationError) -> tuple[Trajectory | None, list[str]]:
    """The readable rest of a refused document and the JSON paths set aside.

    ``exc`` is the schema's verdict on ``data``. Returns ``None`` as the trajectory when not
    even the root can be read.
    """
    document: Any = copy.deepcopy(dict(data))
    aside: list[_Loc] = []
    for _ in range(_MAX_ROUNDS):
        targets = {_target(document, document_loc(err["loc"]), aside) for err in exc.errors()}
        if () in targets:
            return None, [json_path(loc) for loc in aside]
        for loc in sorted(targets, key=len, reverse=True):
            _set_aside(document, loc)
            aside.append(loc)
        try:
            return Trajectory.model_validate(document), [json_path(loc) for loc in aside]
        except ValidationError as again:
            exc = again
    return None, [json_path(loc) for loc in aside]


def _target(document: Any, loc: _Loc, aside: list[_Loc]) -> _Loc:
    """Where to cut for an error at ``loc``: there, or higher when that cannot help."""
    while loc:
        already = any(loc[: len(done)] == done for done in aside)
        if not already and _value_at(document, loc) is not _MISSING and _can_cut(loc):
            return loc
        if loc[-1] == "agent" and not already:
            return loc  # a missing agent: an empty one stands in
        loc = loc[:-1]
    return ()


def _can_cut(loc: _Loc) -> bool:
    last = loc[-1]
    if isinstance(last, str):
        return True  # an optional field can be left out; a required one fails again, higher
    return len(loc) >= 2 and _placeholder(loc[-2], {}) is not None


def _value_at(document: Any, loc: _Loc) -> Any:
    node = document
    for part in loc:
        if isinstance(part, int):
            if not isinstance(node, list) or part >= len(node):
                return _MISSING
            node = node[part]
        elif isinstance(node, dict) and part in node:
            node = node[part]
        else:
            return _MISSING
    return node


def _set_aside(document: Any, loc: _Loc) -> None:
    parent = _value_at(document, loc[:-1])
    last = loc[-1]
    if last == "agent" and isinstance(parent, dict):
        parent["agent"] = dict(_EMPTY_AGENT)
    elif isinstance(last, str) and isinstance(parent, dict):
        parent.pop(last, None)
    elif isinstance(last, int) and isinstance(parent, list):
        original = parent[last] if isinstance(parent[last], dict) else {}
        parent[last] = _placeholder(loc[-2], original, position=last)


def _placeholder(
    kind: int | str, original: Mapping[str, Any], *, position: int = 0
) -> dict[str, Any] | None:
    def kept(key: str, default: Any = None) -> dict[str, Any]:
        value = original.get(key)
        if key == "step_id":
            readable = isinstance(value, int) or (isinstance(value, str) and value.isdigit())
            return {key: value if readable else default}
        if isinstance(value, str):
            return {key: value}
        return {} if default is None else {key: default}

    if kind == "steps":
        return {**kept("step_id", position + 1), **_EMPTY_STEP}
    if kind == "tool_calls":
        return {**kept("tool_call_id", ""), "function_name": "", "arguments": {}}
    if kind == "results":
        return kept("source_call_id")
    if kind in ("message", "content"):
        return {"type": "text", "text": ""}
    if kind == "subagent_trajectories":
        return {
            **kept("trajectory_id"),
            "agent": dict(_EMPTY_AGENT),
            "steps": [{"step_id": 1, **_EMPTY_STEP}],
        }
    return None
