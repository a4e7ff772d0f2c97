"""A ``scenarios_from`` block's mistakes are the suite's: reported once, at the suite's line, with
a "did you mean"; only what is wrong in some rows names the data file's lines (issue 41, item 6:
a new user's CrewAI trial got the same criterion typo 12 times, against the data file)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from trajguard.errors import SuiteError, SuiteErrors
from trajguard.suite import load_suite
from trajguard.suite._sources import MAX_ROW_PROBLEMS

ROOT = Path(__file__).resolve().parents[2]
AGENT = "def run(ctx):\n    return 'Paris'\n"
BLOCK = """\
name: trial
scenarios_from:
  - path: data.jsonl
    id: "q-{{question}}"
    input: "{{question}}"
    agent: {{kind: callable, function: {function}}}
    pass:
      - {criterion}: "{{expected}}"
      - final_output_contains: "{{{column}}}"
"""


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder with an agent module (importable, as `trajguard validate` makes it) and 12 rows."""
    (tmp_path / "crew_agent_41.py").write_text(AGENT)
    rows = [{"question": f"q{i}", "expected": f"a{i}"} for i in range(12)]
    (tmp_path / "data.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


def _load(project: Path, text: str) -> list[SuiteError]:
    path = project / "suite.yaml"
    path.write_text(text)
    with pytest.raises(SuiteError) as caught:
        load_suite(path)
    error = caught.value
    return list(error.problems) if isinstance(error, SuiteErrors) else [error]


def _block(
    function: str = "crew_agent_41:run",
    criterion: str = "final_output_contains",
    column: str = "expected",
) -> str:
    return BLOCK.format(function=function, criterion=criterion, column=column)


def test_the_trials_three_block_mistakes_are_three_problems_at_the_suites_lines(
    project: Path,
) -> None:
    problems = _load(project, _block("crew_agent_41:runn", "final_output_contain", "expectd"))
    suite = str(project / "suite.yaml")
    found = {(p.file, p.line, p.path): str(p) for p in problems}
    assert set(found) == {
        (suite, 6, "scenarios_from[0].agent.function"),
        (suite, 8, "scenarios_from[0].pass[0]"),
        (suite, 9, "scenarios_from[0].pass[1].final_output_contains"),
    }, "\n".join(found.values())
    function, criterion, column = (found[k] for k in sorted(found, key=lambda k: k[1]))
    assert "has no attribute 'runn'" in function and "did you mean 'run'?" in function
    assert "(in all 12 rows of data.jsonl)" in function
    assert "unknown pass criterion 'final_output_contain'; did you mean" in criterion
    assert "docs/reference/suite.md#pass-criteria" in criterion
    assert "{expectd} names no column of data.jsonl; did you mean 'expected'?" in column
    assert "the columns of data.jsonl: expected, question" in column


def test_a_criterion_typo_alone_is_one_problem_and_leaves_the_rows_checked(
    project: Path,
) -> None:
    (problem,) = _load(project, _block(criterion="final_output_contain"))
    assert (problem.line, problem.path) == (8, "scenarios_from[0].pass[0]")
    assert "data.jsonl" not in (problem.file or "")


def test_a_malformed_template_and_a_tags_typo_are_reported_once(project: Path) -> None:
    text = _block(column="expected.upper") + "    tags: regoin\n"
    problems = _load(project, text)
    assert [(p.line, p.path) for p in problems] == [
        (9, "scenarios_from[0].pass[1].final_output_contains"),
        (10, "scenarios_from[0].tags"),
    ]
    assert "{expected.upper}, which is not a column name" in problems[0].message
    assert "tags 'regoin' names no column of data.jsonl" in problems[1].message


def test_what_only_some_rows_have_names_those_rows_of_the_data_file(project: Path) -> None:
    rows = [{"question": f"q{i}", "expected": f"a{i}", "n": 3} for i in range(4)]
    rows[1]["n"] = 0
    rows[3]["n"] = 0
    (project / "data.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    problems = _load(project, _block() + '      - max_steps: "{n}"\n')
    data = str(project / "data.jsonl")
    assert [(p.file, p.line, p.path) for p in problems] == [
        (data, 2, "pass[2].max_steps.value"),
        (data, 4, "pass[2].max_steps.value"),
    ]
    assert problems[0].message.startswith("line 2: scenario 'q-q1': ")


def test_what_every_row_has_is_the_blocks_even_when_it_comes_from_the_data(
    project: Path,
) -> None:
    (problem,) = _load(project, _block() + '      - max_steps: "{question}"\n')
    assert (problem.file, problem.line) == (str(project / "suite.yaml"), 10)
    assert problem.path == "scenarios_from[0].pass[2].max_steps.value"
    assert problem.message.endswith("(in all 12 rows of data.jsonl; line 1: got 'q0')")
    assert problem.hint is not None and "suite.md#pass-criteria" in problem.hint


def test_positions_of_later_criteria_survive_one_that_did_not_parse(project: Path) -> None:
    rows = [{"question": f"q{i}", "expected": f"a{i}", "n": 3 if i else 0} for i in range(3)]
    (project / "data.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    text = _block(criterion="final_output_contain") + '      - max_steps: "{n}"\n'
    problems = _load(project, text)
    assert [(Path(p.file or "").name, p.line, p.path) for p in problems] == [
        ("data.jsonl", 1, "pass[2].max_steps.value"),  # the entry's third criterion, not 2nd
        ("suite.yaml", 8, "scenarios_from[0].pass[0]"),
    ]


def test_problems_of_many_rows_are_counted_after_the_first_ones(project: Path) -> None:
    rows = [{"question": f"q{i}", "expected": f"a{i}", "n": 0} for i in range(30)]
    rows[0]["n"] = 3
    (project / "data.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    problems = _load(project, _block() + '      - max_steps: "{n}"\n')
    assert len(problems) == MAX_ROW_PROBLEMS + 1
    assert problems[-1].message.startswith("and 9 more rows with this problem: ")


def test_the_hints_name_sections_that_exist(project: Path) -> None:
    """The criteria hint once pointed at a README section that no longer listed criteria."""
    problems = _load(project, _block(criterion="final_output_contain") + "    runs: 0\n")
    hints = " ".join(p.hint or "" for p in problems)
    anchors = set(re.findall(r"docs/reference/suite\.md#([a-z0-9-]+)", hints))
    assert anchors == {"pass-criteria", "fields"}, hints
    page = (ROOT / "docs" / "reference" / "suite.md").read_text()
    headings = {
        re.sub(r"[^a-z0-9 -]", "", h.lower()).replace(" ", "-")
        for h in re.findall(r"^#+ (.+)$", page, flags=re.M)
    }
    assert anchors <= headings
    assert "final_output_contains" in page.partition("## Pass criteria")[2].partition("\n## ")[0]
