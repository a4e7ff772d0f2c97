"""Normalise a trajectory: remove what varies between two identical runs, keep everything else.

The result is a plain JSON-ready dict (a :class:`Normalized`), safe to compare and to commit as a
golden file. Normalising is idempotent. What it does, and why:

* reads a dict through the ATIF model first, so a trajectory normalises the same whether it was
  loaded or not (``"step_id": "2"`` becomes ``2``, an integer ``reasoning_effort`` a number
  either way); a dict the model refuses is normalised as it is;
* removes ``session_id``, ``trajectory_id``, ``timestamp``, ``extra.generation_id``, ``cost_usd``
  and ``total_cost_usd`` from every ATIF object of the tree (root, agent, steps, tool calls,
  observation results, refs, metrics and their ``extra`` dicts) but not from tool arguments or
  other payloads, where a key called ``timestamp`` is the agent's data;
* renames the ``session_id`` of subagent refs to ``session_1, session_2, …`` in order of first
  appearance (the same id gets the same name): before v1.7 it was the ref's join key, so it is
  renamed like a call id rather than dropped;
* masks object-repr addresses (``<function f at 0x7f3c…>`` → ``<function f at 0xADDR>``) in every
  string, but leaves ordinary hex in a model's text alone;
* renumbers tool-call ids to ``call_1, call_2, …`` per trajectory, rewriting the observations that
  join them, so random provider ids do not matter;
* normalises embedded subagent trajectories recursively, sorts them by their canonical JSON
  (fan-out completes in a different order every run; ``sort_subagents=False`` keeps the recorded
  order when order carries meaning), renames them ``sub_1``, ``sub_1.2`` … by position, and
  rewrites every ``subagent_trajectory_ref`` to the new names;
* applies user :data:`Scrubber` rules: :class:`DropKey` removes a key at every level (payloads
  included), :class:`Replace` rewrites every match of a pattern in every string;
* keeps ``schema_version`` (a schema bump must be loud) and ``model_name`` (a model swap must be).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError
from pydantic_core import PydanticSerializationError

from trajguard.atif import Trajectory

__all__ = [
    "VOLATILE_KEYS",
    "DropKey",
    "Normalized",
    "Replace",
    "Scrubber",
    "canonical_json",
    "mask_addresses",
    "normalize",
]

VOLATILE_KEYS = frozenset(
    {"session_id", "trajectory_id", "timestamp", "generation_id", "cost_usd", "total_cost_usd"}
)
# An object repr: an innermost "<...>" span on one line, starting with a name, that holds no
# other "<" or ">" except name parts such as "<locals>" or "<lambda>". Every " at 0x..." inside
# it is an address (a weakref or cell repr has two); hex outside such a span is the model's text.
_REPR_SPAN = re.compile(r"<(?=[^\s<>])(?:[^<>\n]|<[\w.]*>)*>")
_REPR_ADDRESS = re.compile(r"(?<= at )0x[0-9a-fA-F]+\b")
_STRUCTURAL_CHILDREN = ("agent", "final_metrics", "metrics", "observation")


class Normalized(dict[str, Any]):
    """A normalised trajectory: a plain dict, marked so :func:`shape` need not redo the work."""


@dataclass(frozen=True)
class DropKey:
    """Remove every dict key with this name, at every level of the trajectory."""

    key: str


@dataclass(frozen=True)
class Replace:
    """Replace every match of ``pattern`` in every string with ``placeholder``.

    Example: ``Replace.literal(str(tmp_path), "{{cwd}}")``.
    """

    pattern: re.Pattern[str]
    placeholder: str

    @classmethod
    def regex(cls, pattern: str, placeholder: str) -> Replace:
        """A rule from a regular expression (``re`` syntax)."""
        return cls(re.compile(pattern), placeholder)

    @classmethod
    def literal(cls, text: str, placeholder: str) -> Replace:
        """A rule that replaces an exact string, such as a temporary path."""
        return cls(re.compile(re.escape(text)), placeholder)


Scrubber = DropKey | Replace


def mask_addresses(text: str) -> str:
    """Mask object-repr addresses: ``<function f at 0x7f3c…>`` → ``<function f at 0xADDR>``."""
    return _REPR_SPAN.sub(_mask_span, text) if " at 0x" in text else text


def _mask_span(span: re.Match[str]) -> str:
    return _REPR_ADDRESS.sub("0xADDR", span.group())


def canonical_json(value: Any, *, indent: int | None = None) -> str:
    """JSON with sorted keys; compact unless ``indent`` is given."""
    separators = (",", ":") if indent is None else (",", ": ")
    return json.dumps(
        value, sort_keys=True, ensure_ascii=False, indent=indent, separators=separators
    )


@dataclass(frozen=True)
class _Rules:
    drop: frozenset[str]
    user_drop: frozenset[str]
    scrub_text: Callable[[str], str]
    sort_subagents: bool


def _rules(scrubbers: Iterable[Scrubber], sort_subagents: bool) -> _Rules:
    scrubbers = tuple(scrubbers)
    user_drop = frozenset(s.key for s in scrubbers if isinstance(s, DropKey))
    replaces = [s for s in scrubbers if isinstance(s, Replace)]

    def scrub_text(text: str) -> str:
        text = mask_addresses(text)
        for rule in replaces:
            text = rule.pattern.sub(rule.placeholder, text)
        return text

    return _Rules(VOLATILE_KEYS | user_drop, user_drop, scrub_text, sort_subagents)


def normalize(
    trajectory: Trajectory | Mapping[str, Any],
    *,
    sort_subagents: bool = True,
    scrubbers: Iterable[Scrubber] = (),
) -> Normalized:
    """Return the normalised form of a trajectory (see the module docstring).

    Args:
        trajectory: a :class:`~trajguard.atif.Trajectory` or its dict form (a golden file, or
            the output of an earlier ``normalize``).
        sort_subagents: sort embedded subagent trajectories by content.
        scrubbers: extra rules: :class:`DropKey` and :class:`Replace`.
    """
    data: Mapping[str, Any]
    if isinstance(trajectory, Trajectory):
        data = _model_dict(trajectory)
    elif isinstance(trajectory, Normalized):
        data = trajectory  # came out of the model (or was refused by it) already
    else:
        data = _through_model(trajectory)
    rules = _rules(scrubbers, sort_subagents)
    tree = _trajectory(data, rules)
    _rename_subagents(tree, prefix="sub_", scopes=())
    _rename_sessions(tree, {}, keep="session_id" not in rules.user_drop)
    return Normalized(tree)


def _model_dict(trajectory: Trajectory) -> dict[str, Any]:
    return {
        **trajectory.model_dump(mode="json", exclude_unset=True),
        "schema_version": trajectory.schema_version,
    }


def _through_model(data: Mapping[str, Any]) -> Mapping[str, Any]:
    """The dict as the ATIF model reads it (same coercions as loading), or as given."""
    try:
        out = _model_dict(Trajectory.model_validate(data))
    except (ValidationError, PydanticSerializationError, RecursionError):
        return data
    if "schema_version" not in data:
        del out["schema_version"]  # the model's default is not the document's
    return out


def _payload(value: Any, rules: _Rules) -> Any:
    """Copy user data: scrub strings, drop only the user's keys."""
    if isinstance(value, str):
        return rules.scrub_text(value)
    if isinstance(value, Mapping):
        return {k: _payload(v, rules) for k, v in value.items() if k not in rules.user_drop}
    if isinstance(value, list | tuple):
        return [_payload(v, rules) for v in value]
    return value


