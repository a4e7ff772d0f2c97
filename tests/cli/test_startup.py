"""The command line starts without the heavy modules: `trajguard --help`, every `<command>
--help`, `validate` of an ATIF file and of suite files, and `docs` import none of pandas, scipy,
numpy, statsmodels, litellm, matplotlib or pyarrow (issue 21). Each case runs
`python -m trajguard.cli ARGS` in a fresh process, through a wrapper that then writes
`sorted(sys.modules)` to a file; an eager import put back anywhere on these paths fails here.
No timing is asserted (benchmarks/bench_startup.py measures it)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from trajguard_testkit.imports import command_imports

import trajguard
from trajguard.cli import build_parser

REPO = Path(__file__).resolve().parents[2]
ATIF_FILE = REPO / "tests/examples/golden/test_frozen_agent/test_reference_agent_weather.json"
DEMO = REPO / "suites" / "demo.yaml"
HEAVY = ("pandas", "scipy", "numpy", "statsmodels", "litellm", "matplotlib", "pyarrow")


def _commands() -> list[str]:
    action = next(a for a in build_parser()._actions if a.dest == "command")
    return sorted(action.choices)


def _imports(tmp_path: Path, *args: str) -> dict[str, Any]:
    """What ``python -m trajguard.cli ARGS`` imported, in a fresh process of this Python."""
    return command_imports(tmp_path, *args)


def _heavy(modules: list[str]) -> list[str]:
    return sorted({name.split(".")[0] for name in modules} & set(HEAVY))


@pytest.mark.parametrize(
    "args",
    [
        ["--help"],
        ["--version"],
        *([command, "--help"] for command in _commands()),
        ["baseline", "promote", "--help"],
        ["docs"],
        ["docs", "statistics"],
    ],
    ids=" ".join,
)
def test_help_and_docs_import_no_heavy_module(tmp_path: Path, args: list[str]) -> None:
    answer = _imports(tmp_path, *args)
    assert answer["code"] == 0, answer["stderr"]
    assert answer["stdout"], "the command printed its text"
    assert _heavy(answer["modules"]) == [], f"trajguard {' '.join(args)} imported them"


def test_validate_of_an_atif_file_imports_no_heavy_module(tmp_path: Path) -> None:
    answer = _imports(tmp_path, "validate", str(ATIF_FILE))
    assert answer["code"] == 0, answer["stderr"]
    assert f"{ATIF_FILE}: valid ATIF-v1." in answer["stdout"]
    assert _heavy(answer["modules"]) == []


def _demo_with_tolerances(folder: Path, tolerances: str) -> Path:
    """The demo suite with ``tolerances:`` on its first scenario, written into ``folder``."""
    marker = "    input: What is 17 * 23?\n"
    text = DEMO.read_text(encoding="utf-8")
    assert text.count(marker) == 1
    path = folder / "tolerant.yaml"
    path.write_text(text.replace(marker, f"{marker}    tolerances: {tolerances}\n"), "utf-8")
    return path


def test_validate_of_suites_imports_no_heavy_module(tmp_path: Path) -> None:
    """The demo suite, and one with per-scenario tolerances (checked against the bands)."""
    tolerant = _demo_with_tolerances(tmp_path, "{pass_rate: 0.2, tokens: 1.3}")
    answer = _imports(tmp_path, "validate", str(DEMO), str(tolerant))
    assert answer["code"] == 0, answer["stderr"]
    assert "2 of 2 files valid" in answer["stdout"]
    assert _heavy(answer["modules"]) == []


def test_a_bad_tolerance_in_a_suite_is_still_caught_without_them(tmp_path: Path) -> None:
    answer = _imports(tmp_path, "validate", str(_demo_with_tolerances(tmp_path, "{tokens: 0.9}")))
    assert answer["code"] == 2
    assert "tokens is a ratio above 1 (1.15 tolerates ±15 %), got 0.9" in answer["stderr"]
    assert _heavy(answer["modules"]) == []


def test_the_check_sees_heavy_imports_when_a_command_makes_them(tmp_path: Path) -> None:
    """The control: a dry run loads the batch runner, and the record shows pandas and the
    rest, so an empty list above means they were not imported."""
    answer = _imports(tmp_path, "run", str(DEMO), "--dry-run")
    assert answer["code"] == 0, answer["stderr"]
    assert {"pandas", "numpy", "pyarrow"} <= set(_heavy(answer["modules"]))


@pytest.mark.parametrize("command", _commands())
def test_a_command_parsed_alone_has_the_same_help_as_in_the_full_parser(command: str) -> None:
    """`main` registers only the command it runs (the others by name and help line): its help,
    options and defaults are the ones the full parser has."""

    def sub(parser: Any) -> Any:
        return next(a for a in parser._actions if a.dest == "command").choices[command]

    alone, full = build_parser(command), build_parser()
    assert sub(alone).format_help() == sub(full).format_help()
    assert alone.format_help() == full.format_help()


def test_the_console_scripts_exit_joins_threads_runs_atexit_and_flushes(tmp_path: Path) -> None:
    """The command line ends its process without the module teardown (trajguard.cli._exit),
    after what the interpreter's exit does first: a non-daemon thread's work is finished, the
    atexit handlers have run, the exit code and every byte of the (piped) output are there."""
    code = (
        "import atexit, pathlib, runpy, sys, threading, time\n"
        "def late():\n"
        "    time.sleep(0.5)\n"
        "    pathlib.Path('thread.txt').write_text('done')\n"
        "threading.Thread(target=late).start()\n"
        "atexit.register(lambda: pathlib.Path('atexit.txt').write_text('ran'))\n"
        "sys.argv = ['trajguard', 'validate', sys.argv[1], '/no/such/file.json']\n"
        "runpy.run_module('trajguard.cli', run_name='__main__', alter_sys=True)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(Path(trajguard.__file__).resolve().parents[1])}
    result = subprocess.run(
        [sys.executable, "-c", code, str(ATIF_FILE)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 2, result.stderr
    assert result.stdout == f"{ATIF_FILE}: valid ATIF-v1.8 (5 steps, 0 subagents)\n"
    assert result.stderr.endswith("1 of 2 files valid\n"), result.stderr
    assert (tmp_path / "thread.txt").read_text() == "done"
    assert (tmp_path / "atexit.txt").read_text() == "ran"
