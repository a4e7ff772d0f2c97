"""A corpus of bad suites, each with the message (file, line, field, fix) it must produce."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from trajguard.errors import SuiteError
from trajguard.suite import load_suite

CORPUS = Path(__file__).parent / "bad_suites"

# file → (line, field path or None, fragments the message must contain)
EXPECTED: dict[str, tuple[int | None, str | None, list[str]]] = {
    "not_yaml.yaml": (None, None, ["not valid YAML", "hint: check indentation"]),
    "not_a_mapping.yaml": (1, None, ["a suite file is a YAML mapping"]),
    "no_scenarios.yaml": (None, "scenarios", ["required field 'scenarios' is missing"]),
    "typo_top_level.yaml": (
        2,
        "scenarioz",  # one mistake: not also a missing "scenarios"
        ["scenarioz: unknown field 'scenarioz'; did you mean 'scenarios'?"],
    ),
    "typo_default.yaml": (
        4,
        "defaults.temprature",
        ["unknown field 'temprature'; did you mean 'temperature'?"],
    ),
    "bad_runs.yaml": (3, "defaults.runs", ["greater than or equal to 1", "(got 0)"]),
    "fault_unknown_kind.yaml": (
        7,
        "scenarios[0].faults[0].kind",
        ["'timeout', 'rate_limited'", "'malformed_tool_call' (got 'time_out')"],
    ),
    "fault_probability.yaml": (
        7,
        "scenarios[0].faults[0].probability",
        ["less than or equal to 1 (got 1.5)"],
    ),
    "fault_unknown_tool.yaml": (
        9,
        "scenarios[0].variants.flaky.faults[0].tools[0]",
        [
            "names tool 'calculater', which the agent does not have under variant 'flaky'",
            "did you mean 'calculator'?",
            "hint: its tools under variant 'flaky': calculator",
        ],
    ),
    "fault_shared_variant_tool.yaml": (
        5,
        "variants.flaky.faults[0].tools[0]",
        [
            "tool 'lookup_country', which the agent does not have under variant 'flaky' in "
            "scenario 'a'"
        ],
    ),
    "fault_tool_on_command.yaml": (
        7,
        "scenarios[0].faults[0].kind",
        [
            "'corrupt_json' hits tool calls: a command agent's tools run in its own process",
            "hint: give it model faults (provider_rate_limited, provider_error",
        ],
    ),
    "fault_model_on_builtin.yaml": (
        7,
        "scenarios[0].faults[0].kind",
        [
            "'provider_rate_limited' hits model calls: a builtin agent calls its model directly",
            "hint: give it tool faults (timeout, rate_limited",
        ],
    ),
    "fault_model_with_tools.yaml": (
        7,
        "scenarios[0].faults[0]",
        ["provider_error hits model calls, not tools: remove its tools"],
    ),
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
        4,
        "scenarios[0].agent.system_prompt_file",
        [
            "scenario 'a': cannot read system_prompt_file 'prompts/nope.txt'",
            "No such file",
            "relative to the suite file",
        ],
    ),
    "variant_missing_prompt_file.yaml": (
        8,
        "scenarios[0].variants.worse.system_prompt_file",
        ["scenario 'a': variant 'worse': cannot read system_prompt_file 'prompts/missing.txt'"],
    ),
    "suite_variant_missing_tool.yaml": (
        4,
        "variants.worse.tools[0]",
        ["has no attribute 'calculater'", "hint: check the function name"],
    ),
    "not_a_tool.yaml": (
        8,
        "scenarios[0].agent.tools[1]",
        ["'json:dumps' cannot be a tool", "parameter 'kw' must be a named parameter"],
    ),
    "command_not_found.yaml": (
        4,
        "scenarios[0].agent.argv[0]",
        ["command 'no-such-agent-program-xyz' is not found on PATH"],
    ),
    "command_path_not_found.yaml": (
        6,
        "scenarios[0].agent.argv[0]",
        ["command './agents/missing.sh' is not found", "relative to the suite file"],
    ),
    "model_empty.yaml": (
        4,
        "defaults.model",
        ["model must be a non-empty litellm model string", "hint: e.g. local/smollm2"],
    ),
    "variant_model_empty.yaml": (
        8,
        "scenarios[0].variants.other.model",
        ["scenario 'a': model must be a non-empty"],
    ),
    "local_model_with_api_base.yaml": (
        4,
        "defaults.api_base",
        ["local/smollm2 runs its own server; do not pass api_base", "remove it"],
    ),
    "variant_on_callable.yaml": (
        9,
        "scenarios[0].variants.worse.tools",
        ["variant 'worse' sets tools, which a callable agent never sees"],
    ),
    "params_on_builtin.yaml": (
        8,
        "scenarios[0].variants.chatty.params",
        ["variant 'chatty' sets params, which a builtin agent never sees"],
    ),
    "agent_errors_not_exception.yaml": (
        8,
        "scenarios[0].agent.agent_errors.trajguard.examples.predicates:answered_with_a_number",
        ["which is not an exception type"],
    ),
    "suite_variant_on_command.yaml": (
        4,
        "variants.weather_bot.tool_budget",
        [
            "which a command agent never sees, so the variant would run unchanged in scenario "
            "'cmd'",
            "give scenario 'cmd' its own 'weather_bot'",
        ],
    ),
    "agent_key_typo.yaml": (
        6,
        "scenarios[0].agent.system_promt",
        [
            "did you mean 'system_prompt'?",
            "scenarios[0].agent.tool: scenario 'a': unknown field 'tool'; did you mean 'tools'?",
        ],
    ),
    "criterion_unknown_tool.yaml": (
        8,
        "scenarios[0].pass[1]",
        [
            "tool_called names tool 'calculater', which the agent is never given; did you mean "
            "'calculator'?"
        ],
    ),
    "duplicate_key.yaml": (6, "scenarios[0].input", ["duplicate key 'input' (first on line 5)"]),
    "negative_tolerance.yaml": (
        6,
        "scenarios[0].tolerances",
        ["pass_rate must be a number of at least 0, got -0.5"],
    ),
    "ratio_tolerance_below_one.yaml": (
        6,
        "scenarios[0].tolerances",
        ["tokens is a ratio above 1"],
    ),
    "base_variant.yaml": (3, "variants.base", ["a variant may not be named 'base'"]),
    "both_prompts.yaml": (
        7,
        "scenarios[0].agent.system_prompt_file",
        ["both system_prompt and system_prompt_file are set"],
    ),
    "command_unknown_param.yaml": (
        6,
        "scenarios[0].agent.argv[2]",
        ["argv uses {params.style}, which is not a parameter", "known: tone"],
    ),
    "command_shell_string.yaml": (6, "scenarios[0].agent.argv", ["valid list"]),
    "bad_variant_field.yaml": (
        8,
        "scenarios[0].variants.worse.system_promt",
        ["unknown field 'system_promt'; did you mean 'system_prompt'?"],
    ),
    "bad_scenario_id.yaml": (3, "scenarios[0].id", ["'has spaces' is not a valid id"]),
    "recursive_alias.yaml": (
        2,
        "scenarios[0]",
        ["recursive YAML alias: *a is used inside the value it names (anchored on line 1)"],
    ),
    "recursive_merge_key.yaml": (3, "defaults.<<", ["recursive YAML alias: *d"]),
    "nested_too_deep.yaml": (1, None, ["YAML nested too deeply to parse", "hint: "]),
    "alias_bomb.yaml": (7, "a5", ["the YAML expands to more than 1000000 values"]),
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
    assert error.file is not None and Path(error.file).name == name
    if line is not None:
        assert error.line == line, text
    if field is not None:
        assert error.path == field, text
    for fragment in fragments:
        assert fragment in text, text
    assert error.exit_code == 2


TOOL_SUITE = """\
name: demo
scenarios:
  - id: a
    agent: {{kind: builtin, tools: ["{module}:add"]}}
    input: hi