def _atif_object(obj: Mapping[str, Any], rules: _Rules) -> dict[str, Any]:
    """Copy an ATIF object: drop volatile and null fields, scrub the rest."""
    out: dict[str, Any] = {}
    for key, value in obj.items():
        if value is None or key in rules.drop:
            continue
        if key == "extra" and isinstance(value, Mapping):
            extra = _atif_object(value, rules)
            if extra:
                out[key] = extra
        elif key in _STRUCTURAL_CHILDREN and isinstance(value, Mapping):
            out[key] = _atif_object(value, rules)
        else:
            out[key] = _payload(value, rules)
    return out


def _trajectory(data: Mapping[str, Any], rules: _Rules) -> dict[str, Any]:
    original_id = data.get("trajectory_id")
    out = _atif_object(
        {k: v for k, v in data.items() if k not in ("steps", "subagent_trajectories")}, rules
    )
    counter = iter(range(1, 1 << 62))  # tool-call numbering restarts in every trajectory
    out["steps"] = [_step(step, rules, counter) for step in data.get("steps") or ()]
    children = [_trajectory(child, rules) for child in data.get("subagent_trajectories") or ()]
    if children:
        if rules.sort_subagents:
            # Children equal up to their ids tie on content. Break the tie by which of its own
            # subagents each child's refs point at, then by where this trajectory's steps first
            # refer to each child, so neither the order nor the names depend on arrival order.
            first_ref = _first_ref_positions(out["steps"])
            children.sort(
                key=lambda c: (
                    _sort_key(c),
                    _internal_refs(c, prefix="", scopes=()),
                    first_ref.get(c.get("\0id", ""), len(first_ref)),
                )
            )
        out["subagent_trajectories"] = children
    if original_id is not None:
        out["\0id"] = original_id  # kept until _rename_subagents resolves refs to it
    return out


