"""`load_suite` reports every problem of a suite at once, each with its file, line, field,
scenario and hint (issue 25: one `validate` run per suite, not one per mistake)."""

from __future__ import annotations

from pathlib import Path

import pytest

from trajguard.errors import SuiteError, SuiteErrors
from trajguard.suite import load_suite

MANY = """\
name: many
scenarios:
  - id: a
    agent: {kind: builtin, tools: [trajguard.examples.demo_tools:calculator]}
    input: hi
    pass:
      - final_output_contain: "4"
  - id: b
    agent: {kind: builtin, tools: [trajguard.examples.demo_tools:calculator]}
    input: hi
    pass:
      - tool_called: calculater
      - tool_called_with: {name: calculatr, arguments: {}}
  - id: c
    agent: {kind: builtin, tools: [trajguard.examples.demo_tools:no_such_tool]}
    input: hi
  - id: d
    agent: {kind: builtin, system_prompt_file: prompts/missing.txt}
    input: hi
  - id: e
    agent: {kind: builtin}
    inptu: hi
  - id: b
    agent: {kind: builtin}
    input: again
"""


def _problems(tmp_path: Path, text: str) -> tuple[SuiteErrors, str]:
    path = tmp_path / "suite.yaml"
    path.write_text(text)
    with pytest.raises(SuiteErrors) as caught:
        load_suite(path)
    return caught.value, str(caught.value)


def test_every_problem_is_reported_with_its_own_line_field_and_hint(tmp_path: Path) -> None:
    error, text = _problems(tmp_path, MANY)
    found = {(p.line, p.path): p for p in error.problems}
    expected = {
        (7, "scenarios[0].pass[0]"): [
            "scenario 'a'",
            "unknown pass criterion 'final_output_contain'; did you mean 'final_output_contains'?",
        ],
        (12, "scenarios[1].pass[0]"): ["scenario 'b'", "did you mean 'calculator'?"],
        (13, "scenarios[1].pass[1]"): ["tool_called_with names tool 'calculatr'"],
        (15, "scenarios[2].agent.tools[0]"): ["scenario 'c'", "has no attribute 'no_such_tool'"],
        (18, "scenarios[3].agent.system_prompt_file"): ["scenario 'd'", "prompts/missing.txt"],
        (22, "scenarios[4].inptu"): ["scenario 'e'", "did you mean 'input'?"],  # one mistake:
        # the renamed key is not also reported as a missing input
        (23, "scenarios[5].id"): ["duplicate scenario id 'b'"],
    }
    assert set(found) == set(expected), text
    for key, fragments in expected.items():
        problem = found[key]
        assert problem.file == str(tmp_path / "suite.yaml")
        assert problem.hint, problem
        for fragment in fragments:
            assert fragment in str(problem), str(problem)
    assert [p.line for p in error.problems] == sorted(p.line or 0 for p in error.problems)
    assert text.startswith(f"{tmp_path / 'suite.yaml'}: 7 problems")
    assert error.line == 7 and error.path == "scenarios[0].pass[0]"  # the first problem
    assert error.exit_code == 2


def test_problems_outside_the_scenarios_are_reported_together(tmp_path: Path) -> None:
    error, text = _problems(
        tmp_path,
        "name: s\nprompt_dir: [x]\ndefaults: {temprature: 0.5, runs: 0}\nscenarios:\n"
        "  - {id: a, agent: {kind: builtin}, input: hi, pass: [{max_step: 3}]}\n",
    )
    messages = sorted((p.line, p.message) for p in error.problems)
    assert messages == [
        (2, "unknown field 'prompt_dir'; did you mean 'prompt_dirs'?"),
        (3, "Input should be greater than or equal to 1 (got 0)"),
        (3, "unknown field 'temprature'; did you mean 'temperature'?"),
        (5, "scenario 'a': unknown pass criterion 'max_step'; did you mean 'max_steps'?"),
    ], text


def test_one_problem_is_raised_as_itself(tmp_path: Path) -> None:
    path = tmp_path / "suite.yaml"
    path.write_text("name: s\nscenarios:\n  - {id: a, agent: {kind: builtin}, input: hi, x: 1}\n")
    with pytest.raises(SuiteError) as caught:
        load_suite(path)
    assert not isinstance(caught.value, SuiteErrors)
    assert caught.value.line == 3 and caught.value.path == "scenarios[0].x"


def test_validate_prints_every_problem_and_exits_2(tmp_path: Path, cli) -> None:
    (tmp_path / "suite.yaml").write_text(MANY)
    result = cli("validate", "suite.yaml", cwd=tmp_path)
    assert result.returncode == 2
    assert "7 problems" in result.stderr
    assert "did you mean 'final_output_contains'?" in result.stderr
    assert "did you mean 'calculator'?" in result.stderr
    assert "duplicate scenario id 'b'" in result.stderr
    assert "Traceback" not in result.stderr + result.stdout


# The trial of issue 41 (a CrewAI agent, a scenarios_from suite): 4 mistakes got 1 report, 2 got 1.
TRIAL_FOUR = """\
name: trial
defaults: {runs: 2, temprature: 0.5}
scenarios:
  - id: by-hand
    agent: {kind: callable, function: crew_agent_41:runn}
    input: What is the capital of France?
    pass:
      - final_output_contain: Paris
scenarios_from:
  - path: data.jsonl
    id: "q-{question}"
    input: "{question}"
    agent: {kind: callable, function: crew_agent_41:run}
    pass:
      - final_output_contains: "{expectd}"
"""
TRIAL_TWO = """\
name: trial
scenarios_from:
  - path: data.jsonl
    id: "q-{question}"
    input: "{question}"
    agent: {kind: callable, function: crew_agent_41:runn}
    pass:
      - final_output_contain: "{expected}"
"""


@pytest.fixture
def trial(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "crew_agent_41.py").write_text("def run(ctx):\n    return 'Paris'\n")
    rows = "".join(f'{{"question": "q{i}", "expected": "a{i}"}}\n' for i in range(12))
    (tmp_path / "data.jsonl").write_text(rows)
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            TRIAL_FOUR,
            {
                (2, "defaults.temprature"): "did you mean 'temperature'?",
                (5, "scenarios[0].agent.function"): "no attribute 'runn'",
                (8, "scenarios[0].pass[0]"): "did you mean 'final_output_contains'?",
                (15, "scenarios_from[0].pass[0].final_output_contains"): "{expectd} names no col",
            },
        ),
        (
            TRIAL_TWO,
            {
                (6, "scenarios_from[0].agent.function"): "did you mean 'run'?",
                (8, "scenarios_from[0].pass[0]"): "did you mean 'final_output_contains'?",
            },
        ),
    ],
    ids=["four", "two"],
)
def test_the_trials_independent_mistakes_are_each_reported_once(
    trial: Path, text: str, expected: dict[tuple[int, str], str]
) -> None:
    error, shown = _problems(trial, text)
    found = {(p.line, p.path): p for p in error.problems}
    assert set(found) == set(expected), shown
    for key, fragment in expected.items():
        assert found[key].file == str(trial / "suite.yaml")
        assert fragment in found[key].message, found[key]


def test_validate_prints_the_trials_four_mistakes(trial: Path, cli) -> None:
    (trial / "suite.yaml").write_text(TRIAL_FOUR)
    result = cli("validate", "suite.yaml", cwd=trial)
    assert result.returncode == 2
    assert "suite.yaml: 4 problems" in result.stderr
    assert str(trial / "data.jsonl") not in result.stderr  # no mistake is in a data row
    assert "Traceback" not in result.stderr + result.stdout
