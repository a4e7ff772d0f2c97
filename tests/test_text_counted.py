"""One helper puts a count and its noun in the same number: never "1 runs"."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from trajguard._text import counted
from trajguard.cli import main


def test_a_count_takes_the_noun_in_its_number() -> None:
    assert [counted(n, "run") for n in (0, 1, 2)] == ["0 runs", "1 run", "2 runs"]
    assert counted(1, "scenario test") == "1 scenario test"
    assert counted(3, "was", "were") == "3 were"


def test_one_run_and_one_scenario_read_as_singular(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        "name: one\ndefaults: {runs: 1}\nscenarios:\n"
        f"  - id: s\n    input: hi\n    agent: {{kind: command, argv: [{sys.executable}], "
        "uses_model: false}\n"
    )
    assert main(["validate", str(suite)]) == 0
    out = capsys.readouterr().out
    assert "(1 scenario," in out, out
    assert main(["run", str(suite), "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "1 scenario x 1 variant → 1 run," in out, out
    assert "1 runs" not in out and "1 scenarios" not in out