def _step(step: Mapping[str, Any], rules: _Rules, counter: Iterator[int]) -> dict[str, Any]:
    out = _atif_object(
        {k: v for k, v in step.items() if k not in ("tool_calls", "observation")}, rules
    )
    new_ids: dict[str, str] = {}
    calls = step.get("tool_calls")
    if calls is not None:
        out["tool_calls"] = []
        for call in calls:
            new_id = f"call_{next(counter)}"
            if call.get("tool_call_id") is not None:
                new_ids.setdefault(call["tool_call_id"], new_id)
            renamed = _atif_object(call, rules)
            renamed["tool_call_id"] = new_id
            out["tool_calls"].append(renamed)
    observation = step.get("observation")
    if observation is not None:
        results = []
        for result in observation.get("results") or ():
            renamed = _atif_object(result, rules)
            source = result.get("source_call_id")
            if source is not None:
                renamed["source_call_id"] = new_ids.get(source, "call_unmatched")
            refs = result.get("subagent_trajectory_ref")
            if refs is not None:
                renamed["subagent_trajectory_ref"] = [
                    {**_atif_object(ref, rules), **_ref_target(ref), **_ref_session(ref)}
                    for ref in refs
                ]
            results.append(renamed)
        out["observation"] = {
            **_atif_object({k: v for k, v in observation.items() if k != "results"}, rules),
            "results": results,
        }
    return out


def _ref_target(ref: Mapping[str, Any]) -> dict[str, Any]:
    target = ref.get("trajectory_id")
    return {} if target is None else {"\0ref": target}


def _ref_session(ref: Mapping[str, Any]) -> dict[str, Any]:
    session = ref.get("session_id")
    return {} if session is None else {"\0sess": session}


def _first_ref_positions(steps: list[dict[str, Any]]) -> dict[str, int]:
    """Original trajectory id -> order of its first subagent ref in these steps."""
    positions: dict[str, int] = {}
    for step in steps:
        for result in (step.get("observation") or {}).get("results", ()):
            for ref in result.get("subagent_trajectory_ref") or ():
                target = ref.get("\0ref")
                if target is not None:
                    positions.setdefault(target, len(positions))
    return positions


def _internal_refs(
    node: Mapping[str, Any], *, prefix: str, scopes: tuple[dict[str, str], ...]
) -> list[str]:
    """The subtree's refs as positional names relative to ``node`` ("" if outside the subtree).

    Mirrors :func:`_rename_subagents` on an already sorted subtree, without renaming anything.
    """
    children = node.get("subagent_trajectories") or []
    names: dict[str, str] = {}
    for position, child in enumerate(children, start=1):
        if child.get("\0id") is not None:
            names.setdefault(child["\0id"], f"{prefix}{position}")
    visible = (names, *scopes)
    found: list[str] = []
    for step in node["steps"]:
        for result in (step.get("observation") or {}).get("results", ()):
            for ref in result.get("subagent_trajectory_ref") or ():
                target = ref.get("\0ref")
                found.append(next((s[target] for s in visible if target in s), ""))
    for position, child in enumerate(children, start=1):
        found.extend(_internal_refs(child, prefix=f"{prefix}{position}.", scopes=visible))
    return found


def _sort_key(child: Mapping[str, Any]) -> str:
    return json.dumps(_without_ids(child), sort_keys=True, ensure_ascii=False)


def _without_ids(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {
            k: _without_ids(v)
            for k, v in value.items()
            if k not in ("\0id", "\0ref", "\0sess", "trajectory_id")
        }
    if isinstance(value, list):
        return [_without_ids(v) for v in value]
    return value


def _rename_subagents(
    node: dict[str, Any], *, prefix: str, scopes: tuple[dict[str, str], ...]
) -> None:
    """Give subagents positional names and point every ref at them (nearest scope wins)."""
    node.pop("\0id", None)
    children = node.get("subagent_trajectories") or []
    names: dict[str, str] = {}
    for position, child in enumerate(children, start=1):
        new_name = f"{prefix}{position}"
        original = child.get("\0id")
        if original is not None:
            names.setdefault(original, new_name)
        child["trajectory_id"] = new_name
    visible = (names, *scopes)
    for step in node["steps"]:
        for result in (step.get("observation") or {}).get("results", ()):
            for ref in result.get("subagent_trajectory_ref") or ():
                target: str | None = ref.pop("\0ref", None)
                if target is not None:
                    ref["trajectory_id"] = next(
                        (scope[target] for scope in visible if target in scope), target
                    )
    for child in children:
        _rename_subagents(child, prefix=f"{child['trajectory_id']}.", scopes=visible)


def _rename_sessions(node: dict[str, Any], names: dict[str, str], *, keep: bool) -> None:
    """Name ref session ids by first appearance: root steps first, then subagents in order."""
    for step in node["steps"]:
        for result in (step.get("observation") or {}).get("results", ()):
            for ref in result.get("subagent_trajectory_ref") or ():
                session = ref.pop("\0sess", None)
                if session is not None and keep:
                    ref["session_id"] = names.setdefault(str(session), f"session_{len(names) + 1}")
    for child in node.get("subagent_trajectories") or ():
        _rename_sessions(child, names, keep=keep)
