"""Where a problem of a scenario made from a data row belongs: the suite, or the row.

Every scenario of a ``scenarios_from`` entry is the entry's block filled with one row, so a
problem that every row's scenario has (``function: crew_agent:runn``, an unknown agent key) is
a mistake of the block: it is reported once, at the suite's line of that field, saying how many
rows it spoils. A problem only some rows have is theirs: it names each row's file and line (the
first :data:`~._sources.MAX_ROW_PROBLEMS` of them; the rest are counted).
"""

from __future__ import annotations

import re
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
    when every row of the entry has it (the value a row gave aside), else at each row of the
    data file."""
    if not origins:
        return problems
    placed: list[SuiteError] = []
    groups: dict[tuple[int, Key, str, str | None], list[tuple[Origin, str]]] = defaultdict(list)
    for problem in problems:
        where = undotted(problem.path or "")
        index = where[1] if len(where) > 1 and where[0] == "scenarios" else None
        origin = origins.get(index) if isinstance(index, int) else None
        if origin is None:
            placed.append(problem)
            continue
        field = _entry_field(where[2:], origin)
        message = problem.message.removeprefix(f"scenario {origin.scenario!r}: ")
        kind = _GOT.sub("", message)
        groups[(origin.entry, field, kind, problem.hint)].append((origin, message))
    made = Counter(origin.entry for origin in origins.values())
    for (entry, field, kind, hint), found in groups.items():
        if len(found) == made[entry]:
            placed.append(_at_the_suite(entry, field, kind, hint, found, path, lines))
        else:
            placed += _at_the_rows(field, hint, found)
    return placed


_GOT = re.compile(r" \(got .*\)$", re.S)
"""The value a row gave, which :mod:`._error_messages` adds to a message."""


def _entry_field(field: Key, origin: Origin) -> Key:
    """A scenario's field as the entry's: its criteria are the entry's that parsed."""
    index = field[1] if len(field) > 1 and field[0] == "pass" else None
    if isinstance(index, int) and index < len(origin.criteria):
        return ("pass", origin.criteria[index], *field[2:])
    return field


def _at_the_suite(
    entry: int,
    field: Key,
    kind: str,
    hint: str | None,
    found: list[tuple[Origin, str]],
    path: Path,
    lines: LineMap,
) -> SuiteError:
    where = ("scenarios_from", entry, *field)
    first, message = found[0]
    data = first.row.file.name
    rows = f"all {len(found)} rows of {data}" if len(found) > 1 else f"the one row of {data}"
    got = _GOT.search(message)
    example = f"; {first.row.where()}: {got.group(0)[2:-1]}" if got else ""
    return SuiteError(
        f"{kind} (in {rows}{example})",
        file=path,
        line=lines.line_of(where),
        path=dotted(where),
        hint=hint,
    )


def _at_the_rows(field: Key, hint: str | None, found: list[tuple[Origin, str]]) -> list[SuiteError]:
    placed = [
        SuiteError(
            f"{o.row.where()}: scenario {o.scenario!r}: {message}",
            file=o.row.file,
            line=o.row.line if o.row.file.suffix.lower() != ".parquet" else None,
            path=dotted(field) or None,
            hint=hint,
        )
        for o, message in found[:MAX_ROW_PROBLEMS]
    ]
    if len(found) > MAX_ROW_PROBLEMS:
        placed.append(
            SuiteError(
                f"and {len(found) - MAX_ROW_PROBLEMS} more rows with this problem: "
                + _GOT.sub("", found[0][1]),
                file=found[0][0].row.file,
                path=dotted(field) or None,
                hint=hint,
            )
        )
    return placed
