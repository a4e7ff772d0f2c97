"""The README shows the test command CI runs, and stays a page a newcomer reads top to bottom.

Every command's reference lives in the documentation site (docs/reference/cli.md, generated from
the parser, with its own freshness test); the README's commands run in tests/docs."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_ci_runs_the_readme_test_command() -> None:
    ci = (ROOT / ".ci" / "run").read_text()
    command = re.search(r"TEST_COMMAND='([^']+)'", ci)
    assert command is not None
    assert command.group(1) in README


def test_the_readme_is_short_with_short_lines() -> None:
    lines = README.splitlines()
    assert len(lines) <= 200, f"the README has {len(lines)} lines (issue 27: at most about 200)"
    long = [n for n, line in enumerate(lines, start=1) if len(line) > 200]
    assert long == [], f"README lines over 200 characters: {long}"


def test_the_readme_links_each_path_to_its_page() -> None:
    for target in (
        "docs/tutorial.md",
        "docs/index.md",
        "docs/how-to/nightly.md",
        "docs/how-to/ab.md",
        "docs/how-to/frozen-mode.md",
    ):
        assert f"]({target})" in README, target
