"""``scenarios_from:`` in a suite's YAML data, replaced by the scenarios its rows make.

:func:`expand_sources` runs before validation: the scenarios it adds are validated and checked
as hand-written ones are. A mistake of the entry itself — an unknown key, a template naming no
column of the file, a malformed template, a pass criterion that does not parse — is reported
here once, at the suite's line, and the field is left out of the rows' scenarios; what is left
of them is still checked (:mod:`._row_problems` reports their problems once per entry, or per
row when only some rows have it).
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, NamedTuple

from trajguard.errors import SuiteError
from trajguard.suite._criteria import parse_criterion
from trajguard.suite._error_messages import CRITERIA_HINT
from trajguard.suite._from_data import (
    ENTRY_KEYS,
    TEMPLATE_HINT,
    DataRow,
    Key,
    read_rows,
    scenario_of,
    template_fields,
)
from trajguard.suite._yaml_lines import LineMap, dotted

__all__ = ["MAX_ROW_PROBLEMS", "Origin", "expand_sources"]

MAX_ROW_PROBLEMS = 20
"""Row problems reported per data file (the rest are counted)."""
_REQUIRED = ("path", "id", "input", "agent")
_KEYS_HINT = "the keys of a scenarios_from entry: " + ", ".join(ENTRY_KEYS)


class Origin(NamedTuple):
    """Where a scenario made from data comes from."""

    entry: int
    """The position of its ``scenarios_from`` entry."""
    row: DataRow
    scenario: str
    """The scenario's id."""
    criteria: tuple[int, ...]
    """The entry's index of each of the scenario's pass criteria (those reported already at the
    entry are left out of the scenario)."""


Report = Callable[[Key, str, str], None]


def _confined(base_dir: Path, relative: str, data: Mapping[str, Any]) -> Path | str:
    """The file's path, or why it may not be read (outside the suite's tree)."""
    extra = data.get("prompt_dirs")
    roots = [base_dir, *(base_dir / str(d) for d in (extra if isinstance(extra, list) else ()))]
    path = base_dir / relative
    if any(path.resolve().is_relative_to(root.resolve()) for root in roots):
        return path
    return f"scenarios_from file {relative!r} is outside the suite's directory {base_dir}"


def expand_sources(
    data: Mapping[str, Any], path: Path, lines: LineMap
) -> tuple[dict[str, Any], dict[int, Origin], list[SuiteError]]:
    """The suite data with every ``scenarios_from`` row added to ``scenarios``; which scenario
    index came from which entry and row; the problems met (each entry's keys, templates and
    criteria, its file, and the rows that do not fill the templates)."""
    out = {k: v for k, v in data.items() if k != "scenarios_from"}
    entries = data.get("scenarios_from")
    if entries is None:
        return out, {}, []
    problems: list[SuiteError] = []

    def problem(where: Key, message: str, hint: str) -> None:
        problems.append(
            SuiteError(message, file=path, line=lines.line_of(where), path=dotted(where), hint=hint)
        )

    if not isinstance(entries, list):
        problem(("scenarios_from",), "scenarios_from is a list of files", "- path: data.jsonl")
        return out, {}, problems
    written = data.get("scenarios")
    scenarios = list(written) if isinstance(written, list) else []
    origins: dict[int, Origin] = {}
    base_dir = path.resolve().parent
    for index, entry in enumerate(entries):
        where: Key = ("scenarios_from", index)
        if not isinstance(entry, Mapping):
            problem(where, "a scenarios_from entry is a mapping", "give it path, id, input, agent")
            continue
        for key in entry:
            if key not in ENTRY_KEYS:
                close = difflib.get_close_matches(str(key), ENTRY_KEYS, n=1)
                guess = f"; did you mean {close[0]!r}?" if close else ""
                problem((*where, key), f"unknown field {key!r}{guess}", _KEYS_HINT)
        missing = [key for key in _REQUIRED if key not in entry]
        for key in missing:
            problem(where, f"required field {key!r} is missing", f"add {key}: ...")
        broken = _check_criteria(entry, where, problem)
        if "path" in missing:
            continue
        found = _confined(base_dir, str(entry["path"]), data)
        if isinstance(found, str):
            hint = "keep data beside the suite, or name its directory in the suite's prompt_dirs"
            problem((*where, "path"), found, hint)
            continue
        try:
            rows = read_rows(found, str(entry["path"]))
        except SuiteError as exc:
            problems.append(exc)
            continue
        broken |= _check_templates(entry, rows, where, problem)
        if not missing:
            problems += _add_rows(entry, index, rows, broken, scenarios, origins)
    out["scenarios"] = scenarios
    return out, origins, problems


