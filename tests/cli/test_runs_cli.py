"""`trajguard runs`, `show --run`, `export` and `diff` in process: output, filters, exit codes,
an unknown run id (exit 2, nearest ids), old run sets, shortened errors that name a run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from trajguard_testkit.runsets import make_row, write_runset

from trajguard._text import CONTROL
from trajguard.cli import main

REPO = Path(__file__).resolve().parents[2]
OLD_NIGHT = REPO / "benchmarks" / "data" / "real-nights-2026-12-01" / "edited-seed1"
LONG_ERROR = (
    "AgentRunner stopped: the model produced an answer that could not be parsed after the "
    "maximum number of turns, so the run ends here; to let it finish set "
    "early_stopping_method='generate' on the executor or raise max_iterations"
)


@pytest.fixture
def runset(tmp_path: Path) -> Path:
    rows = [
        make_row("capital", 0, ["lookup_country"]),
        make_row("capital", 1, ["get_weather"], "It is \x1b[31mSydney\x1b[0m."),
        make_row("capital", 2, ["lookup_country"], status="agent_error", error_message=LONG_ERROR),
    ]
    rows[2]["error_type"] = "OutputParserException"
    return write_runset(tmp_path / "rs", rows)


def test_runs_lists_one_line_per_run(runset: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["runs", str(runset)]) == 0
    out, err = capsys.readouterr()
    lines = out.splitlines()
    assert len(lines) == 3 and err.strip() == "3 runs"
    assert lines[0].startswith("capital/base/0  #0  ok  passed  failed: -  3 steps  lookup_country")
    assert "failed: tool_called: lookup_country; tool_not_called: get_weather; " in lines[1]
    assert "failed: no crash  " in lines[2]


def test_runs_filters_and_json(runset: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["runs", str(runset), "--failed", "--criterion", "tool_not_called", "--json"]) == 0
    (line,) = capsys.readouterr().out.splitlines()
    record = json.loads(line)
    assert record["run_id"] == "capital/base/1" and record["tool_sequence"] == ["get_weather"]
    assert main(["runs", str(runset), "--sequence", "lookup_country", "--passed"]) == 0
    assert capsys.readouterr().out.splitlines()[0].startswith("capital/base/0 ")


def test_passed_and_failed_do_not_combine(runset: Path) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["runs", str(runset), "--passed", "--failed"])
    assert caught.value.code == 2


def test_show_run_prints_the_run_escaped(runset: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", str(runset), "--run", "capital/base/1"]) == 0
    out = capsys.readouterr().out
    assert "✗ tool_not_called: get_weather — get_weather called 1 times, expected none" in out
    assert "It is \\x1b[31mSydney\\x1b[0m." in out
    assert not any(m.group() != "\n" for m in CONTROL.finditer(out))


def test_show_run_prints_the_whole_error(runset: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", str(runset), "--run", "capital/base/2"]) == 0
    assert LONG_ERROR in capsys.readouterr().out


def test_an_unknown_run_exits_2_with_the_nearest_ids(
    runset: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["show", str(runset), "--run", "capital/base/7"]) == 2
    err = capsys.readouterr().err
    assert "no run 'capital/base/7' in the run set" in err
    assert "nearest run ids: capital/base/2, capital/base/1, capital/base/0" in err
    assert "Traceback" not in err


def test_show_summary_shortens_errors_and_names_a_run(
    runset: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["show", str(runset)]) == 0
    out = " ".join(capsys.readouterr().out.split())  # rich wraps long lines
    assert "1× OutputParserException: AgentRunner stopped:" in out
    assert f"(whole message: trajguard show {runset} --run capital/base/2)" in out
    assert "early_stopping_meth" not in out.replace("early_stopping_method", "")


def test_an_old_run_set_is_listed_and_shown(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["runs", str(OLD_NIGHT), "--scenario", "multiply", "--limit", "3"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 3
    assert main(["show", str(OLD_NIGHT), "--run", "capital/base/11"]) == 0
    out = capsys.readouterr().out
    assert "final_output_contains: final output does not contain 'Canberra'" in out
    assert "the criteria that held are unknown" in out


def test_export_and_diff(runset: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "atif"
    assert main(["export", str(runset), "--out", str(out), "--scenario", "capital"]) == 0
    assert "3 ATIF files written" in capsys.readouterr().out
    first, second = out / "capital__base__0.json", out / "capital__base__1.json"
    assert main(["diff", str(first), str(first)]) == 0
    assert "no difference after normalisation" in capsys.readouterr().out
    assert main(["diff", str(first), f"{runset}:capital/base/1"]) == 1
    shown = capsys.readouterr().out
    assert shown.index("shape deltas:") < shown.index("steps (A B):") < shown.index("normalised")
    assert "[structure] tool_calls: [lookup_country] → [get_weather]" in shown
    assert main(["diff", str(second), "nowhere"]) == 2
    assert "neither an ATIF file nor RUNSET:RUN" in capsys.readouterr().err
