"""Pydantic's validation errors of a suite file, explained: file, line, field, "did you mean".

Every error pydantic found becomes a problem of its own, with its own line and hint."""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from trajguard.errors import SuiteError
from trajguard.suite._agent_kinds import IMPORT_PATH, BuiltinAgent, CallableAgent, CommandAgent
from trajguard.suite._call_sequence import CallSpec
from trajguard.suite._criteria import CRITERION_TYPES, parse_criterion
from trajguard.suite._floors import Floor
from trajguard.suite._models import (
    Defaults,
    Scenario,
    Suite,
    Variant,
)
from trajguard.suite._yaml_lines import LineMap, dotted, undotted

__all__ = [
    "CRITERIA_HINT",
    "FIELDS_HINT",
    "data_loc",
    "explain_validation_error",
    "unknown_key_message",
]

CRITERIA_HINT = (
    "docs/reference/suite.md#pass-criteria lists every criterion and its fields "
    "(`trajguard docs suite` prints it)"
)
FIELDS_HINT = "docs/reference/suite.md#fields lists every field (`trajguard docs suite` prints it)"


# The keys each level of a suite file allows (keep in step with the models above).
_ALLOWED: dict[str, list[str]] = {
    "suite": [*(f for f in Suite.model_fields if f != "path"), "scenarios_from"],
    "defaults": list(Defaults.model_fields),
    "scenario": [
        f.alias or name for name, f in Scenario.model_fields.items() if name != "source_row"
    ],
    "variant": list(Variant.model_fields),
}


def _criterion_fields(data: Any, parent: tuple[int | str, ...]) -> list[str]:
    try:
        raw = data["scenarios"][parent[1]]["pass"][parent[3]]
        kind = parse_criterion(raw)["kind"]
    except (KeyError, IndexError, TypeError, ValueError):
        return []
    adapter_fields = {c.model_fields["kind"].default: c for c in CRITERION_TYPES}
    return [f for f in adapter_fields[kind].model_fields if f != "kind"]


def _agent_fields(data: Any, parent: tuple[int | str, ...]) -> list[str]:
    try:
        kind = data["scenarios"][parent[1]]["agent"]["kind"]
    except (KeyError, IndexError, TypeError):
        return []
    kinds: dict[str, type[BaseModel]] = {
        "builtin": BuiltinAgent,
        "callable": CallableAgent,
        "command": CommandAgent,
    }
    return list(kinds[kind].model_fields) if kind in kinds else []


def unknown_key_message(loc: tuple[int | str, ...], data: Any) -> str:
    """The error for a key at ``loc`` that no model there allows, with a "did you mean"."""
    key, known = str(loc[-1]), _known_keys(loc[:-1], data)
    close = difflib.get_close_matches(key, known, n=1)
    suggestion = f"; did you mean {close[0]!r}?" if close else ""
    return f"unknown field {key!r}{suggestion}" + (
        f" (allowed: {', '.join(known)})" if known and not close else ""
    )


def _meant(loc: tuple[int | str, ...], data: Any) -> tuple[int | str, ...] | None:
    """Where the key an unknown key at ``loc`` is a typo of would be."""
    close = difflib.get_close_matches(str(loc[-1]), _known_keys(loc[:-1], data), n=1)
    return (*loc[:-1], close[0]) if close else None


def _known_keys(parent: tuple[int | str, ...], data: Any) -> list[str]:
    if not parent:
        known = _ALLOWED["suite"]
    elif parent == ("defaults",):
        known = _ALLOWED["defaults"]
    elif len(parent) == 2 and parent[0] == "scenarios":
        known = _ALLOWED["scenario"]
    elif (len(parent) >= 3 and parent[2] == "variants") or (
        len(parent) == 2 and parent[0] == "variants"
    ):
        known = _ALLOWED["variant"]
    elif parent[-1:] == ("floor",):
        known = list(Floor.model_fields)
    elif len(parent) == 5 and parent[2] == "pass":
        known = _criterion_fields(data, parent)
    elif len(parent) == 7 and parent[2] == "pass" and parent[5] == "calls":
        known = list(CallSpec.model_fields)  # a tool_sequence's expected call
    elif len(parent) == 3 and parent[0] == "scenarios" and parent[2] == "agent":
        known = _agent_fields(data, parent)
    else:
        known = []
    return known