def _check_criteria(entry: Mapping[str, Any], where: Key, problem: Report) -> set[Key]:
    """The entry's pass criteria that do not parse as written (their shape and kind do not
    depend on a row), each reported once."""
    criteria = entry.get("pass")
    broken: set[Key] = set()
    for index, raw in enumerate(criteria if isinstance(criteria, list) else ()):
        try:
            parse_criterion(raw)
        except ValueError as exc:
            problem((*where, "pass", index), str(exc), CRITERIA_HINT)
            broken.add(("pass", index))
    return broken


def _templates(entry: Mapping[str, Any]) -> list[tuple[Key, str]]:
    """Every template of an entry, with where it is (id, input, description, criteria)."""
    found: list[tuple[Key, str]] = []
    if "id" in entry:
        ident = str(entry["id"])
        found.append((("id",), ident if "{" in ident else "{" + ident + "}"))
    found += [((key,), str(entry[key])) for key in ("input", "description") if key in entry]
    criteria = entry.get("pass")
    stack: list[tuple[Key, Any]] = [
        (("pass", i), c) for i, c in enumerate(criteria if isinstance(criteria, list) else ())
    ]
    while stack:
        key, value = stack.pop()
        if isinstance(value, str):
            found.append((key, value))
        elif isinstance(value, Mapping):
            stack += [((*key, k), v) for k, v in value.items()]
        elif isinstance(value, list):
            stack += [((*key, i), v) for i, v in enumerate(value)]
    return sorted(found, key=lambda item: str(item[0]))


def _check_templates(
    entry: Mapping[str, Any], rows: list[DataRow], where: Key, problem: Report
) -> set[Key]:
    """The entry's templates that are malformed or name a column no row has (and a tags column
    no row has), each reported once at the suite's line with the columns there are; the
    fields they are in. A column only some rows lack is those rows' problem."""
    if not rows:
        return set()
    shown = str(entry.get("path"))
    columns = sorted({name for row in rows for name in row.values})
    known = (
        f"the columns of {shown}: {', '.join(columns) or 'none'} (and {{_row}}, the row's number)"
    )
    broken: set[Key] = set()
    for key, template in _templates(entry):
        field = key[:2] if key[0] == "pass" else key[:1]
        try:
            names = template_fields(template)
        except ValueError as exc:
            problem((*where, *key), str(exc), TEMPLATE_HINT)
            broken.add(field)
            continue
        for name in dict.fromkeys(n for n in names if n != "_row" and n not in columns):
            problem((*where, *key), _no_column(f"{{{name}}}", name, columns, shown), known)
            broken.add(field)
    tags = entry.get("tags")
    if tags is not None and str(tags) not in columns:
        problem((*where, "tags"), _no_column(f"tags {tags!r}", str(tags), columns, shown), known)
        broken.add(("tags",))
    return broken


def _no_column(what: str, name: str, columns: list[str], shown: str) -> str:
    close = difflib.get_close_matches(name, columns, n=1)
    guess = f"; did you mean {close[0]!r}?" if close else ""
    return f"{what} names no column of {shown}{guess}"


def _add_rows(
    entry: Mapping[str, Any],
    index: int,
    rows: list[DataRow],
    broken: set[Key],
    scenarios: list[Any],
    origins: dict[int, Origin],
) -> list[SuiteError]:
    criteria = entry.get("pass")
    kept = tuple(
        i
        for i in range(len(criteria) if isinstance(criteria, list) else 0)
        if ("pass", i) not in broken
    )
    problems: list[SuiteError] = []
    failed = 0
    for row in rows:
        try:
            scenario = scenario_of(entry, row, broken, index)
        except SuiteError as exc:
            failed += 1
            if failed <= MAX_ROW_PROBLEMS:
                problems.append(exc)
            continue
        origins[len(scenarios)] = Origin(index, row, str(scenario["id"]), kept)
        scenarios.append(scenario)
    if failed > MAX_ROW_PROBLEMS:
        problems.append(
            SuiteError(
                f"and {failed - MAX_ROW_PROBLEMS} more rows with problems",
                file=rows[0].file,
                hint="fix the rows above, then validate again",
            )
        )
    return problems
