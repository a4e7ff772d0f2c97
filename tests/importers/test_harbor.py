"""Harbor job directories → run sets: the mapping on real `harbor run` jobs (tests/importers/
data/harbor, written by harbor_side/make_fixtures.py against the embedded model), and bad input."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from trajguard.atif import trajectory_to_dict, validate
from trajguard.errors import SourceLogError
from trajguard.importers import ImportOptions, read_logs
from trajguard.importers._harbor import detect

DATA = Path(__file__).parent / "data" / "harbor"
TERSE, RIDDLE, ERRORS = DATA / "terse", DATA / "riddle", DATA / "errors"


def trial_results(job: Path) -> dict[str, dict[str, Any]]:
    """Each trial's result.json as Harbor wrote it, by trial name."""
    results = {}
    for file in sorted(job.glob("*__*/result.json")):
        document = json.loads(file.read_text())
        results[document["trial_name"]] = document
    return results


def test_a_job_directory_and_a_trial_directory_are_detected_as_harbor(tmp_path: Path) -> None:
    trial = next(TERSE.glob("capital__*"))
    assert detect(TERSE) and detect(trial)
    assert not detect(DATA)  # a folder of jobs is not one job
    assert not detect(trial / "result.json")
    (tmp_path / "result.json").write_text('{"eval": {"task": "x"}}')
    assert not detect(tmp_path)


def test_each_trial_is_a_run_of_its_task_in_the_order_harbor_started_them() -> None:
    batch = read_logs("harbor", [TERSE])
    harbor = trial_results(TERSE)
    assert batch.source == "harbor" and batch.suite == "tasks"  # the dataset harbor ran
    assert {r.scenario for r in batch.runs} == {"capital", "colour"}
    assert len(batch.runs) == len(harbor) == 20
    for task in ("capital", "colour"):
        runs = [r for r in batch.runs if r.scenario == task]
        assert [r.run_index for r in runs] == list(range(10))
        starts = [r.started_at for r in runs]
        assert starts == sorted(starts)  # type: ignore[type-var]
        assert len({r.config_hash for r in runs}) == 1  # one task, one agent definition
    assert batch.provenance["jobs"][0]["harbor_version"] == "0.26.0"
    assert batch.provenance["jobs"][0]["n_attempts"] == 10


def test_rewards_status_tokens_and_trajectories_are_harbors_own() -> None:
    batch = read_logs("harbor", [TERSE])
    harbor = trial_results(TERSE)
    for run in batch.runs:
        trial = harbor[run.source_ref.split("/")[-1]]
        reward = trial["verifier_result"]["rewards"]["reward"]
        assert run.status == "ok" and run.error_type is None
        assert run.passed is (reward >= 1.0)
        assert [(c.name, c.value, c.held) for c in run.criteria] == [
            ("reward", repr(float(reward)), reward >= 1.0)
        ]
        assert run.model == "openai/smollm2"
        assert run.prompt_tokens == trial["agent_result"]["n_input_tokens"] > 0
        assert run.completion_tokens == trial["agent_result"]["n_output_tokens"] > 0
        assert run.duration_s is not None and run.duration_s > 0
        assert run.trajectory is not None
        report = validate(trajectory_to_dict(run.trajectory))
        assert report.valid, report.errors
        assert run.trajectory.steps[-1].tool_calls[0].function_name == "write_answer"  # type: ignore[index]
    passed = [r.passed for r in batch.runs]
    assert True in passed and False in passed  # the fixture exercises both outcomes


def test_harbors_exceptions_become_statuses() -> None:
    batch = read_logs("harbor", [ERRORS])
    by_task = {r.scenario: r for r in batch.runs}
    assert by_task.keys() == {"slow-answer", "no-reward", "no-app"}
    assert (by_task["slow-answer"].status, by_task["slow-answer"].error_type) == (
        "timeout",
        "AgentTimeoutError",
    )
    assert (by_task["no-reward"].status, by_task["no-reward"].error_type) == (
        "harness_error",
        "RewardFileNotFoundError",
    )
    assert by_task["no-reward"].passed is None
    assert (by_task["no-app"].status, by_task["no-app"].error_type) == (
        "crash",
        "RuntimeError",
    )
    assert "write_answer failed" in (by_task["no-app"].error_message or "")
    # the agent raised before writing its trajectory: the run is kept, without one
    assert by_task["no-app"].trajectory is None
    assert any(
        "no-app__" in phrase and "no agent/trajectory.json" in phrase for phrase in batch.lacks
    )