def explain_validation_error(
    exc: ValidationError, path: Path, lines: LineMap, data: Any
) -> list[SuiteError]:
    """A :class:`SuiteError` for every problem of a pydantic error, each with its own line."""
    problems: list[tuple[SuiteError, bool]] = []
    renamed: set[tuple[int | str, ...]] = set()  # a missing field an unknown key is a typo of
    for err in exc.errors(include_url=False):
        loc = data_loc(err)
        message = err["msg"].removeprefix("Value error, ")
        if err["type"] == "extra_forbidden":
            message = unknown_key_message(loc, data)
            renamed.add(_meant(loc, data) or ())
        elif err["type"] == "string_pattern_mismatch":
            message = _pattern_message(err["ctx"].get("pattern", ""), err.get("input"))
        elif err["type"] == "missing":
            message = f"required field {loc[-1]!r} is missing"
        got = err.get("input")
        quiet = ("missing", "extra_forbidden", "string_pattern_mismatch")
        if err["type"] not in quiet and not isinstance(got, dict | list):
            message += f" (got {got!r:.60})"
        scenario = _scenario_id(data, loc)
        prefix = f"scenario {scenario!r}: " if scenario else ""
        problem = SuiteError(
            f"{prefix}{message}",
            file=path,
            line=lines.line_of(loc),
            path=dotted(loc) or None,
            hint=_hint(err["type"], message, loc),
        )
        problems.append((problem, err["type"] == "missing"))
    # ``inptu: hi`` is one mistake, not also a missing ``input``
    return [p for p, missing in problems if not (missing and undotted(p.path or "") in renamed)]


def data_loc(err: Any) -> tuple[int | str, ...]:
    """A pydantic error's location as keys and indices of the suite's YAML data."""
    loc = tuple(p for p in err["loc"] if not _is_union_label(p))
    loc = tuple("pass" if p == "pass_criteria" else p for p in loc)
    if err["type"] == "union_tag_invalid":
        loc = (*loc, "kind")
    return loc


def _hint(kind: str, message: str, loc: tuple[int | str, ...]) -> str:
    if "did you mean" in message:
        return "rename the key as suggested"
    where = CRITERIA_HINT if "pass" in loc[2:3] else FIELDS_HINT
    if kind == "extra_forbidden":
        return f"remove the key, or move it where it belongs: {where}"
    if kind == "missing":
        return f"add the field: {where}"
    return where


_UNION_TAGS = frozenset({"builtin", "callable", "command", "[key]"})


def _pattern_message(pattern: str, got: Any) -> str:
    if pattern == IMPORT_PATH:
        return f"{got!r} is not an import path; write it as module.submodule:function"
    return f"{got!r} is not a valid id; use letters, digits, '_', '.' and '-'"


def _is_union_label(part: int | str) -> bool:
    # pydantic puts the discriminator value (e.g. "builtin") into error locations; the YAML
    # document has no such level.
    return isinstance(part, str) and part in _UNION_TAGS


def _scenario_id(data: Any, loc: tuple[int | str, ...]) -> str | None:
    if len(loc) >= 2 and loc[0] == "scenarios" and isinstance(loc[1], int):
        scenarios = data.get("scenarios") if isinstance(data, Mapping) else None
        if isinstance(scenarios, list) and loc[1] < len(scenarios):
            item = scenarios[loc[1]]
            if isinstance(item, Mapping) and isinstance(item.get("id"), str):
                return str(item["id"])
    return None
