"""Scenarios from data: ``scenarios_from:`` entries expanded into scenarios, one per row.

An entry names a JSONL, CSV or Parquet file (relative to the suite, inside its tree or a
``prompt_dirs`` directory), the row's id (a column, or a template), the input (a template),
pass criteria (templated: every string in them), a column of tags, and what every scenario of
the file shares (agent, description, runs, max_steps, tolerances, variants, faults)::

    scenarios_from:
      - path: data/capitals.jsonl
        id: "capital-{country}"        # a template; a bare name is a column
        input: "What is the capital of {country}?"
        pass:
          - final_output_contains: "{expected}"
        tags: region                   # a column: a list, or a comma-separated string
        agent: {kind: builtin, tools: [trajguard.examples.demo_tools:capital_lookup]}

Templates are safe: ``{column}`` is replaced by the row's value, ``{{`` and ``}}`` are literal
braces, and nothing else is allowed (no ``{a.b}``, ``{a[0]}``, ``{a!r}`` or ``{a:>5}``); a
value is inserted as it is, never read as a template again (a ``{`` in the data stays a ``{``).
``{_row}`` is the row's number. Values become text by one rule (:func:`as_text`). A missing
column, an empty (null) value, an unreadable row: an error naming the file, the row (its 1-based
line in JSONL and CSV files, its 1-based number in Parquet ones) and the column.
"""

from __future__ import annotations

import csv
import json
import math
import string
from collections.abc import Collection, Mapping
from itertools import islice
from pathlib import Path
from typing import Any

from trajguard._json import (
    MAX_SOURCE_BYTES,
    check_regular_file,
    env_limit,
    file_limit,
    loads_bounded,
)
from trajguard.errors import SuiteError
from trajguard.suite._yaml_lines import Key

__all__ = [
    "ENTRY_KEYS",
    "MAX_DATA_ROWS",
    "ROWS_ENV",
    "TEMPLATE_HINT",
    "DataRow",
    "Key",
    "as_text",
    "fill",
    "read_rows",
    "scenario_of",
    "template_fields",
]

ENTRY_KEYS = (
    "path",
    "id",
    "input",
    "pass",
    "tags",
    "agent",
    "description",
    "runs",
    "max_steps",
    "tolerances",
    "variants",
    "faults",
)
"""The keys of a ``scenarios_from`` entry."""
_SHARED = ("agent", "runs", "max_steps", "tolerances", "variants", "faults")
_FORMATTER = string.Formatter()


class DataRow:
    """One row of a data file: its values, and where it is (file, 1-based line or number)."""

    __slots__ = ("file", "line", "values")

    def __init__(self, file: Path, line: int, values: Mapping[str, Any]) -> None:
        self.file, self.line, self.values = file, line, values

    def where(self) -> str:
        kind = "row" if self.file.suffix.lower() == ".parquet" else "line"
        return f"{kind} {self.line}"


