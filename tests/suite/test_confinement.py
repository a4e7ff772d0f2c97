"""What a suite may reach: prompt files inside its own tree unless ``prompt_dirs`` names more;
functions of modules that run programs or touch files only when ``allow_modules`` names them."""

from __future__ import annotations

from pathlib import Path

import pytest

from trajguard.errors import SuiteError
from trajguard.suite import load_suite


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_a_prompt_file_outside_the_suite_tree_is_refused(tmp_path: Path) -> None:
    write(tmp_path / "secret.txt", "not for the model")
    suite = write(
        tmp_path / "suites" / "s.yaml",
        "name: x\nscenarios:\n  - {id: a, input: hi, agent: "
        "{kind: builtin, system_prompt_file: ../secret.txt}}\n",
    )
    with pytest.raises(SuiteError, match="outside the suite's directory") as info:
        load_suite(suite).resolve("a")
    assert "prompt_dirs" in (info.value.hint or "")


def test_prompt_dirs_allows_a_named_directory(tmp_path: Path) -> None:
    write(tmp_path / "prompts" / "p.txt", "be brief")
    suite = write(
        tmp_path / "suites" / "s.yaml",
        "name: x\nprompt_dirs: [../prompts]\nscenarios:\n  - {id: a, input: hi, agent: "
        "{kind: builtin, system_prompt_file: ../prompts/p.txt}}\n",
    )
    assert load_suite(suite).resolve("a").system_prompt == "be brief"


def test_a_prompt_file_below_the_suite_is_read(tmp_path: Path) -> None:
    write(tmp_path / "prompts" / "p.txt", "be brief")
    suite = write(
        tmp_path / "s.yaml",
        "name: x\nscenarios:\n  - {id: a, input: hi, agent: "
        "{kind: builtin, system_prompt_file: prompts/p.txt}}\n",
    )
    assert load_suite(suite).resolve("a").system_prompt == "be brief"


def test_a_symlink_out_of_the_tree_is_refused(tmp_path: Path) -> None:
    write(tmp_path / "outside" / "p.txt", "elsewhere")
    (tmp_path / "suite").mkdir()
    (tmp_path / "suite" / "link.txt").symlink_to(tmp_path / "outside" / "p.txt")
    suite = write(
        tmp_path / "suite" / "s.yaml",
        "name: x\nscenarios:\n  - {id: a, input: hi, agent: "
        "{kind: builtin, system_prompt_file: link.txt}}\n",
    )
    with pytest.raises(SuiteError, match="outside the suite's directory"):
        load_suite(suite).resolve("a")


TOOL_MODULE = "import os\n\ndef cwd(path: str) -> str:\n    return os.getcwd()\n"


@pytest.mark.parametrize("target", ["os:getcwd", "subprocess:run", "shutil:rmtree"])
def test_functions_of_denied_modules_are_refused(tmp_path: Path, target: str) -> None:
    suite = write(
        tmp_path / "s.yaml",
        "name: x\nscenarios:\n"
        f"  - {{id: a, input: hi, agent: {{kind: builtin, tools: ['{target}']}}}}\n",
    )
    with pytest.raises(SuiteError, match="which a suite may not use") as info:
        load_suite(suite)
    assert "allow_modules" in (info.value.hint or "")


def test_allow_modules_lets_the_suite_use_them(tmp_path: Path) -> None:
    suite = write(
        tmp_path / "s.yaml",
        "name: x\nallow_modules: [os]\nscenarios:\n"
        "  - {id: a, input: hi, agent: {kind: builtin, tools: ['os:getcwd']}}\n",
    )
    resolved = load_suite(suite).resolve("a")
    assert resolved.allow_modules == ("os",)


def test_allow_modules_is_not_part_of_the_definition(tmp_path: Path) -> None:
    body = "scenarios:\n  - {id: a, input: hi, agent: {kind: builtin}}\n"
    plain = load_suite(write(tmp_path / "a.yaml", "name: x\n" + body)).resolve("a")
    allowed = load_suite(write(tmp_path / "b.yaml", "name: x\nallow_modules: [os]\n" + body))
    assert allowed.resolve("a").config_hash() == plain.config_hash()


@pytest.mark.parametrize("value", [".inf", "-.inf", ".nan", "1e9"])
def test_a_timeout_must_be_finite_and_at_most_a_week(tmp_path: Path, value: str) -> None:
    suite = write(
        tmp_path / "s.yaml",
        f"name: x\ndefaults: {{timeout_s: {value}}}\nscenarios:\n"
        "  - {id: a, input: hi, agent: {kind: builtin}}\n",
    )
    with pytest.raises(SuiteError, match="timeout_s"):
        load_suite(suite)
