"""A corpus of bad suites, each with the message (file, line, field, fix) it must produce."""

from __future__ import annotations

from pathlib import Path

import pytest

from trajguard.errors import SuiteError
from trajguard.live.suite import load_suite

CORPUS = Path(__file__).parent / "bad_suites"

# file → (line, field path or None, fragments the message must contain)
EXPECTED: dict[str, tuple[int | None, str | None, list[str]]] = {
    "not_yaml.yaml": (None, None, ["not valid YAML", "hint: check indentation"]),
    "not_a_mapping.yaml": (1, None, ["a suite file is a YAML mapping"]),
    "no_scenarios.yaml": (None, "scenarios", ["required field 'scenarios' is missing"]),
    "typo_top_level.yaml": (
        None,
        "scenarios",
        ["also scenarioz: unknown field 'scenarioz'; did you mean 'scenarios'?"],
    ),
    "typo_default.yaml": (
        4,
        "defaults.temprature",
        ["unknown field 'temprature'; did you mean 'temperature'?"],
    ),
    "bad_runs.yaml": (3, "defaults.runs", ["greater than or equal to 1", "(got 0)"]),
    "unknown_agent_kind.yaml": (
        5,
        "scenarios[0].agent.kind",
        ["scenario 'a':", "'robot'", "'builtin', 'callable', 'command'"],
    ),
    "missing_input.yaml": (
        3,
        "scenarios[0].input",
        ["scenario 'a': required field 'input' is missing"],
    ),
    "bad_tool_path.yaml": (
        8,
        "scenarios[0].agent.tools[0]",
        ["'calculator' is not an import path; write it as module.submodule:function"],
    ),
    "missing_tool.yaml": (
        8,
        "scenarios[0].agent.tools[0]",
        ["has no attribute 'calculater'", "hint: check the function name"],
    ),
    "missing_module.yaml": (
        4,
        "scenarios[0].agent.function",
        ["cannot import module 'no_such_module_xyz'"],
    ),
    "unknown_criterion.yaml": (
        8,
        "scenarios[0].pass[1]",
        ["unknown pass criterion 'tool_caled'", "tool_called"],
    ),
    "criterion_typo_field.yaml": (
        9,
        "scenarios[0].pass[0].tool_called.mim",
        ["unknown field 'mim'; did you mean 'min'?"],
    ),
    "bad_regex.yaml": (
        7,
        "scenarios[0].pass[0].final_output_matches.pattern",
        ["not a valid regular expression"],
    ),
    "duplicate_ids.yaml": (6, "scenarios[1].id", ["duplicate scenario id 'a'"]),
    "missing_prompt_file.yaml": (
        None,
        None,
        ["cannot read system_prompt_file 'prompts/nope.txt'", "relative to the suite file"],
    ),
    "command_without_output.yaml": (6, "scenarios[0].agent.argv", ["argv must contain {output}"]),
    "command_shell_string.yaml": (6, "scenarios[0].agent.argv", ["valid list"]),
    "bad_variant_field.yaml": (
        8,
        "scenarios[0].variants.worse.system_promt",
        ["unknown field 'system_promt'; did you mean 'system_prompt'?"],
    ),
    "bad_scenario_id.yaml": (3, "scenarios[0].id", ["'has spaces' is not a valid id"]),
}


def test_every_corpus_file_has_an_expectation() -> None:
    assert sorted(p.name for p in CORPUS.glob("*.yaml")) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_bad_suite_message(name: str) -> None:
    line, field, fragments = EXPECTED[name]
    with pytest.raises(SuiteError) as caught:
        load_suite(CORPUS / name)
    error = caught.value
    text = str(error)
    assert error.file is not None and Path(error.file).name in (name, "nope.txt")
    if line is not None:
        assert error.line == line, text
    if field is not None:
        assert error.path == field, text
    for fragment in fragments:
        assert fragment in text, text
    assert error.exit_code == 2
