"""`trajguard run`, `show` and `baseline promote` in process: option checks, output paths,
--dry-run, crash counts, promoting over a baseline. No test here calls a model: the agents are
command agents that bring their own model (`uses_model: false`, never pinged) or the command
stops before the first call."""

from __future__ import annotations

import json
import re
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from trajguard import store
from trajguard.cli import main
from trajguard.cli._progress import BatchProgress

WRITES_ATIF = """
import json, sys
steps = [
    {"step_id": 1, "source": "user", "message": "hi"},
    {"step_id": 2, "source": "agent", "message": "done"},
]
trajectory = {"schema_version": "ATIF-v1.7", "agent": {"name": "x", "version": "1"}, "steps": steps}
json.dump(trajectory, open(sys.argv[1], "w"))
"""

FAILS = "import sys; sys.exit(3)\n"


def _suite(folder: Path, *, runs: int = 2) -> Path:
    (folder / "ok_agent.py").write_text(WRITES_ATIF)
    (folder / "failing_agent.py").write_text(FAILS)
    python = json.dumps(sys.executable)
    path = folder / "suite.yaml"
    path.write_text(
        f"""name: cli
defaults:
  runs: {runs}
  model: openai/nothing-here
  api_base: http://127.0.0.1:9/v1
scenarios:
  - id: a
    agent: {{kind: command, uses_model: false, argv: [{python}, ok_agent.py, "{{output}}"]}}
    input: hi
  - id: b
    agent: {{kind: command, uses_model: false, argv: [{python}, failing_agent.py, "{{output}}"]}}
    input: hi
"""
    )
    return path


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    _suite(tmp_path)
    return tmp_path


def _error(capsys: pytest.CaptureFixture[str], args: list[str], code: int = 2) -> str:
    assert main(args) == code
    err = capsys.readouterr().err
    before, found, _ = err.partition("trajguard: error: ")
    assert found, err
    # only the start-up steps come first: "step… 0.4 s", or "step…" cut off by the error
    assert re.fullmatch(r"([^\n]+…( \d+\.\d s)?\n)*", before), err
    assert "Traceback" not in err
    return err


def _runset(path: Path, arms: dict[tuple[str, str], int], suite: str = "cli") -> Path:
    """A finished run set with ``n`` ok runs per (scenario, variant)."""
    rows: list[dict[str, Any]] = []
    for (scenario, variant), n in arms.items():
        rows += [
            {
                "run_id": f"{scenario}/{variant}/{i}",
                "batch_id": "b",
                "suite": suite,
                "scenario": scenario,
                "variant": variant,
                "run_index": i,
                "model": "m",
                "started_at": datetime(2026, 1, 1, tzinfo=UTC),
                "status": "ok",
                "passed": True,
                "crashed": False,
            }
            for i in range(n)
        ]
    store.write_runs(path / "runs.parquet", rows)
    store.write_manifest(path, {"suite": suite, "status": "finished", "models": ["m"]})
    return path


# --- crash counts: one definition (item 1) -----------------------------------------------------


