"""The suite file and its prompt files read bounded: regular files only, so large; the same
answers from libyaml's loader and from the pure-Python one it falls back to."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from trajguard.errors import SuiteError
from trajguard.suite import _yaml_lines, load_suite
from trajguard.suite._files import MAX_PROMPT_BYTES, MAX_SUITE_BYTES

CORPUS = Path(__file__).parent / "bad_suites"

SUITE = "name: demo\nscenarios:\n  - id: a\n    input: hi\n    agent: {kind: builtin}\n"
PROMPTED = (
    "name: demo\nscenarios:\n  - id: a\n    input: hi\n"
    "    agent: {kind: builtin, system_prompt_file: prompt.txt}\n"
)


@pytest.mark.parametrize(
    ("name", "line", "fragment"),
    [
        ("recursive_alias.yaml", 2, "recursive YAML alias: *a is used inside the value"),
        ("recursive_merge_key.yaml", 3, "recursive YAML alias: *d"),
        ("nested_too_deep.yaml", None, "YAML nested too deeply to parse"),
        ("alias_bomb.yaml", 7, "the YAML expands to more than 1000000 values"),
    ],
)
@pytest.mark.parametrize("fast", [True, False], ids=["libyaml", "pure-python"])
def test_both_loaders_refuse_hostile_yaml_alike(
    name: str, line: int | None, fragment: str, fast: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    if fast:
        assert _yaml_lines._FAST_LOADER is not None, "PyYAML built without libyaml"
    else:
        monkeypatch.setattr(_yaml_lines, "_FAST_LOADER", None)
    with pytest.raises(SuiteError) as caught:
        load_suite(CORPUS / name)
    assert fragment in str(caught.value)
    if line is not None:
        assert caught.value.line == line


@pytest.mark.parametrize("fast", [True, False], ids=["libyaml", "pure-python"])
def test_both_loaders_read_a_suite_alike(
    fast: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not fast:
        monkeypatch.setattr(_yaml_lines, "_FAST_LOADER", None)
    path = tmp_path / "s.yaml"
    path.write_text("\ufeff" + SUITE, encoding="utf-8")  # a BOM, as some editors write
    suite = load_suite(path)
    assert [s.id for s in suite.scenarios] == ["a"]


def test_a_fifo_suite_is_refused_without_blocking(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    os.mkfifo(path)
    with pytest.raises(SuiteError, match=r"is a FIFO \(named pipe\), not a regular file"):
        load_suite(path)


def test_a_suite_over_the_size_limit_is_refused_naming_the_override(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(SUITE + "#" * MAX_SUITE_BYTES, encoding="utf-8")
    with pytest.raises(SuiteError) as caught:
        load_suite(path)
    message = str(caught.value)
    assert f"more than the {MAX_SUITE_BYTES:,} trajguard reads" in message
    assert "$TRAJGUARD_MAX_FILE_BYTES" in message
    assert caught.value.exit_code == 2
    monkeypatch.setenv("TRAJGUARD_MAX_FILE_BYTES", str(2 * MAX_SUITE_BYTES))
    assert load_suite(path).name == "demo"


def test_a_fifo_prompt_file_is_refused_at_its_line(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(PROMPTED, encoding="utf-8")
    os.mkfifo(tmp_path / "prompt.txt")
    with pytest.raises(SuiteError) as caught:
        load_suite(path)
    assert "cannot read system_prompt_file 'prompt.txt'" in str(caught.value)
    assert "is a FIFO (named pipe), not a regular file" in str(caught.value)
    assert caught.value.line == 5


def test_a_prompt_file_over_the_size_limit_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(PROMPTED, encoding="utf-8")
    (tmp_path / "prompt.txt").write_text("x" * (MAX_PROMPT_BYTES + 1), encoding="utf-8")
    with pytest.raises(SuiteError, match=f"more than the {MAX_PROMPT_BYTES:,} trajguard reads"):
        load_suite(path)
