"""Where a problem of a scenario made from a data row belongs: the suite, or the row.

Every scenario of a ``scenarios_from`` entry is the entry's block filled with one row, so a
problem that every row's scenario has (``function: crew_agent:runn``, an unknown agent key) is
a mistake of the block: it is reported once, at the suite's line of that field, saying how many
rows it spoils. A problem only some rows have is theirs: it names each row's file and line (the
first :data:`~._sources.MAX_ROW_PROBLEMS` of them; the rest are counted).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping
from pathlib import Path

from trajguard.errors import SuiteError
from trajguard.suite._from_data import Key
from trajguard.suite._sources import MAX_ROW_PROBLEMS, Origin
from trajguard.suite._yaml_lines import LineMap, dotted, undotted

__all__ = ["place_row_problems"]


def place_row_problems(
    problems: list[SuiteError], origins: Mapping[int, Origin], path: Path, lines: LineMap
) -> list[SuiteError]:
    """``problems`` with those of scenarios made from rows placed: once at the suite's line
    when every row of the entry has it, else at each row of the data file."""
    if not origins:
        return problems
    placed: list[SuiteError] = []
    groups: dict[tuple[int, Key, str, str | None], list[Origin]] = defaultdict(list)
    for problem in problems:
        where = undotted(problem.path or "")
        index = where[1] if len(where) > 1 and where[0] == "scenarios" else None
        origin = origins.get(index) if isinstance(index, int) else None
        if origin is None:
            placed.append(problem)
            continue
        field = _entry_field(where[2:], origin)
        message = problem.message.removeprefix(f"scenario {origin.scenario!r}: ")
        groups[(origin.entry, field, message, problem.hint)].append(origin)
    made = Counter(origin.entry for origin in origins.values())
    for (entry, field, message, hint), found in groups.items():
        if len(found) == made[entry]:
            placed.append(_at_the_suite(entry, field, message, hint, found, path, lines))
        else:
            placed += _at_the_rows(field, message, hint, found)
    return placed


def _entry_field(field: Key, origin: Origin) -> Key:
    """A scenario's field as the entry's: its criteria are the entry's that parsed."""
    index = field[1] if len(field) > 1 and field[0] == "pass" else None
    if isinstance(index, int) and index < len(origin.criteria):
        return ("pass", origin.criteria[index], *field[2:])
    return field


def _at_the_suite(
    entry: int,
    field: Key,
    message: str,
    hint: str | None,
    found: list[Origin],
    path: Path,
    lines: LineMap,
) -> SuiteError:
    where = ("scenarios_from", entry, *field)
    data = found[0].row.file.name
    rows = f"all {len(found)} rows of {data}" if len(found) > 1 else f"the one row of {data}"
    return SuiteError(
        f"{message} (in {rows})",
        file=path,
        line=lines.line_of(where),
        path=dotted(where),
        hint=hint,
    )


def _at_the_rows(
    field: Key, message: str, hint: str | None, found: list[Origin]
) -> list[SuiteError]:
    placed = [
        SuiteError(
            f"{o.row.where()}: scenario {o.scenario!r}: {message}",
            file=o.row.file,
            line=o.row.line if o.row.file.suffix.lower() != ".parquet" else None,
            path=dotted(field) or None,
            hint=hint,
        )
        for o in found[:MAX_ROW_PROBLEMS]
    ]
    if len(found) > MAX_ROW_PROBLEMS:
        placed.append(
            SuiteError(
                f"and {len(found) - MAX_ROW_PROBLEMS} more rows with this problem: {message}",
                file=found[0].row.file,
                path=dotted(field) or None,
                hint=hint,
            )
        )
    return placed
