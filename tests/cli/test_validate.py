"""`trajguard validate`: output, exit codes, no tracebacks (in-process; one runs the script)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

VALID = {
    "schema_version": "ATIF-v1.7",
    "agent": {"name": "demo", "version": "1"},
    "steps": [
        {"step_id": 1, "source": "user", "message": "hi"},
        {
            "step_id": 2,
            "source": "agent",
            "message": "",
            "tool_calls": [{"tool_call_id": "c1", "function_name": "f", "arguments": {}}],
            "observation": {"results": [{"source_call_id": "c1", "content": "ok"}]},
        },
    ],
}


@pytest.fixture
def files(tmp_path: Path) -> Path:
    (tmp_path / "good.json").write_text(json.dumps(VALID))
    (tmp_path / "broken.json").write_text('{\n  "schema_version": "ATIF-v1.7",\n  "agent": }\n')
    (tmp_path / "v2.json").write_text(json.dumps({**VALID, "schema_version": "ATIF-v2.0"}))
    wrong_type = json.loads(json.dumps(VALID))
    wrong_type["steps"][1]["tool_calls"][0]["arguments"] = "x=1"
    (tmp_path / "wrong_type.json").write_text(json.dumps(wrong_type))
    dangling = json.loads(json.dumps(VALID))
    dangling["steps"][1]["observation"]["results"][0]["source_call_id"] = "c9"
    dangling["steps"][1]["mystery"] = True
    (tmp_path / "dangling.json").write_text(json.dumps(dangling))
    (tmp_path / "unparsable_depth.json").write_text("[" * 100_000)
    arguments: dict[str, object] = {}
    for _ in range(500):
        arguments = {"x": arguments}
    deep = json.loads(json.dumps(VALID))
    deep["steps"][1]["tool_calls"][0]["arguments"] = arguments
    (tmp_path / "deep.json").write_text(json.dumps(deep))
    return tmp_path


def test_valid_file_exits_0(files: Path, cli) -> None:
    result = cli("validate", "good.json", cwd=files)
    assert result.returncode == 0, result.stderr
    assert "good.json: valid ATIF-v1.7 (2 steps, 0 subagents)" in result.stdout


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("broken.json", "broken.json:3: not valid JSON: Expecting value (column 12)"),
        ("v2.json", "v2.json: $.schema_version: schema_version 'ATIF-v2.0' is not supported"),
        (
            "wrong_type.json",
            "wrong_type.json: $.steps[1].tool_calls[0].arguments: error structure: not valid ATIF",
        ),
        ("missing.json", "missing.json: file not found"),
        ("unparsable_depth.json", "unparsable_depth.json: $: nested more than 200 levels deep"),
        (
            "deep.json",
            "deep.json: $.steps[1].tool_calls[0].arguments.x.x.x.x.x.x.x...: nested more than 200",
        ),
    ],
)
def test_bad_input_exits_2_with_location_and_no_traceback(
    files: Path, name: str, expected: str, cli
) -> None:
    result = cli("validate", name, cwd=files)
    assert result.returncode == 2
    # what cannot be read at all goes to stderr; the problems of a readable file are listed
    assert expected in (result.stdout if name == "wrong_type.json" else result.stderr)
    assert "Traceback" not in result.stderr + result.stdout


def test_file_name_starting_with_a_bracket_is_a_file(files: Path, cli) -> None:
    (files / "[ok].json").write_text(json.dumps(VALID))
    result = cli("validate", "[ok].json", cwd=files)
    assert result.returncode == 0, result.stderr
    assert "[ok].json: valid ATIF-v1.7 (2 steps, 0 subagents)" in result.stdout


def test_normative_violation_and_unknown_field_are_reported(files: Path, cli) -> None:
    result = cli("validate", "good.json", "dangling.json", cwd=files)
    assert result.returncode == 2
    assert (
        "dangling.json: $.steps[1].mystery: error unknown-field: field not in ATIF; custom data "
        "belongs in an `extra` object" in result.stdout
    )
    assert (
        "dangling.json: $.steps[1].observation.results[0].source_call_id: error N2: 'c9' joins "
        "no tool_call_id of this step" in result.stdout
    )
    assert "1 of 2 files valid" in result.stderr
    assert "Traceback" not in result.stderr + result.stdout


# ---------------------------------------------------------------- in-process: warnings, --strict


def _main(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    from trajguard.cli import main

    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _subagent_totals(folder: Path) -> Path:
    # final_metrics that include a subagent's tokens, as a reference agent writes them: the spec
    # describes the totals without a MUST, so this is a warning
    data = json.loads(json.dumps(VALID))
    data["steps"][1]["metrics"] = {"prompt_tokens": 10, "completion_tokens": 2}
    data["final_metrics"] = {"total_prompt_tokens": 30, "total_completion_tokens": 2}
    path = folder / "totals.json"
    path.write_text(json.dumps(data))
    return path


def test_a_warning_is_shown_and_exits_0(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _subagent_totals(tmp_path)
    code, out, err = _main(capsys, "validate", str(path))
    assert code == 0, err
    assert (
        f"{path}: $.final_metrics.total_prompt_tokens: warning N8: 30 differs from the sum of "
        "step metrics (10)" in out
    )
    assert f"{path}: valid ATIF-v1.7 (2 steps, 0 subagents, 1 warning)" in out
    assert "1 of 1 file valid" in out


def test_strict_turns_warnings_into_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _subagent_totals(tmp_path)
    code, out, err = _main(capsys, "validate", "--strict", str(path))
    assert code == 2
    assert f"{path}: $.final_metrics.total_prompt_tokens: error N8: 30 differs" in out
    assert "valid ATIF" not in out
    assert "0 of 1 file valid" in err


def test_an_audio_file_of_v18_is_valid(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = json.loads(json.dumps(VALID))
    data["schema_version"] = "ATIF-v1.8"
    data["steps"][0]["message"] = [
        {"type": "audio", "source": {"media_type": "audio/wav", "path": "https://x.test/q.wav"}}
    ]
    path = tmp_path / "voice.json"
    path.write_text(json.dumps(data))
    code, out, _ = _main(capsys, "validate", str(path))
    assert code == 0
    assert f"{path}: valid ATIF-v1.8 (2 steps, 0 subagents)" in out


def test_usage_error_exits_2(files: Path, cli) -> None:
    result = cli("validate", cwd=files)
    assert result.returncode == 2
    assert "usage: trajguard validate" in result.stderr


def test_console_script_is_installed(files: Path) -> None:
    script = Path(sys.executable).parent / "trajguard"
    result = subprocess.run(
        [str(script), "validate", "good.json"],
        capture_output=True,
        text=True,
        cwd=files,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr


REPO = Path(__file__).resolve().parents[2]


def test_a_suite_file_is_validated_without_running_it(tmp_path: Path, cli) -> None:
    result = cli("validate", str(REPO / "suites" / "demo.yaml"), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    variants = "control, flaky_tools, no_calculator, weather_bot"
    assert f"valid suite demo (4 scenarios, variants: {variants})" in result.stdout
    assert list(tmp_path.iterdir()) == []  # nothing run, nothing written


def test_a_bad_suite_exits_2_with_its_line_and_no_traceback(tmp_path: Path, cli) -> None:
    bad = REPO / "tests" / "suite" / "bad_suites" / "duplicate_key.yaml"
    result = cli("validate", str(bad), str(REPO / "suites" / "demo.yaml"), cwd=tmp_path)
    assert result.returncode == 2
    assert "duplicate_key.yaml:6" in result.stderr
    assert "duplicate key 'input' (first on line 5)" in result.stderr
    assert "Traceback" not in result.stderr
    assert "1 of 2 files valid" in result.stderr


def test_a_suite_may_import_modules_next_to_it_as_run_does(tmp_path: Path, cli) -> None:
    suite_dir, elsewhere = tmp_path / "suite", tmp_path / "elsewhere"
    suite_dir.mkdir()
    elsewhere.mkdir()
    (suite_dir / "tg_validate_tools.py").write_text(
        'def add(a: int, b: int) -> int:\n    """Add two numbers."""\n    return a + b\n'
    )
    (suite_dir / "suite.yaml").write_text(
        "name: local\nscenarios:\n  - id: a\n    input: hi\n"
        "    agent: {kind: builtin, tools: [tg_validate_tools:add]}\n"
    )
    suite = str(suite_dir / "suite.yaml")
    dry = cli("run", suite, "--dry-run", cwd=elsewhere)
    assert dry.returncode == 0, dry.stderr
    result = cli("validate", suite, cwd=elsewhere)
    assert result.returncode == 0, result.stderr
    assert "valid suite local (1 scenario, variants: none)" in result.stdout


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("scenarios: &a\n  - *a\n", "bad.yaml:2: scenarios[0]: recursive YAML alias: *a"),
        ("[" * 5000 + "\n", "bad.yaml:1: YAML nested too deeply to parse"),
    ],
)
def test_a_pathological_suite_exits_2_without_a_traceback(
    tmp_path: Path, text: str, expected: str, cli
) -> None:
    (tmp_path / "bad.yaml").write_text(text)
    result = cli("validate", "bad.yaml", cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    assert expected in result.stderr
    assert "Traceback" not in result.stderr + result.stdout


def test_every_problem_of_a_file_is_listed(files: Path, cli) -> None:
    data = json.loads(json.dumps(VALID))
    data["steps"][1]["tool_calls"][0]["arguments"] = "x=1"  # structure
    data["steps"][0]["mystery"] = True  # unknown field
    data["steps"].append({"step_id": 9, "source": "agent", "message": "late"})  # N1
    (files / "many.json").write_text(json.dumps(data))
    result = cli("validate", "many.json", cwd=files)
    assert result.returncode == 2
    lines = [line for line in result.stdout.splitlines() if line.startswith("many.json: $")]
    assert [line.split(": ")[1:3] for line in lines] == [
        ["$.steps[1].tool_calls[0].arguments", "error structure"],
        ["$.steps[0].mystery", "error unknown-field"],
        ["$.steps[2].step_id", "error N1"],
    ]
    assert "many.json: 3 errors (ATIF-v1.7)" in result.stdout
    assert "Traceback" not in result.stderr + result.stdout


def test_a_judge_sampled_once_gets_a_note_to_sample_it_more(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    suite = tmp_path / "judged.yaml"
    suite.write_text(
        "name: judged\nscenarios:\n"
        "  - id: once\n    agent: {kind: builtin}\n    input: Capital of France?\n"
        "    pass:\n      - judge: {rubric: The answer names Paris., samples: 1}\n"
        "  - id: thrice\n    agent: {kind: builtin}\n    input: Capital of France?\n"
        "    pass:\n      - judge: The answer names Paris.\n"  # 3 by default
    )
    code, out, err = _main(capsys, "validate", str(suite))
    assert code == 0, err
    embedded, note = [line for line in out.splitlines() if "note:" in line]
    assert note.startswith(f"{suite}: note: scenario once: judge: ")
    assert "samples: 1" in note and "add `samples: 3`" in note
    assert embedded == (
        f'{suite}: note: judge: "The answer names Paris." judged by the embedded model: it '
        "passed 12 of 12 clearly wrong answers, every empty one and every off-topic one when "
        "measured (benchmarks/bench_embedded_judge.py); it checks the plumbing, not the rubric: "
        "name a capable judge `model:` to gate on them"
    )
