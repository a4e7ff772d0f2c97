"""``scenarios_from:`` in a suite's YAML data, replaced by the scenarios its rows make.

:func:`expand_sources` runs before validation: the scenarios it adds are validated and checked
as hand-written ones are, and :func:`relocate` points a problem of such a scenario at its data
file and row instead of the suite file.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from trajguard.errors import SuiteError
from trajguard.suite._from_data import ENTRY_KEYS, DataRow, read_rows, scenario_of
from trajguard.suite._yaml_lines import LineMap, dotted

__all__ = ["MAX_ROW_PROBLEMS", "expand_sources", "relocate"]

MAX_ROW_PROBLEMS = 20
"""Row problems reported per data file (the rest are counted)."""
_REQUIRED = ("path", "id", "input", "agent")
_KEYS_HINT = "the keys of a scenarios_from entry: " + ", ".join(ENTRY_KEYS)


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
) -> tuple[dict[str, Any], dict[int, DataRow], list[SuiteError]]:
    """The suite data with every ``scenarios_from`` row added to ``scenarios``; which scenario
    index came from which row; the problems met (each entry's file, keys and rows)."""
    out = {k: v for k, v in data.items() if k != "scenarios_from"}
    entries = data.get("scenarios_from")
    if entries is None:
        return out, {}, []
    problems: list[SuiteError] = []

    def problem(where: tuple[int | str, ...], message: str, hint: str) -> None:
        problems.append(
            SuiteError(message, file=path, line=lines.line_of(where), path=dotted(where), hint=hint)
        )

    if not isinstance(entries, list):
        problem(("scenarios_from",), "scenarios_from is a list of files", "- path: data.jsonl")
        return out, {}, problems
    written = data.get("scenarios")
    scenarios = list(written) if isinstance(written, list) else []
    origins: dict[int, DataRow] = {}
    base_dir = path.resolve().parent
    for index, entry in enumerate(entries):
        where: tuple[int | str, ...] = ("scenarios_from", index)
        if not isinstance(entry, Mapping):
            problem(where, "a scenarios_from entry is a mapping", "give it path, id, input, agent")
            continue
        bad = False
        for key in entry:
            if key not in ENTRY_KEYS:
                close = difflib.get_close_matches(str(key), ENTRY_KEYS, n=1)
                guess = f"; did you mean {close[0]!r}?" if close else ""
                problem((*where, key), f"unknown field {key!r}{guess}", _KEYS_HINT)
                bad = True
        for key in _REQUIRED:
            if key not in entry:
                problem(where, f"required field {key!r} is missing", f"add {key}: ...")
                bad = True
        if bad:
            continue
        found = _confined(base_dir, str(entry["path"]), data)
        if isinstance(found, str):
            problem(
                (*where, "path"),
                found,
                "keep data beside the suite, or name its directory "
                "in the suite's prompt_dirs: [...]",
            )
            continue
        try:
            rows = read_rows(found, str(entry["path"]))
        except SuiteError as exc:
            problems.append(exc)
            continue
        problems += _add_rows(entry, rows, scenarios, origins)
    out["scenarios"] = scenarios
    return out, origins, problems


def _add_rows(
    entry: Mapping[str, Any],
    rows: list[DataRow],
    scenarios: list[Any],
    origins: dict[int, DataRow],
) -> list[SuiteError]:
    problems: list[SuiteError] = []
    failed = 0
    for row in rows:
        try:
            scenario = scenario_of(entry, row)
        except SuiteError as exc:
            failed += 1
            if failed <= MAX_ROW_PROBLEMS:
                problems.append(exc)
            continue
        origins[len(scenarios)] = row
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


def relocate(problem: SuiteError, origins: Mapping[int, DataRow], index: int | None) -> SuiteError:
    """A problem of a scenario made from a row, pointed at that row of its data file."""
    row = origins.get(index) if index is not None else None
    if row is None:
        return problem
    field = (problem.path or "").partition("]")[2].lstrip(".") or None
    return SuiteError(
        f"{row.where()}: {problem.message}",
        file=row.file,
        line=row.line if row.file.suffix.lower() != ".parquet" else None,
        path=field,
        hint=problem.hint,
    )