def test_run_summary_counts_crashes_as_show_does(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", "suite.yaml", "--out", "rs", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "(2 crash, 2 ok); 2 passed, 2 crashed" in out, out
    assert "most common errors:\n  b/base: 2× AgentFailure: command exited with status 3:" in out
    runs = store.read_runs(project / "rs")
    failed = runs[runs["scenario"] == "b"]
    assert failed["passed"].tolist() == [False, False], "a failed command did not pass"
    for reasons in failed["failed_criteria"]:
        assert list(reasons) == [
            "no crash: the run ended as crash (AgentFailure: command exited with status 3: )"
        ]
    assert main(["show", "rs"]) == 0
    shown = capsys.readouterr().out
    assert "100%" in shown and "0% (0/2)" in shown, shown
    assert "most common errors" in shown
    assert "b / base: 2× AgentFailure: command exited with status 3:" in shown, shown


def test_progress_counts_timeouts_as_crashes(capsys: pytest.CaptureFixture[str]) -> None:
    with BatchProgress(enabled=True, label="x") as bar:
        bar.start(3, 0)
        bar.update({"status": "timeout", "crashed": None, "passed": False})
        bar.update({"status": "harness_error", "crashed": True, "passed": None})
        bar.update({"status": "ok", "crashed": False, "passed": True})
    assert "x: 3/3 · pass 1 · crash 1 · harness error 1" in capsys.readouterr().err


def test_progress_shows_a_failed_judge_apart_from_the_agents_crashes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with BatchProgress(enabled=True, label="x") as bar:
        bar.start(2, 0)
        failed = {"status": "harness_error", "crashed": None, "passed": None}
        bar.update({**failed, "error_type": "judge_failed"})
        bar.update({"status": "ok", "crashed": False, "passed": True, "error_type": None})
    err = capsys.readouterr().err
    assert "x: 2/2 · pass 1 · crash 0 · harness error 1 (judge failed 1)" in err
    bar = BatchProgress(enabled=True, label="x")
    bar.judging(2)
    assert bar._stats().endswith(" · judging 2")
    bar.judging(0)
    assert "judging" not in bar._stats()


# --- options (items 4, 11) ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--timeout", "-1"],
            "--timeout must be a number of seconds above 0 and at most 604800 (a week), got -1.0",
        ),
        (["--timeout", "0"], "--timeout must be a number of seconds above 0"),
        (["--timeout", "nan"], "--timeout must be a number of seconds above 0"),
        (["--api-base", "http://127.0.0.1:9/v1"], "--api-base is the endpoint of the model"),
        (["--model", ""], "--model '': model must be a non-empty litellm model string"),
        (
            ["--model", "local/smollm2", "--api-base", "http://x/v1"],
            "local/smollm2 runs its own server; do not pass api_base",
        ),
        (["--scenario", "zz"], "no scenario 'zz' in suite 'cli'; known: a, b"),
        (["--variant", "nope"], "has no variant 'nope'; known: base"),
    ],
)
def test_bad_options_exit_2_before_anything_is_written(
    project: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    before = sorted(project.iterdir())
    assert message in _error(capsys, ["run", "suite.yaml", "--out", "rs", *args])
    assert sorted(project.iterdir()) == before


def test_output_path_errors_name_the_path(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "afile").write_text("x")
    err = _error(capsys, ["run", "suite.yaml", "--out", "afile", "--no-progress"])
    assert "afile: output path exists and is a file" in err
    err = _error(capsys, ["run", "suite.yaml", "--out", "afile/rs", "--no-progress"])
    assert "is not a directory" in err and "afile" in err
    err = _error(capsys, ["run", "suite.yaml", "--out", "/dev/null/x", "--no-progress"])
    assert "/dev/null/x: cannot create the run set: /dev/null is not a directory" in err


def test_repeated_scenarios_and_variants_run_once(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["--scenario", "a", "--scenario", "a", "--variant", "base", "--variant", "base"]
    assert main(["run", "suite.yaml", "--out", "rs", "--no-progress", *args]) == 0
    assert sorted(store.read_runs(project / "rs")["run_id"]) == ["a/base/0", "a/base/1"]
    manifest = store.read_manifest(project / "rs")
    assert (manifest["scenarios"], manifest["variants"]) == (["a"], ["base"])


# --- --dry-run (item 10) -----------------------------------------------------------------------


def test_dry_run_prints_the_plan_and_writes_nothing(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = sorted(project.iterdir())
    args = ["run", "suite.yaml", "--dry-run", "--runs", "3", "--out", "rs"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "suite cli (" in out
    assert "2 scenarios x 1 variant → 6 runs" in out
    assert "models: openai/nothing-here" in out
    assert "  a / base: 3 runs, command agent, model openai/nothing-here" in out
    assert "run set: rs" in out
    assert "dry run: no model was called and nothing was written" in out
    assert sorted(project.iterdir()) == before


def test_dry_run_checks_the_suite_and_the_output_path(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "rs").mkdir()
    (project / "rs" / "x").write_text("x")
    err = _error(capsys, ["run", "suite.yaml", "--dry-run", "--out", "rs"])
    assert "output directory exists and is not empty" in err
    (project / "bad.yaml").write_text("name: b\nscenarios:\n  - id: a\n    input: hi\n")
    assert "required field 'agent' is missing" in _error(capsys, ["run", "bad.yaml", "--dry-run"])


# --- show (item 12) ----------------------------------------------------------------------------


def test_show_accepts_the_runs_parquet_of_a_run_set(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runset = _runset(tmp_path / "rs", {("a", "base"): 2})
    assert main(["show", str(runset / "runs.parquet")]) == 0
    assert "cli" in capsys.readouterr().out
    loose = tmp_path / "loose.parquet"
    (runset / "runs.parquet").rename(loose)
    err = _error(capsys, ["show", str(loose)])
    assert "a Parquet file outside a run set" in err and "pass the run set directory" in err


# --- baseline promote (items 4, 9) -------------------------------------------------------------


def test_promote_refuses_a_run_set_that_covers_less(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    baselines = tmp_path / "baselines"
    full = _runset(tmp_path / "full", {("a", "base"): 3, ("b", "base"): 3, ("a", "v"): 3})
    assert main(["baseline", "promote", str(full), "--baselines", str(baselines)]) == 0
    capsys.readouterr()
    for arms, fragment in [
        ({("a", "base"): 3, ("a", "v"): 3}, "scenario(s) b (in the baseline, not in"),
        ({("a", "base"): 3, ("b", "base"): 3}, "variant(s) v"),
        ({("a", "base"): 3, ("b", "base"): 2, ("a", "v"): 3}, "fewer runs for b/base: 2 < 3"),
        # (a, v) is gone although scenario a and variant v both still appear
        ({("a", "base"): 3, ("b", "base"): 3, ("b", "v"): 3}, "fewer runs for a/v: 0 < 3"),
    ]:
        smaller = _runset(tmp_path / f"small{len(fragment)}", arms)
        err = _error(capsys, ["baseline", "promote", str(smaller), "--baselines", str(baselines)])
        assert "covers less than the baseline it would replace" in err and fragment in err
        assert "--force" in err
        assert len(store.read_runs(baselines / "cli")) == 9, "the baseline is untouched"
    forced = ["baseline", "promote", str(smaller), "--baselines", str(baselines), "--force"]
    assert main(forced) == 0
    assert len(store.read_runs(baselines / "cli")) == 9
    more = _runset(
        tmp_path / "more", {("a", "base"): 4, ("b", "base"): 4, ("a", "v"): 4, ("b", "v"): 4}
    )
    assert main(["baseline", "promote", str(more), "--baselines", str(baselines)]) == 0
    assert sorted(p.name for p in baselines.iterdir()) == ["cli"]


def test_promote_onto_a_file_or_an_unwritable_path_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runset = _runset(tmp_path / "rs", {("a", "base"): 1})
    baselines = tmp_path / "baselines"
    baselines.mkdir()
    (baselines / "cli").write_text("not a run set")
    for force in ([], ["--force"]):
        args = ["baseline", "promote", str(runset), "--baselines", str(baselines), *force]
        assert "a file" in _error(capsys, args)
    assert sorted(p.name for p in baselines.iterdir()) == ["cli"], "no .old debris"
    assert (baselines / "cli").read_text() == "not a run set"
    err = _error(capsys, ["baseline", "promote", str(runset), "--baselines", "/dev/null/bl"])
    assert "cannot write the run set" in err and "/dev/null" in err


def test_promote_refuses_to_replace_a_directory_that_is_not_a_run_set(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runset = _runset(tmp_path / "rs", {("a", "base"): 1})
    (tmp_path / "baselines" / "cli").mkdir(parents=True)
    (tmp_path / "baselines" / "cli" / "notes.txt").write_text("mine")
    args = ["baseline", "promote", str(runset), "--baselines", str(tmp_path / "baselines")]
    assert "is not a run set (no manifest.json)" in _error(capsys, args)
    assert main([*args, "--force"]) == 0