def test_a_trajectory_that_is_not_atif_keeps_the_run_without_it(tmp_path: Path) -> None:
    job = tmp_path / "job"
    shutil.copytree(TERSE, job)
    trial = sorted(job.glob("capital__*"))[0]
    (trial / "agent" / "trajectory.json").write_text('{"schema_version": "ATIF-v1.8", "steps": 3}')
    batch = read_logs("harbor", [job])
    assert len(batch.runs) == 20
    broken = [r for r in batch.runs if r.source_ref.endswith(trial.name)]
    assert broken[0].trajectory is None and broken[0].passed is not None
    assert any(f"1 of 20 trials (first: {trial.name}" in phrase for phrase in batch.lacks)


def _with_rewards(tmp_path: Path, rewards: dict[str, float]) -> Path:
    trial = tmp_path / sorted(TERSE.glob("colour__*"))[0].name
    shutil.copytree(sorted(TERSE.glob("colour__*"))[0], trial)
    result = json.loads((trial / "result.json").read_text())
    result["verifier_result"]["rewards"] = rewards
    (trial / "result.json").write_text(json.dumps(result))
    return trial


def test_fractional_and_several_rewards_pass_if_and_scorer(tmp_path: Path) -> None:
    trial = _with_rewards(tmp_path, {"reward": 0.5, "style": 1.0})
    [run] = read_logs("harbor", [trial]).runs
    assert run.passed is False  # by default every reward must be >= 1.0
    assert [(c.name, c.held) for c in run.criteria] == [("reward", False), ("style", True)]
    [run] = read_logs("harbor", [trial], ImportOptions(pass_rule=">=0.5")).runs
    assert run.passed is True
    [run] = read_logs("harbor", [trial], ImportOptions(scorer="style")).runs
    assert run.passed is True and [c.name for c in run.criteria] == ["style"]
    with pytest.raises(SourceLogError) as error:
        read_logs("harbor", [trial], ImportOptions(scorer="accuracy"))
    assert error.value.file == str(trial / "result.json")
    assert error.value.path == "$.verifier_result.rewards"
    assert "reward, style" in (error.value.hint or "")


def test_a_truncated_result_names_the_file(tmp_path: Path) -> None:
    job = tmp_path / "job"
    shutil.copytree(TERSE, job)
    trial = sorted(job.glob("colour__*"))[3]
    text = (trial / "result.json").read_text()
    (trial / "result.json").write_text(text[: len(text) // 2])
    with pytest.raises(SourceLogError) as error:
        read_logs("harbor", [job])
    assert error.value.file == str(trial / "result.json")
    assert "not JSON" in error.value.message


def test_a_result_without_task_name_names_the_field(tmp_path: Path) -> None:
    trial = _with_rewards(tmp_path, {"reward": 1.0})
    result = json.loads((trial / "result.json").read_text())
    del result["task_name"]
    (trial / "result.json").write_text(json.dumps(result))
    with pytest.raises(SourceLogError) as error:
        read_logs("harbor", [trial])
    assert (error.value.file, error.value.path) == (str(trial / "result.json"), "$.task_name")


def test_the_cli_refuses_bad_input_with_exit_2_and_writes_nothing(cli: Any, tmp_path: Path) -> None:
    job = tmp_path / "job"
    shutil.copytree(TERSE, job)
    trial = sorted(job.glob("capital__*"))[0]
    (trial / "result.json").write_text('{"task_name": "capital", ')
    out = tmp_path / "runs"
    done = cli("import", "harbor", str(job), "--out", str(out), cwd=tmp_path)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr and str(trial / "result.json") in done.stderr
    assert not out.exists()
    other = tmp_path / "not-a-job"
    other.mkdir()
    (other / "notes.txt").write_text("hello")
    done = cli("import", "harbor", str(other), "--out", str(out), cwd=tmp_path)
    assert done.returncode == 2 and "not a Harbor job or trial directory" in done.stderr
    assert "Traceback" not in done.stderr and not out.exists()
    assert list(tmp_path.iterdir()) == sorted(tmp_path.iterdir())  # nothing staged left
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".trajguard-import-")]


def test_an_imported_job_is_an_ordinary_run_set(cli: Any, tmp_path: Path) -> None:
    out = tmp_path / "terse"
    done = cli("import", "harbor", str(TERSE), str(ERRORS), "--out", str(out), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    rows = pq.read_table(out / "runs.parquet").to_pylist()
    assert len(rows) == 23
    statuses = {
        r["scenario"]: r["status"] for r in rows if r["scenario"] in ("no-app", "no-reward")
    }
    assert statuses == {"no-app": "crash", "no-reward": "harness_error"}
    listing = cli("runs", str(out), cwd=tmp_path)
    assert listing.returncode == 0, listing.stderr
    assert "capital/base/9" in listing.stdout and "no-reward/base/0" in listing.stdout
    shown = cli("show", str(out), "--run", "capital/base/0", cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert "write_answer" in shown.stdout
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["imported"]["source"] == "harbor"
    assert "reward of 1" in manifest["imported"]["pass_rule"]