def as_text(value: Any) -> str:
    """A value as template text: a string as it is; ``true``/``false``; an integer in decimal;
    a float that is a whole number without ``.0`` (CSV and Parquet columns with gaps hold
    integers as floats), other floats as Python writes them (shortest round trip); a list or
    mapping as compact JSON; anything else (a date) as ``str``."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else repr(value)
    if isinstance(value, list | tuple | dict):
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    return str(value)


def _empty(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def template_fields(template: str) -> list[str]:
    """The column names a template reads, in order (``_row`` included).

    Raises:
        ValueError: the template is malformed, or a field is not a plain column name; the
            message says which.
    """
    names: list[str] = []
    try:
        parts = list(_FORMATTER.parse(template))
    except ValueError as exc:
        raise ValueError(f"template {template!r} is malformed: {exc}") from None
    for _, name, spec, conversion in parts:
        if name is None:
            continue
        if not name or any(c in name for c in ".[]") or spec or conversion:
            written = name + ("!" + conversion if conversion else "") + (":" + spec if spec else "")
            raise ValueError(f"template {template!r} has {{{written}}}, which is not a column name")
        names.append(name)
    return names


TEMPLATE_HINT = (
    "write {column} for a column's value and {{ or }} for a literal brace; a template names "
    "columns only: no attributes, indices, conversions or format specs"
)


def fill(template: str, row: DataRow, field: str) -> str:
    """``template`` with each ``{column}`` replaced by the row's value (see the module doc).

    Raises:
        SuiteError: a malformed template, a field that is not a plain column name, a column the
            row lacks, or an empty value.
    """
    try:
        template_fields(template)
    except ValueError as exc:
        raise SuiteError(f"{field}: {exc}", file=row.file, hint=TEMPLATE_HINT) from None
    out: list[str] = []
    for literal, name, _, _ in _FORMATTER.parse(template):
        out.append(literal)
        if name is not None:
            out.append(_value(name, row, field))
    return "".join(out)


def _value(name: str, row: DataRow, field: str) -> str:
    if name == "_row":
        return str(row.line)
    if name not in row.values:
        known = ", ".join(sorted(row.values)) or "none"
        raise SuiteError(
            f"{field}: {row.where()} has no column {name!r}",
            file=row.file,
            line=row.line if row.file.suffix.lower() != ".parquet" else None,
            path=name,
            hint=f"its columns: {known}",
        )
    value = row.values[name]
    if _empty(value):
        raise SuiteError(
            f"{field}: column {name!r} is empty in {row.where()}",
            file=row.file,
            line=row.line if row.file.suffix.lower() != ".parquet" else None,
            path=name,
            hint="give the row a value, or leave the row out",
        )
    return as_text(value)


def _fill_all(value: Any, row: DataRow, field: str) -> Any:
    """Every string inside ``value`` (criteria: mappings, lists) templated."""
    if isinstance(value, str):
        return fill(value, row, field)
    if isinstance(value, Mapping):
        return {key: _fill_all(item, row, field) for key, item in value.items()}
    if isinstance(value, list):
        return [_fill_all(item, row, field) for item in value]
    return value


def _tags(value: Any, row: DataRow, column: str) -> list[str]:
    if column not in row.values:
        _value(column, row, "tags")  # raises: no such column
    if _empty(value):
        return []
    items = value if isinstance(value, list | tuple) else as_text(value).split(",")
    return [tag for tag in (as_text(item).strip() for item in items) if tag]


def scenario_of(
    entry: Mapping[str, Any], row: DataRow, broken: Collection[Key] = (), number: int = 0
) -> dict[str, Any]:
    """The raw scenario (as a hand-written one would be written) of one row.

    ``broken`` names the entry's fields whose mistake is reported already, once, at the
    suite's line: they are left out of the scenario instead of failing every row again (an
    input is kept as written; an id becomes ``scenarios_from-<number>-row-<line>``, ``number``
    being the entry's position), so that the rest of the scenario is still checked.

    Raises:
        SuiteError: a template that does not fill, naming the file, row and column.
    """
    ident = str(entry.get("id", ""))
    id_template = ident if "{" in ident else "{" + ident + "}"

    def text(field: str, template: str) -> str:
        if (field,) in broken:
            return f"scenarios_from-{number}-row-{row.line}" if field == "id" else template
        return fill(template, row, field)

    scenario: dict[str, Any] = {
        "id": text("id", id_template),
        "input": text("input", str(entry.get("input", ""))),
        **{key: entry[key] for key in _SHARED if key in entry},
        "source_row": {k: _json_safe(v) for k, v in row.values.items()},
    }
    if "description" in entry and ("description",) not in broken:
        scenario["description"] = fill(str(entry["description"]), row, "description")
    if isinstance(entry.get("pass"), list):
        scenario["pass"] = [
            _fill_all(criterion, row, "pass")
            for index, criterion in enumerate(entry["pass"])
            if ("pass", index) not in broken
        ]
    elif "pass" in entry:
        scenario["pass"] = entry["pass"]  # not a list: pydantic says so, once per row
    if entry.get("tags") is not None and ("tags",) not in broken:
        column = str(entry["tags"])
        scenario["tags"] = _tags(row.values.get(column), row, column)
    return scenario


def _json_safe(value: Any) -> Any:
    if value is None or isinstance(value, str | bool | int):
        return value
    if isinstance(value, float):
        return None if math.isnan(value) else value
    if isinstance(value, list | tuple):
        return [_json_safe(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): _json_safe(v) for k, v in value.items()}
    return str(value)


ROWS_ENV = "TRAJGUARD_MAX_DATA_ROWS"
"""Set to a whole number to replace :data:`MAX_DATA_ROWS`."""

MAX_DATA_ROWS = 20_000
"""Most rows a ``scenarios_from`` file may hold (each becomes a scenario, run ``runs`` times):
a file with more is refused before it is read to its end."""


def _too_many(path: Path, shown: str, limit: int) -> SuiteError:
    return SuiteError(
        f"scenarios_from file {shown!r} holds more than {limit:,} rows (trajguard's limit; "
        f"set ${ROWS_ENV} to raise it)",
        file=path,
        hint="split the data into several suites, or sample it (each row is a scenario)",
    )


def read_rows(path: Path, shown: str) -> list[DataRow]:
    """Every row of a JSONL, CSV or Parquet file (by its suffix), read within the limits: a
    regular file of at most :data:`~trajguard._json.MAX_SOURCE_BYTES`, :data:`MAX_DATA_ROWS`
    rows, JSON nested at most :data:`~trajguard._json.MAX_JSON_DEPTH` levels. A UTF-8 byte
    order mark (Excel's "CSV UTF-8") is read as none.

    Raises:
        SuiteError: the file is missing, unreadable, not a regular file, over a limit, of
            another kind, or a row is not an object.
    """
    suffix = path.suffix.lower()
    limit = env_limit(ROWS_ENV, MAX_DATA_ROWS)
    try:
        if suffix in (".jsonl", ".ndjson", ".csv", ".parquet"):
            check_regular_file(path, max_bytes=file_limit(MAX_SOURCE_BYTES))
        if suffix in (".jsonl", ".ndjson"):
            rows = _jsonl(path, limit)
        elif suffix == ".csv":
            with path.open(encoding="utf-8-sig", newline="") as handle:
                reader = csv.DictReader(handle)
                rows = [DataRow(path, reader.line_num, dict(r)) for r in islice(reader, limit + 1)]
        elif suffix == ".parquet":
            rows = _parquet(path, shown, limit)
        else:
            raise SuiteError(
                f"scenarios_from file {shown!r} is not .jsonl, .csv or .parquet",
                file=path,
                hint="name a JSON Lines (.jsonl), CSV (.csv, with a header row) or Parquet file",
            )
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise SuiteError(
            f"cannot read scenarios_from file {shown!r}: {reason.replace(str(path), 'it')}",
            file=path,
            hint="name a regular file (a path relative to the suite file)"
            if "regular file" in reason
            else "the path is relative to the suite file",
        ) from None
    if len(rows) > limit:
        raise _too_many(path, shown, limit)
    return rows


def _jsonl(path: Path, limit: int) -> list[DataRow]:
    rows: list[DataRow] = []
    with path.open(encoding="utf-8-sig") as handle:
        for number, text in enumerate(handle, start=1):
            if not text.strip():
                continue
            if len(rows) > limit:
                break
            try:
                values = loads_bounded(text)
            except json.JSONDecodeError as exc:
                raise SuiteError(
                    f"line {number} is not JSON: {exc.msg} (column {exc.colno})",
                    file=path,
                    line=number,
                    hint="a JSON Lines file holds one JSON object per line",
                ) from None
            except ValueError as exc:  # nested too deep, or a number too long to convert
                raise SuiteError(
                    f"line {number} is not readable JSON: {exc}",
                    file=path,
                    line=number,
                    hint="a row holds a scenario's fields: flat values, a few levels at most",
                ) from None
            if not isinstance(values, dict):
                raise SuiteError(
                    f"line {number} is a JSON {type(values).__name__}, not an object",
                    file=path,
                    line=number,
                    hint='each line is one row: {"column": value, ...}',
                )
            rows.append(DataRow(path, number, values))
    return rows


def _parquet(path: Path, shown: str, limit: int) -> list[DataRow]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        if pq.read_metadata(path).num_rows > limit:  # refused before any row is read
            raise _too_many(path, shown, limit)
        table = pq.read_table(path)
    except (pa.ArrowInvalid, pa.ArrowIOError) as exc:
        raise SuiteError(
            f"cannot read Parquet file: {exc}", file=path, hint="is it a Parquet file?"
        ) from None
    return [DataRow(path, i, values) for i, values in enumerate(table.to_pylist(), start=1)]
