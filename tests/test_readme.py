"""The README's test command is the one CI runs, and every CLI command is documented."""

from __future__ import annotations

import re
from pathlib import Path

from trajguard.cli import build_parser

ROOT = Path(__file__).resolve().parents[1]


def test_ci_runs_the_readme_test_command() -> None:
    ci = (ROOT / ".ci" / "run").read_text()
    command = re.search(r"TEST_COMMAND='([^']+)'", ci)
    assert command is not None
    assert command.group(1) in (ROOT / "README.md").read_text()


def test_every_cli_command_is_in_the_readme() -> None:
    readme = (ROOT / "README.md").read_text()
    parser = build_parser()
    commands = next(a for a in parser._actions if a.dest == "command").choices
    assert commands
    for name in commands:
        assert f"trajguard {name}" in readme, f"`trajguard {name}` is not documented"