"""


def _suite_with_tool_module(tmp_path: Path, module: str, source: str) -> Path:
    (tmp_path / f"{module}.py").write_text(source)
    suite = tmp_path / "suite.yaml"
    suite.write_text(TOOL_SUITE.format(module=module))
    return suite


def test_tool_module_with_a_syntax_error_names_its_file_and_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(tmp_path))
    source = "def add(a: int, b: int) -> int:\n    return a +\n"
    suite = _suite_with_tool_module(tmp_path, "tg_syntax_error_tools", source)
    with pytest.raises(SuiteError) as caught:
        load_suite(suite)
    text = str(caught.value)
    assert caught.value.line == 4 and caught.value.path == "scenarios[0].agent.tools[0]", text
    assert "importing module 'tg_syntax_error_tools'" in text
    assert f"failed with SyntaxError at {tmp_path / 'tg_syntax_error_tools.py'}:2: " in text
    assert "invalid syntax" in text
    assert caught.value.exit_code == 2


def test_tool_module_raising_on_import_names_the_exception(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(tmp_path))
    source = "raise RuntimeError('needs a database')\n"
    suite = _suite_with_tool_module(tmp_path, "tg_raising_tools", source)
    with pytest.raises(SuiteError) as caught:
        load_suite(suite)
    text = str(caught.value)
    assert caught.value.path == "scenarios[0].agent.tools[0]", text
    assert (
        "importing module 'tg_raising_tools' (from 'tg_raising_tools:add') failed with "
        "RuntimeError: needs a database" in text
    )


COMMAND_SUITE = """\
name: demo
scenarios:
  - id: a
    agent:
      kind: command
      argv: [tg-env-path-agent, "{{output}}"]
      env: {{PATH: "{path}"}}
    input: hi
