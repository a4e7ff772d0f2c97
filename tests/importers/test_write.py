"""Imported runs → an ordinary run set: rows, manifest, atomic writing, refusals."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from trajguard.atif import Agent, Metrics, Step, ToolCall, Trajectory
from trajguard.errors import StoreError
from trajguard.importers import (
    IMPORTED_KEY,
    ImportedBatch,
    ImportedCriterion,
    ImportedRun,
    write_batch,
)
from trajguard.store import load_runset


def _missing(value: object) -> bool:
    """A null cell as pandas reads it: None or NaN."""
    return value is None or value != value


def _trajectory(answer: str) -> Trajectory:
    return Trajectory(
        agent=Agent(name="tool-x", version="1.0", model_name="m"),
        steps=[
            Step(step_id=1, source="user", message="What is 2+2?"),
            Step(
                step_id=2,
                source="agent",
                model_name="m",
                message="",
                tool_calls=[ToolCall(tool_call_id="c1", function_name="add", arguments={})],
                metrics=Metrics(prompt_tokens=10, completion_tokens=3),
            ),
            Step(
                step_id=3,
                source="agent",
                model_name="m",
                message=answer,
                metrics=Metrics(prompt_tokens=14, completion_tokens=2),
            ),
        ],
    )


def _batch(**changes: object) -> ImportedBatch:
    start = datetime(2026, 12, 1, 3, 0, tzinfo=UTC)
    runs = (
        ImportedRun(
            scenario="sum",
            run_index=0,
            model="m",
            passed=True,
            criteria=(ImportedCriterion(name="match", held=True, value="C"),),
            trajectory=_trajectory("4"),
            started_at=start,
            duration_s=1.5,
            source_ref="log.eval#sum/1",
        ),
        ImportedRun(
            scenario="sum",
            run_index=1,
            model="m",
            passed=False,
            criteria=(ImportedCriterion(name="match", held=False, value="I", reason="said 5"),),
            trajectory=_trajectory("5"),
            source_ref="log.eval#sum/2",
        ),
        ImportedRun(
            scenario="sum",
            run_index=2,
            model="m",
            status="agent_error",
            crashed=True,
            criteria=(ImportedCriterion(name="match", held=None),),
            error_type="token_limit",
            error_message="the sample hit its token limit",
            source_ref="log.eval#sum/3",
        ),
        ImportedRun(
            scenario="greet",
            run_index=0,
            model="m",
            passed=True,
            prompt_tokens=7,
            completion_tokens=1,
            final_output="hi",
            source_ref="log.eval#greet/1",
        ),
    )
    fields: dict[str, object] = {
        "source": "inspect",
        "suite": "arith",
        "runs": runs,
        "files": ("log.eval",),
        "provenance": {"inspect_version": "0.3"},
        "lacks": ("timings of some samples",),
        "pass_rule": "a sample passes when its value is C",
        "started_at": start,
    }
    fields.update(changes)
    return ImportedBatch(**fields)  # type: ignore[arg-type]


def test_rows_carry_what_the_source_recorded_and_nothing_else(tmp_path: Path) -> None:
    write_batch(_batch(), tmp_path / "set")
    runset = load_runset(tmp_path / "set")
    rows = runset.runs.set_index("run_id")
    assert list(rows.index) == ["sum/base/0", "sum/base/1", "sum/base/2", "greet/base/0"]
    first = rows.loc["sum/base/0"]
    assert first["passed"]
    assert first["llm_calls"] == 2
    assert list(first["tool_sequence"]) == ["add"]
    assert (first["prompt_tokens"], first["completion_tokens"]) == (24, 5)
    assert first["final_output"] == "4"
    assert first["duration_s"] == 1.5
    assert first["criteria"][0]["reason"] == "value C"
    second = rows.loc["sum/base/1"]
    assert not second["passed"]
    assert list(second["failed_criteria"]) == ["match: said 5"]
    assert second["criteria"][0]["reason"] == "value I: said 5"
    crashed = rows.loc["sum/base/2"]
    assert crashed["status"] == "agent_error"
    assert not crashed["passed"]
    assert crashed["failed_criteria"][0].startswith("no crash: the run ended as agent_error")
    assert _missing(crashed["trajectory"])
    greet = rows.loc["greet/base/0"]
    assert greet["total_tokens"] == 8
    assert _missing(greet["trajectory"])
    assert _missing(greet["llm_calls"])  # missing, not invented as 0


def test_the_manifest_is_a_finished_batch_that_names_its_source(tmp_path: Path) -> None:
    manifest = write_batch(_batch(), tmp_path / "set")
    assert manifest == load_runset(tmp_path / "set").manifest
    assert manifest["status"] == "finished"
    assert manifest["suite"] == "arith"
    assert manifest["scenarios"] == ["greet", "sum"]
    assert manifest["runs"] == 3
    assert manifest[IMPORTED_KEY]["source"] == "inspect"
    assert manifest[IMPORTED_KEY]["lacks"] == ["timings of some samples"]
    again = write_batch(_batch(), tmp_path / "again")
    assert again["batch_id"] == manifest["batch_id"]  # the same logs, the same batch


def test_an_existing_run_set_is_refused_and_kept(tmp_path: Path) -> None:
    out = tmp_path / "set"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    with pytest.raises(StoreError, match="not empty"):
        write_batch(_batch(), out)
    assert [p.name for p in out.iterdir()] == ["keep.txt"]


def test_two_runs_with_one_id_are_refused_before_anything_is_written(tmp_path: Path) -> None:
    batch = _batch()
    doubled = _batch(runs=(*batch.runs, batch.runs[0]))
    with pytest.raises(StoreError, match="occur more than once"):
        write_batch(doubled, tmp_path / "set")
    assert list(tmp_path.iterdir()) == []


def test_a_failure_while_writing_leaves_no_run_set(tmp_path: Path) -> None:
    calls = []

    def stop(done: int, total: int) -> None:
        calls.append(done)
        if done == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        write_batch(_batch(), tmp_path / "set", progress=stop)
    assert calls == [1, 2]
    assert list(tmp_path.iterdir()) == []
