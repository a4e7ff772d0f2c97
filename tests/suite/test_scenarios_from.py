"""``scenarios_from:``: scenarios made from JSONL, CSV and Parquet rows (issue 25)."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from trajguard.errors import SuiteError
from trajguard.suite import load_suite
from trajguard.suite._from_data import DataRow, as_text, fill

ROWS: list[dict[str, Any]] = [
    {"country": "France", "expected": "Paris", "region": "europe", "n": 3},
    {"country": "Japan", "expected": "Tokyo", "region": "asia,island", "n": 4},
    {"country": "Peru", "expected": "Lima", "region": "americas", "n": 5},
]
ENTRY = """\
name: capitals
scenarios:
  - id: hand
    agent: {{kind: builtin}}
    input: written by hand
scenarios_from:
  - path: {path}
    id: "capital-{{country}}"
    input: "What is the capital of {{country}}? ({{_row}})"
    pass:
      - final_output_contains: "{{expected}}"
      - max_steps: "{{n}}"
    tags: region
    agent: {{kind: builtin}}
    runs: 3
"""


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def write_csv(path: Path, rows: list[dict[str, Any]]) -> Path:
    with path.open("w", newline="", encoding="utf-8") as out:
        writer = csv.DictWriter(out, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return path


def write_parquet(path: Path, rows: list[dict[str, Any]]) -> Path:
    pq.write_table(pa.Table.from_pylist(rows), path)
    return path


def suite_file(tmp_path: Path, data: str, text: str = ENTRY) -> Path:
    path = tmp_path / "suite.yaml"
    path.write_text(text.format(path=data), encoding="utf-8")
    return path


@pytest.mark.parametrize("kind", ["jsonl", "csv", "parquet"])
def test_every_row_is_a_scenario_beside_the_hand_written_ones(tmp_path: Path, kind: str) -> None:
    writer = {"jsonl": write_jsonl, "csv": write_csv, "parquet": write_parquet}[kind]
    writer(tmp_path / f"rows.{kind}", ROWS)
    suite = load_suite(suite_file(tmp_path, f"rows.{kind}"))
    assert [s.id for s in suite.scenarios] == [
        "hand",
        "capital-France",
        "capital-Japan",
        "capital-Peru",
    ]
    japan = suite.resolve("capital-Japan")
    row = 3 if kind == "csv" else 2  # CSV: the header is line 1
    assert japan.input == f"What is the capital of Japan? ({row})"
    assert [c.label for c in japan.pass_criteria] == [
        'final_output_contains: "Tokyo"',
        "max_steps: 4",
    ]
    assert japan.tags == ("asia", "island")
    assert japan.runs == 3
    assert suite.resolve("hand").tags == ()


def test_templating_rules_for_values_that_are_not_strings() -> None:
    assert [as_text(v) for v in (True, False, 7, 3.0, 0.25, [1, "a"], {"k": None})] == [
        "true",
        "false",
        "7",
        "3",
        "0.25",
        '[1,"a"]',
        '{"k":null}',
    ]


def test_a_brace_in_the_data_is_never_read_as_a_template() -> None:
    row = DataRow(Path("d.jsonl"), 1, {"q": "say {expected} and {{x}}", "expected": "no"})
    assert fill("Q: {q} {{literal}}", row, "input") == "Q: say {expected} and {{x}} {literal}"


@pytest.mark.parametrize(
    ("template", "fragment"),
    [
        ("{q.__class__}", "has {q.__class__}, which is not a column name"),
        ("{q[0]}", "has {q[0]}, which is not a column name"),
        ("{q!r}", "has {q!r}, which is not a column name"),
        ("{q:>9}", "has {q:>9}, which is not a column name"),
        ("{}", "has {}, which is not a column name"),
        ("{q", "is malformed"),
    ],
)
def test_only_plain_column_names_are_templates(template: str, fragment: str) -> None:
    row = DataRow(Path("d.jsonl"), 1, {"q": "x"})
    with pytest.raises(SuiteError) as caught:
        fill(template, row, "input")
    assert fragment in caught.value.message


def test_a_missing_column_names_the_file_line_and_column(tmp_path: Path) -> None:
    rows = [dict(ROWS[0]), {k: v for k, v in ROWS[1].items() if k != "expected"}]
    data = write_jsonl(tmp_path / "rows.jsonl", rows)
    with pytest.raises(SuiteError) as caught:
        load_suite(suite_file(tmp_path, "rows.jsonl"))
    error = caught.value
    assert (error.file, error.line, error.path) == (str(data), 2, "expected")
    assert "pass: line 2 has no column 'expected'" in error.message
    assert "its columns: country, n, region" in (error.hint or "")


def test_an_empty_value_and_a_parquet_row_are_named(tmp_path: Path) -> None:
    rows = [dict(ROWS[0]), {**ROWS[1], "expected": None}]
    data = write_parquet(tmp_path / "rows.parquet", rows)
    with pytest.raises(SuiteError) as caught:
        load_suite(suite_file(tmp_path, "rows.parquet"))
    assert caught.value.file == str(data)
    assert "column 'expected' is empty in row 2" in caught.value.message


def test_a_row_that_makes_an_invalid_scenario_is_named_by_its_line(tmp_path: Path) -> None:
    rows = [dict(ROWS[0]), {**ROWS[1], "country": "New Zealand"}, {**ROWS[2], "n": 0}]
    data = write_jsonl(tmp_path / "rows.jsonl", rows)
    with pytest.raises(SuiteError) as caught:
        load_suite(suite_file(tmp_path, "rows.jsonl"))
    problems = {(p.file, p.line, p.path): p.message for p in caught.value.problems}  # type: ignore[attr-defined]
    assert "'capital-New Zealand' is not a valid id" in problems[(str(data), 2, "id")]
    assert "greater than or equal to 1" in problems[(str(data), 3, "pass[1].max_steps.value")]


def test_duplicate_ids_from_rows_are_refused(tmp_path: Path) -> None:
    write_jsonl(tmp_path / "rows.jsonl", [ROWS[0], ROWS[0]])
    with pytest.raises(SuiteError, match="duplicate scenario id 'capital-France'") as caught:
        load_suite(suite_file(tmp_path, "rows.jsonl"))
    assert caught.value.line == 2 and caught.value.file == str(tmp_path / "rows.jsonl")


def test_a_bad_json_line_and_an_unknown_key(tmp_path: Path) -> None:
    (tmp_path / "rows.jsonl").write_text('{"country": "France"}\n{"country": \n')
    with pytest.raises(SuiteError) as caught:
        load_suite(suite_file(tmp_path, "rows.jsonl"))
    assert caught.value.line == 2 and "line 2 is not JSON" in caught.value.message
    text = ENTRY.replace("    tags: region\n", "    tag: region\n")
    write_jsonl(tmp_path / "rows.jsonl", ROWS)
    with pytest.raises(SuiteError) as caught:
        load_suite(suite_file(tmp_path, "rows.jsonl", text))
    assert caught.value.line == 13 and caught.value.path == "scenarios_from[0].tag"
    assert "unknown field 'tag'; did you mean 'tags'?" in caught.value.message


def test_a_data_file_outside_the_suites_tree_is_refused(tmp_path: Path) -> None:
    write_jsonl(tmp_path / "rows.jsonl", ROWS)
    (tmp_path / "suites").mkdir()
    path = tmp_path / "suites" / "suite.yaml"
    path.write_text(ENTRY.format(path="../rows.jsonl"))
    with pytest.raises(SuiteError, match="outside the suite's directory") as caught:
        load_suite(path)
    assert caught.value.path == "scenarios_from[0].path" and caught.value.line == 7
    path.write_text("prompt_dirs: [..]\n" + ENTRY.format(path="../rows.jsonl"))
    assert len(load_suite(path).scenarios) == 4


def test_editing_one_row_changes_only_that_scenarios_hash(tmp_path: Path) -> None:
    write_jsonl(tmp_path / "rows.jsonl", ROWS)
    path = suite_file(tmp_path, "rows.jsonl")
    suite = load_suite(path)
    before = {s.id: suite.resolve(s.id).config_hash() for s in suite.scenarios}
    edited = [dict(r) for r in ROWS]
    edited[1]["region"] = "asia"  # a column no template uses: still the scenario's row
    write_jsonl(tmp_path / "rows.jsonl", edited)
    suite = load_suite(path)
    after = {s.id: suite.resolve(s.id).config_hash() for s in suite.scenarios}
    assert [k for k in before if before[k] != after[k]] == ["capital-Japan"]


def test_tags_do_not_enter_the_hash_of_a_hand_written_scenario(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text("name: s\nscenarios:\n  - {id: a, agent: {kind: builtin}, input: hi}\n")
    plain = load_suite(path).resolve("a").config_hash()
    path.write_text(
        "name: s\nscenarios:\n  - {id: a, agent: {kind: builtin}, input: hi, tags: [x]}\n"
    )
    tagged = load_suite(path).resolve("a")
    assert tagged.tags == ("x",) and tagged.config_hash() == plain


def test_the_200_row_example_suite_loads_with_its_tags() -> None:
    root = Path(__file__).resolve().parents[2]
    suite = load_suite(root / "suites" / "from_data.yaml")
    assert len(suite.scenarios) == 200
    resolved = suite.resolve("capital-001")
    assert resolved.tags == ("geography", "brazil")
    assert [c.label for c in resolved.pass_criteria] == [
        "tool_called: lookup_country",
        'final_output_contains: "Brasilia"',
    ]
    assert {t for s in suite.scenarios for t in s.tags} >= {"arithmetic", "geography", "add"}
