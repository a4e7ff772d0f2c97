"""``scenarios_from`` data files read within the limits (issue 41): a FIFO refused (it would
block `validate`), a row 200,000 levels deep refused without a traceback, a file over the row
limit refused before it is read to its end, and a UTF-8 byte order mark (Excel's "CSV UTF-8")
read as none."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from trajguard.errors import SuiteError
from trajguard.suite import load_suite

ENTRY = """\
name: data
scenarios_from:
  - path: {path}
    id: "q-{{id}}"
    input: "{{q}}"
    agent: {{kind: builtin}}
"""


def _suite(tmp_path: Path, data: str) -> Path:
    path = tmp_path / "suite.yaml"
    path.write_text(ENTRY.format(path=data), encoding="utf-8")
    return path


def _refusal(suite: Path) -> SuiteError:
    with pytest.raises(SuiteError) as caught:
        load_suite(suite)
    return caught.value


def test_a_fifo_as_the_data_file_is_refused_not_waited_on(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "rows.jsonl")
    error = _refusal(_suite(tmp_path, "rows.jsonl"))
    assert error.message == (
        "cannot read scenarios_from file 'rows.jsonl': it is a FIFO (named pipe), not a "
        "regular file"
    )
    assert error.hint == "name a regular file (a path relative to the suite file)"


def test_a_row_200000_levels_deep_names_its_line_and_the_limit(tmp_path: Path) -> None:
    deep = '{"id": 2, "q": ' + "[" * 200_000 + "]" * 200_000 + "}"
    (tmp_path / "rows.jsonl").write_text('{"id": 1, "q": "hi"}\n' + deep + "\n")
    error = _refusal(_suite(tmp_path, "rows.jsonl"))
    assert (error.file, error.line) == (str(tmp_path / "rows.jsonl"), 2)
    assert error.message == (
        "line 2 is not readable JSON: nested more than 256 levels deep (trajguard's limit; set "
        "$TRAJGUARD_MAX_JSON_DEPTH to raise it)"
    )


@pytest.mark.parametrize("kind", ["jsonl", "csv", "parquet"])
def test_more_rows_than_the_limit_are_refused(
    tmp_path: Path, kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TRAJGUARD_MAX_DATA_ROWS", "50")
    rows = [{"id": i, "q": f"question {i}"} for i in range(51)]
    data = tmp_path / f"rows.{kind}"
    if kind == "jsonl":
        data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    elif kind == "csv":
        data.write_text("id,q\n" + "".join(f"{r['id']},{r['q']}\n" for r in rows))
    else:
        pq.write_table(pa.Table.from_pylist(rows), data)
    error = _refusal(_suite(tmp_path, data.name))
    assert error.message == (
        f"scenarios_from file 'rows.{kind}' holds more than 50 rows (trajguard's limit; set "
        "$TRAJGUARD_MAX_DATA_ROWS to raise it)"
    )
    monkeypatch.setenv("TRAJGUARD_MAX_DATA_ROWS", "51")
    assert len(load_suite(_suite(tmp_path, data.name)).scenarios) == 51


def test_the_default_row_limit_stops_a_huge_file_early(tmp_path: Path) -> None:
    line = '{"id": 1, "q": "x"}\n'
    (tmp_path / "rows.jsonl").write_text(line * 20_001)
    assert "holds more than 20,000 rows" in _refusal(_suite(tmp_path, "rows.jsonl")).message


def test_a_bad_limit_in_the_environment_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from trajguard.errors import UsageError

    (tmp_path / "rows.jsonl").write_text('{"id": 1, "q": "x"}\n')
    monkeypatch.setenv("TRAJGUARD_MAX_DATA_ROWS", "lots")
    with pytest.raises(UsageError, match=r"\$TRAJGUARD_MAX_DATA_ROWS must be a whole number"):
        load_suite(_suite(tmp_path, "rows.jsonl"))


@pytest.mark.parametrize("kind", ["csv", "jsonl"])
def test_a_utf8_byte_order_mark_is_read_as_none(tmp_path: Path, kind: str) -> None:
    text = "id,q\n1,hello\n" if kind == "csv" else '{"id": 1, "q": "hello"}\n'
    (tmp_path / f"rows.{kind}").write_bytes(b"\xef\xbb\xbf" + text.encode())
    (scenario,) = load_suite(_suite(tmp_path, f"rows.{kind}")).scenarios
    assert (scenario.id, scenario.input) == ("q-1", "hello")
