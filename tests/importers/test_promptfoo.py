"""The promptfoo importer on results files promptfoo 0.121.20 wrote against the embedded model
(tests/importers/data/promptfoo/README.md): the mapping, the pass rules, and bad input."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from trajguard.atif import validate
from trajguard.errors import SourceLogError, UsageError
from trajguard.importers import ImportOptions, detect_source, import_logs, read_logs
from trajguard.store import load_runset

DATA = Path(__file__).parent / "data" / "promptfoo"
VARIANT_A = DATA / "variant_a.json"
VARIANT_B = DATA / "variant_b.json"
PROVIDER_ERROR = DATA / "provider_error.json"
SCENARIOS = ["capital-of-France", "two-plus-two", "sky-colour", "test-3"]


def _rows(path: Path) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = json.loads(path.read_text())["results"]["results"]
    return rows


def _row_of(ref: str) -> dict[str, Any]:
    """The promptfoo row an imported run says it came from (``file: $.results.results[i]``)."""
    file, _, where = ref.partition(": ")
    index = int(where.removeprefix("$.results.results[").removesuffix("]"))
    return _rows(Path(file))[index]


def test_detect_knows_promptfoo_results_and_nothing_else(tmp_path: Path) -> None:
    assert detect_source(VARIANT_A) == "promptfoo"
    assert detect_source(PROVIDER_ERROR) == "promptfoo"
    other = tmp_path / "other.json"
    other.write_text('{"version": 3, "results": []}')
    assert detect_source(other) is None
    assert detect_source(DATA / "promptfooconfig.yaml") is None


def test_each_test_case_is_a_scenario_and_each_repeat_a_run() -> None:
    batch = read_logs("promptfoo", [VARIANT_A])
    assert batch.suite == "capitals-and-sums"
    assert len(batch.runs) == 40
    assert list(dict.fromkeys(r.scenario for r in batch.runs)) == SCENARIOS
    for scenario in SCENARIOS:
        indexes = [r.run_index for r in batch.runs if r.scenario == scenario]
        assert indexes == list(range(10))
    assert {r.variant for r in batch.runs} == {"base"}
    assert {r.model for r in batch.runs} == {"openai:chat:smollm2"}
    assert batch.descriptions["test-3"] == "question=Reply with the single word yes."
    assert batch.descriptions["sky-colour"] == "sky colour"
    # repeats of one test case share one definition; different test cases do not
    per = {s: {r.config_hash for r in batch.runs if r.scenario == s} for s in SCENARIOS}
    assert all(len(h) == 1 for h in per.values()) and len(set().union(*per.values())) == 4
    evals = batch.provenance["evals"]
    assert evals[0]["promptfoo_version"] == "0.121.20" and evals[0]["repeat"] == 10


def test_passed_status_criteria_and_usage_are_promptfoos_own() -> None:
    batch = read_logs("promptfoo", [VARIANT_A])
    assert "promptfoo marked the test case a success" in batch.pass_rule
    assert {r.passed for r in batch.runs} == {True, False}
    for run in batch.runs:
        row = _row_of(run.source_ref)
        assert run.status == "ok" and run.passed is row["success"]
        components = row["gradingResult"]["componentResults"]
        assert [c.held for c in run.criteria] == [c["pass"] for c in components]
        assert [c.value for c in run.criteria] == [str(c["score"]) for c in components]
        assert [c.reason for c in run.criteria] == [c["reason"] for c in components]
        assert run.duration_s == pytest.approx(row["latencyMs"] / 1000)
        assert run.trajectory is not None
        report = validate(run.trajectory.model_dump(mode="json", exclude_none=True))
        assert report.valid, report.errors
        user, agent = run.trajectory.steps
        assert user.source == "user" and user.message == row["prompt"]["raw"]
        assert agent.source == "agent" and agent.message == row["response"]["output"]
        assert agent.metrics is not None
        assert agent.metrics.prompt_tokens == row["response"]["tokenUsage"]["prompt"]
        assert agent.metrics.completion_tokens == row["response"]["tokenUsage"]["completion"]
    names = {r.scenario: [c.name for c in r.criteria] for r in batch.runs}
    assert names["two-plus-two"] == ["icontains", "javascript"]
    assert names["test-3"] == ["equals", "icontains"]


def test_the_run_set_carries_tokens_outputs_and_what_promptfoo_lacks(tmp_path: Path) -> None:
    result = import_logs("promptfoo", [VARIANT_A], tmp_path / "a")
    runset = load_runset(tmp_path / "a")
    runs = runset.runs.set_index("run_id")
    for run in result.batch.runs:
        row = _row_of(run.source_ref)
        stored = runs.loc[f"{run.scenario}/base/{run.run_index}"]
        usage = row["response"]["tokenUsage"]
        assert stored["prompt_tokens"] == usage["prompt"]
        assert stored["total_tokens"] == usage["prompt"] + usage["completion"]
        assert stored["final_output"] == row["response"]["output"]
        assert bool(stored["passed"]) is row["success"]
        assert stored["llm_calls"] == 1 and stored["tool_call_count"] == 0
    imported = runset.manifest["imported"]
    assert imported["source"] == "promptfoo"
    assert "per-run start times" in imported["lacks"]
    assert "token usage" not in imported["lacks"]


def test_a_provider_error_is_a_harness_error_not_a_failure() -> None:
    batch = read_logs("promptfoo", [PROVIDER_ERROR])
    assert [r.run_index for r in batch.runs] == [0, 1]
    for run in batch.runs:
        assert run.status == "harness_error" and run.passed is None
        assert run.error_type == "provider_error"
        assert run.error_message is not None and "fetch failed" in run.error_message
        assert run.trajectory is None and run.prompt_tokens is None


def test_pass_if_applies_to_promptfoos_score() -> None:
    batch = read_logs("promptfoo", [VARIANT_A], ImportOptions(pass_rule=">=0.5"))
    assert "score of the test case is >=0.5" in batch.pass_rule
    partial = 0
    for run in batch.runs:
        row = _row_of(run.source_ref)
        assert run.passed is (row["score"] >= 0.5)
        partial += row["score"] == 0.5
        scores = [c["score"] for c in row["gradingResult"]["componentResults"]]
        assert [c.held for c in run.criteria] == [s >= 0.5 for s in scores]
    assert partial > 0, "no half-scored run: the rule would not be shown to differ from success"


def test_scorer_decides_by_one_assertion() -> None:
    batch = read_logs("promptfoo", [VARIANT_A], ImportOptions(scorer="icontains"))
    runs = [r for r in batch.runs if r.scenario == "two-plus-two"]
    for run in runs:
        component = _row_of(run.source_ref)["gradingResult"]["componentResults"][0]
        assert run.passed is component["pass"]
    assert any(r.passed and not _row_of(r.source_ref)["success"] for r in runs)
    with pytest.raises(UsageError, match="names no assertion") as caught:
        read_logs("promptfoo", [VARIANT_A], ImportOptions(scorer="llm-rubric"))
    assert "icontains" in (caught.value.hint or "")


def test_two_files_of_one_config_add_repeats() -> None:
    batch = read_logs("promptfoo", [VARIANT_A, VARIANT_A])
    indexes = [r.run_index for r in batch.runs if r.scenario == "sky-colour"]
    assert indexes == list(range(20))


def _broken(tmp_path: Path, edit: Callable[[dict[str, Any]], None]) -> Path:
    document = json.loads(VARIANT_A.read_text())
    edit(document)
    path = tmp_path / "results.json"
    path.write_text(json.dumps(document, indent=2))
    return path


def test_a_truncated_file_names_the_file_and_line(tmp_path: Path) -> None:
    text = VARIANT_A.read_text()
    path = tmp_path / "results.json"
    path.write_text(text[: len(text) // 2])
    with pytest.raises(SourceLogError, match="not JSON") as caught:
        read_logs("promptfoo", [path])
    assert caught.value.file == str(path) and caught.value.line is not None
    assert "promptfoo eval -o" in (caught.value.hint or "")


def _drop_success(d: dict[str, Any]) -> None:
    d["results"]["results"][3].pop("success")


def _text_test_idx(d: dict[str, Any]) -> None:
    d["results"]["results"][5]["testIdx"] = "5"


def _stray_prompt_idx(d: dict[str, Any]) -> None:
    d["results"]["results"][0]["promptIdx"] = 7


def _drop_prompts(d: dict[str, Any]) -> None:
    d["results"].pop("prompts")


def _version_2(d: dict[str, Any]) -> None:
    d["results"]["version"] = 2


def _drop_eval_id(d: dict[str, Any]) -> None:
    d.pop("evalId")


@pytest.mark.parametrize(
    ("edit", "field", "words"),
    [
        (_drop_success, "$.results.results[3].success", "missing"),
        (_text_test_idx, "$.results.results[5].testIdx", "not an integer"),
        (_stray_prompt_idx, "$.results.results[0].promptIdx", "names no entry"),
        (_drop_prompts, "$.results.prompts", "missing"),
        (_version_2, "$.results.version", "version 2"),
        (_drop_eval_id, "$.evalId", "not a promptfoo results file"),
    ],
)
def test_a_missing_or_wrong_field_is_named(
    tmp_path: Path, edit: Callable[[dict[str, Any]], None], field: str, words: str
) -> None:
    path = _broken(tmp_path, edit)
    with pytest.raises(SourceLogError, match=words) as caught:
        read_logs("promptfoo", [path])
    assert caught.value.file == str(path) and caught.value.path == field


def test_bad_input_on_the_command_line_exits_2_and_writes_nothing(
    cli: Callable[..., Any], tmp_path: Path
) -> None:
    text = VARIANT_A.read_text()
    truncated = tmp_path / "results.json"
    truncated.write_text(text[:1000])
    out = tmp_path / "out"
    result = cli("import", "promptfoo", str(truncated), "--out", str(out), cwd=tmp_path)
    assert result.returncode == 2
    assert "results.json" in result.stderr and "not JSON" in result.stderr
    assert "Traceback" not in result.stderr
    assert not out.exists() and sorted(p.name for p in tmp_path.iterdir()) == ["results.json"]


def test_show_and_runs_read_an_imported_run_set(cli: Callable[..., Any], tmp_path: Path) -> None:
    out = tmp_path / "a"
    done = cli("import", "promptfoo", str(VARIANT_A), "--out", str(out), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "40 runs of 4 scenarios" in done.stdout
    listed = cli("runs", str(out), cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    assert all(s in listed.stdout for s in SCENARIOS)
    shown = cli("show", str(out), "--run", "sky-colour/base/3", cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    output = _rows(VARIANT_A)
    row = next(
        r for r in output if r["testCase"].get("description") == "sky colour"
    )  # the first repeat's prompt is the same for every repeat
    assert row["prompt"]["raw"].splitlines()[-1] in shown.stdout


def test_each_prompt_of_one_eval_is_a_variant_named_by_its_label() -> None:
    path = DATA / "two_prompts.json"
    results = json.loads(path.read_text())["results"]
    batch = read_logs("promptfoo", [path])
    assert {r.variant for r in batch.runs} == {"plain", "terse"}
    for variant in ("plain", "terse"):
        for scenario in ("capital", "test-1"):
            runs = [r for r in batch.runs if (r.variant, r.scenario) == (variant, scenario)]
            assert [r.run_index for r in runs] == [0, 1, 2]
    for k, column in enumerate(results["prompts"]):
        variant = ("plain", "terse")[k]
        passed = sum(1 for r in batch.runs if r.variant == variant and r.passed)
        assert passed == column["metrics"]["testPassCount"]
    with pytest.raises(UsageError, match="2 prompt columns"):
        read_logs("promptfoo", [path], ImportOptions(variant="candidate"))