"""


@pytest.mark.parametrize("relative", [False, True])
def test_command_is_looked_up_on_the_agents_env_path(tmp_path: Path, relative: bool) -> None:
    program = tmp_path / "agent-bin" / "tg-env-path-agent"
    program.parent.mkdir()
    program.write_text("#!/bin/sh\n")
    program.chmod(0o755)
    suite = tmp_path / "suite.yaml"
    # relative PATH entries are relative to the suite's directory, where the command runs
    entry = "agent-bin" if relative else str(program.parent)
    suite.write_text(COMMAND_SUITE.format(path=os.pathsep.join(["/nonexistent", entry])))
    assert load_suite(suite).scenarios[0].agent.kind == "command"


def test_command_not_on_the_agents_env_path(tmp_path: Path) -> None:
    suite = tmp_path / "suite.yaml"
    suite.write_text(COMMAND_SUITE.format(path=str(tmp_path)))
    with pytest.raises(SuiteError) as caught:
        load_suite(suite)
    assert caught.value.path == "scenarios[0].agent.argv[0]"
    assert "'tg-env-path-agent' is not found on the PATH set in the agent's env" in str(
        caught.value
    )


def test_faults_resolve_per_variant_and_enter_the_config_hash(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(
        "name: s\nvariants:\n  flaky: {faults: [{kind: timeout, probability: 0.3}]}\n"
        "  calm: {faults: []}\n  plain: {}\nscenarios:\n"
        "  - id: a\n    agent: {kind: builtin, tools: [trajguard.examples.demo_tools:calculator]}\n"
        "    input: hi\n    faults: [{kind: exception, tools: [calculator], at_call: 2}]\n"
        "  - id: b\n    agent: {kind: builtin}\n    input: hi\n"
    )
    suite = load_suite(path)
    assert [f.kind for f in suite.resolve("a").faults] == ["exception"]
    assert [f.kind for f in suite.resolve("a", "flaky").faults] == ["timeout"]
    assert suite.resolve("a", "calm").faults == []
    assert suite.resolve("a", "plain").faults == suite.resolve("a").faults
    faulted = suite.resolve("a").config_hash()
    unfaulted = suite.resolve("a").model_copy(update={"faults": []}).config_hash()
    assert faulted != unfaulted


def test_the_demo_suite_keeps_the_config_hashes_of_its_committed_baseline() -> None:
    """A suite without faults hashes as before faults existed (the nightly compares with the
    baseline's runs)."""
    import pandas as pd

    root = Path(__file__).resolve().parents[2]
    suite = load_suite(root / "suites" / "demo.yaml")
    committed = pd.read_parquet(root / "baselines" / "demo" / "runs.parquet")
    recorded = dict(zip(committed["scenario"], committed["config_hash"], strict=False))
    assert {s.id: suite.resolve(s.id).config_hash() for s in suite.scenarios} == recorded
