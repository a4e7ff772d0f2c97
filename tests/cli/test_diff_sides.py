"""`trajguard diff A B` shows both sides (issue 39): the calculator case with each run's call
and result marked, hostile text escaped, a huge result cut, exit 1."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from trajguard._text import CONTROL
from trajguard.cli import main
from trajguard.core import FIRST_DIVERGENCE


def _atif(path: Path, expression: str, result: str, final: str) -> Path:
    trajectory: dict[str, Any] = {
        "schema_version": "ATIF-v1.6",
        "session_id": path.stem,
        "agent": {"name": "calc", "version": "1"},
        "steps": [
            {"step_id": 1, "source": "user", "message": "What is 17 * 23?"},
            {
                "step_id": 2,
                "source": "agent",
                "message": "",
                "tool_calls": [
                    {
                        "tool_call_id": f"{path.stem}-1",
                        "function_name": "calculator",
                        "arguments": {"expression": expression},
                    }
                ],
                "observation": {
                    "results": [{"source_call_id": f"{path.stem}-1", "content": result}]
                },
            },
            {"step_id": 3, "source": "agent", "message": final},
        ],
    }
    path.write_text(json.dumps(trajectory))
    return path


def _steps(out: str) -> list[str]:
    lines = out.split("\n")
    start = next(i for i, line in enumerate(lines) if line.startswith("steps (A B):"))
    end = lines.index("normalised diff:")
    return [line for line in lines[start + 1 : end] if line]


def test_the_calculator_case_marks_what_each_run_did(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a = _atif(tmp_path / "a.json", "{17} * {23}", "cannot evaluate", "I could not compute it.")
    b = _atif(tmp_path / "b.json", "17 * 23", "391", "17 * 23 = 391.")
    assert main(["diff", str(a), str(b)]) == 1
    steps = _steps(capsys.readouterr().out)
    assert steps[0] == "    user: What is 17 * 23?"
    assert steps[1] == (f"  ~ agent: changed calculator's arguments and result  {FIRST_DIVERGENCE}")
    assert steps[2] == '      A: calculator(expression="{17} * {23}") → cannot evaluate'
    assert steps[3] == '      B: calculator(expression="17 * 23") → 391'
    unmarked = [s for s in steps if "391" in s and not s.lstrip().startswith("B:")]
    assert unmarked == []  # before issue 39 B's "→ 391" lines were shown as both runs'


def test_hostile_text_is_escaped_and_a_huge_result_is_cut(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hostile = "\x1b]8;;http://evil\x07click\x1b]8;;\x07 \x1b[2J\u202e"
    huge = "x" * 2_000_000
    a = _atif(tmp_path / "a.json", hostile, huge + "1", hostile)
    b = _atif(tmp_path / "b.json", "ok", huge + "2", "fine")
    assert main(["diff", str(a), str(b), "--max-lines", "40"]) == 1
    out = capsys.readouterr().out
    assert CONTROL.search(out.replace("\n", "")) is None
    assert "\\x1b]8;;http://evil\\x07click" in out and "\\u202e" in out
    assert len(out) < 40_000
    steps = _steps(out)
    assert max(len(s) for s in steps) < 220
    assert steps[2].startswith("      A: calculator(expression=") and steps[2].endswith("x1")
    assert steps[3].endswith("x2")  # cut around where the results differ, so it shows
