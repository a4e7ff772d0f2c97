"""Inspect AI logs → runs: the mapping on logs `inspect eval` wrote against the embedded model.

The fixtures (data/inspect/, README.md there) are real logs: two prompt variants x 4 samples x
10 epochs (.eval), variant a again as a .json log, a log whose model endpoint was down and one
whose tool raised. Figures the tests check against are read from the logs by Inspect itself.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from inspect_ai.log import read_eval_log

from trajguard.atif import validate
from trajguard.errors import SourceLogError, UsageError
from trajguard.importers import ImportOptions, read_logs
from trajguard.importers._inspect import read

DATA = Path(__file__).parent / "data" / "inspect"
LOG_A = DATA / "qa-a.eval"
LOG_B = DATA / "qa-b.eval"
LOG_JSON = DATA / "qa-a.json"
LOG_DEAD = DATA / "qa-dead.eval"
LOG_BROKEN = DATA / "qa-broken.eval"
SCENARIOS = ["capital", "sky", "legs", "add"]


def test_each_sample_and_epoch_is_one_run_of_its_scenario() -> None:
    batch = read([LOG_A], ImportOptions())
    assert batch.source == "inspect"
    assert batch.suite == "qa"
    assert len(batch.runs) == 40
    assert [run.scenario for run in batch.runs[::10]] == SCENARIOS
    assert [run.run_index for run in batch.runs[:10]] == list(range(10))
    assert {run.model for run in batch.runs} == {"openai-api/local/smollm2"}
    assert {run.variant for run in batch.runs} == {"base"}
    assert batch.descriptions["capital"] == "What is the capital of France?"
    assert batch.provenance["logs"][0]["task_args"] == {"variant": "a"}


def test_scores_become_criteria_with_the_scorers_value_kept() -> None:
    log = read_eval_log(str(LOG_A))
    values = {(str(s.id), s.epoch): s.scores["includes"].value for s in log.samples or []}
    for run in read([LOG_A], ImportOptions()).runs:
        value = values[(run.scenario, run.run_index + 1)]
        (criterion,) = run.criteria
        assert (criterion.name, criterion.value) == ("includes", value)
        assert criterion.held is (value == "C")
        assert run.passed is (value == "C" and run.status == "ok")
    assert {c.value for run in read([LOG_A], ImportOptions()).runs for c in run.criteria} == {
        "C",
        "I",
    }


def test_tokens_timings_and_statuses_are_the_logs() -> None:
    log = read_eval_log(str(LOG_A))
    by_key = {(str(s.id), s.epoch): s for s in log.samples or []}
    for run in read([LOG_A], ImportOptions()).runs:
        sample = by_key[(run.scenario, run.run_index + 1)]
        usage = sample.model_usage["openai-api/local/smollm2"]
        assert (run.prompt_tokens, run.completion_tokens) == (
            usage.input_tokens,
            usage.output_tokens,
        )
        assert run.duration_s == sample.total_time
        assert (
            run.started_at is not None
            and run.started_at.isoformat()[:19] == str(sample.started_at)[:19]
        )
        if sample.limit is not None:
            assert (run.status, run.error_type) == ("agent_error", f"{sample.limit.type}_limit")
            assert run.crashed is True
        else:
            assert (run.status, run.error_type, run.crashed) == ("ok", None, False)


def test_trajectories_are_valid_atif_with_the_tool_calls() -> None:
    runs = read([LOG_A], ImportOptions()).runs
    for run in runs:
        assert run.trajectory is not None
        report = validate(run.trajectory.model_dump(mode="json", exclude_none=True))
        assert report.valid, report.errors
        sources = [step.source for step in run.trajectory.steps]
        assert sources[:3] == ["system", "user", "agent"]
    calls = [
        call
        for run in runs
        if run.scenario == "add"
        for step in run.trajectory.steps  # type: ignore[union-attr]
        for call in step.tool_calls or ()
    ]
    assert calls and {call.function_name for call in calls} == {"add"}
    observed = [
        result.content
        for run in runs
        if run.scenario == "add"
        for step in run.trajectory.steps  # type: ignore[union-attr]
        if step.observation
        for result in step.observation.results
    ]
    assert len(observed) == len(calls)


def test_inspects_reader_and_the_builtin_one_give_the_same_runs() -> None:
    logs = [*sorted(DATA.glob("*.eval")), LOG_JSON]
    assert {LOG_A, LOG_B, LOG_DEAD, LOG_BROKEN, DATA / "react-submit.eval"} <= set(logs)
    for log in logs:
        native = read([log], ImportOptions(), reader="inspect")
        builtin = read([log], ImportOptions(), reader="builtin")
        assert native.runs == builtin.runs
        assert native.lacks == builtin.lacks
        assert native.provenance["reader"] == "inspect_ai.log"
        assert builtin.provenance["reader"] == "built-in"


def test_the_json_log_maps_like_the_eval_log() -> None:
    batch = read([LOG_JSON], ImportOptions())
    log = read_eval_log(str(LOG_JSON))
    assert len(batch.runs) == len(log.samples or []) == 8
    assert Counter(run.scenario for run in batch.runs) == dict.fromkeys(SCENARIOS, 2)
    assert all(run.source_ref.startswith("qa-a.json:$.samples[") for run in batch.runs)


def test_a_model_endpoint_error_is_a_harness_error() -> None:
    batch = read([LOG_DEAD], ImportOptions())
    assert batch.runs and {run.status for run in batch.runs} == {"harness_error"}
    for run in batch.runs:
        assert run.passed is None and run.criteria == ()
        assert "APIConnectionError" in (run.error_message or "")
    assert "scores" in batch.lacks and "token usage" in batch.lacks


def test_a_tool_that_raises_is_a_crash() -> None:
    batch = read([LOG_BROKEN], ImportOptions())
    assert batch.runs and {run.status for run in batch.runs} == {"crash"}
    for run in batch.runs:
        assert run.error_type == "RuntimeError"
        assert "the add tool is broken" in (run.error_message or "")
        assert run.crashed is True


def test_pass_if_overrides_the_default_rule() -> None:
    runs = read([LOG_A], ImportOptions(pass_rule="in C,I")).runs
    assert {c.held for run in runs for c in run.criteria} == {True}
    batch = read([LOG_A], ImportOptions(pass_rule="==I"))
    assert all(c.held is (c.value == "I") for run in batch.runs for c in run.criteria)
    assert "'==I'" in batch.pass_rule


def test_scorer_must_be_one_of_the_logs() -> None:
    assert "'includes'" in read([LOG_A], ImportOptions(scorer="includes")).pass_rule
    with pytest.raises(UsageError, match="no such scorer") as caught:
        read([LOG_A], ImportOptions(scorer="accuracy"))
    assert "includes" in str(caught.value)


def test_logs_of_two_tasks_qualify_the_scenarios_with_the_task(tmp_path: Path) -> None:
    other = tmp_path / "qa2.json"
    other.write_text(LOG_JSON.read_text().replace('"task": "qa"', '"task": "qa2"', 1))
    batch = read_logs("inspect", [LOG_JSON, other], ImportOptions())
    assert batch.suite == "qa-qa2"
    assert {run.scenario for run in batch.runs} == {
        f"{task}/{name}" for task in ("qa", "qa2") for name in SCENARIOS
    }


def test_a_folder_of_logs_reads_every_log(tmp_path: Path) -> None:
    folder = tmp_path / "logs"
    folder.mkdir()
    (folder / "a.eval").write_bytes(LOG_A.read_bytes())
    (folder / "notes.txt").write_text("not a log")
    batch = read([folder], ImportOptions())
    assert len(batch.runs) == 40 and batch.files == (str(folder / "a.eval"),)


def test_an_unknown_reader_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRAJGUARD_INSPECT_READER", "fast")
    with pytest.raises(UsageError, match="TRAJGUARD_INSPECT_READER"):
        read([LOG_A], ImportOptions())


@pytest.mark.parametrize("reader", ["inspect", "builtin"])
def test_a_truncated_eval_log_names_the_file(tmp_path: Path, reader: str) -> None:
    broken = tmp_path / "cut.eval"
    broken.write_bytes(LOG_A.read_bytes()[: LOG_A.stat().st_size // 2])
    with pytest.raises(SourceLogError) as caught:
        read([broken], ImportOptions(), reader=reader)
    assert caught.value.file == str(broken)


def test_a_json_log_without_a_task_names_the_field(tmp_path: Path) -> None:
    text = LOG_JSON.read_text()
    bad = tmp_path / "no-task.json"
    bad.write_text(text.replace('"task": "qa"', '"task": ""', 1))
    with pytest.raises(SourceLogError) as caught:
        read([bad], ImportOptions(), reader="builtin")
    assert (caught.value.file, caught.value.path) == (str(bad), "$.eval.task")


def test_a_sample_without_an_epoch_names_the_sample(tmp_path: Path) -> None:
    import json

    data = json.loads(LOG_JSON.read_text())
    del data["samples"][3]["epoch"]
    bad = tmp_path / "no-epoch.json"
    bad.write_text(json.dumps(data))
    with pytest.raises(SourceLogError) as caught:
        read([bad], ImportOptions(), reader="builtin")
    assert caught.value.path == "$.samples[3]: $.epoch"


def test_another_tools_json_is_not_an_inspect_log(tmp_path: Path) -> None:
    other = tmp_path / "results.json"
    other.write_text('{"results": {"results": []}, "config": {}}')
    with pytest.raises(SourceLogError, match="not an Inspect log"):
        read([other], ImportOptions())
