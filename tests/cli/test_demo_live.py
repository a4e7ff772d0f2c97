"""The demo suite end to end on the embedded model: `trajguard run` (3 runs per scenario) writes
a run set that pandas reads with every documented column, whose trajectories are valid ATIF,
and `trajguard show` summarises it."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pandas as pd
import pytest

import trajguard
from trajguard import check_normative, load_trajectory, shape, store
from trajguard.suite import load_suite

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "suites" / "demo.yaml"
TRAJGUARD = [sys.executable, "-m", "trajguard.cli"]
RUNS = 3

pytestmark = pytest.mark.live

# docs/reference/runset.md, "Columns"
DOCUMENTED_COLUMNS = [
    "run_id", "batch_id", "suite", "scenario", "variant", "model", "seed", "started_at",
    "duration_s", "git_sha", "config_hash", "trajguard_version", "atif_schema_version", "status",
    "error_type", "error_message", "passed", "step_count", "agent_steps", "llm_calls",
    "tool_call_count", "tool_sequence", "tool_counts", "prompt_tokens", "completion_tokens",
    "total_tokens", "cost_usd", "subagent_count", "content_hash", "final_output", "trajectory",
]  # fmt: skip
STATUSES = {"ok", "crash", "agent_error", "harness_error", "timeout"}


def _trajguard(*args: str, timeout: float) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*TRAJGUARD, *args], cwd=REPO, capture_output=True, text=True, timeout=timeout
    )


@pytest.fixture(scope="module")
def demo_run(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[Path, subprocess.CompletedProcess[str]]:
    out = tmp_path_factory.mktemp("demo") / "runset"
    result = _trajguard(
        "run", str(DEMO), "--runs", str(RUNS), "--out", str(out), "--no-progress",
        "--timeout", "120",
        timeout=1800,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    assert "Traceback" not in result.stderr
    assert f"{RUNS * len(load_suite(DEMO).scenarios)} runs in" in result.stdout
    return out, result


@pytest.fixture(scope="module")
def demo_runset(demo_run: tuple[Path, subprocess.CompletedProcess[str]]) -> Path:
    return demo_run[0]


def _seconds(duration: str) -> int:
    minutes, _, rest = duration.rpartition(" min ")
    return int(minutes or 0) * 60 + int(rest.removesuffix(" s"))


def test_the_run_prints_its_start_up_steps_with_their_times(
    demo_run: tuple[Path, subprocess.CompletedProcess[str]],
) -> None:
    """In a fresh process, with --no-progress: every step before the first run, in order, each
    with its time (litellm's import and the servers' start overlap, so a step may be named again
    when it ends), and the summary's time is the whole command's, start-up included."""
    _, result = demo_run
    ended = re.findall(r"^trajguard: (.+)… (\d+\.\d) s$", result.stderr, re.M)
    names = [name for name, _ in ended]
    servers = r"starting (the embedded model server|2 embedded model servers) \(SmolLM2-135M"
    assert len(names) == 6, result.stderr[-3000:]
    assert names[:2] == ["importing trajguard's batch runner", "reading the suite"], names
    # litellm's import overlaps the servers' start and then their self-test, which follows it
    middle = names[2:5]
    start = next(name for name in middle if re.match(servers, name))
    test = next(name for name in middle if name.startswith("self-test of the embedded model"))
    assert "importing litellm" in middle and middle.index(start) < middle.index(test), names
    assert "a chat request with tools" in test
    assert names[5] == "checking that local/smollm2 answers", names
    started = re.findall(r"^trajguard: (.+)…", result.stderr, re.M)
    assert started[:3] == [*names[:2], "importing litellm"], "each step said before it ended"
    span = r"((?:\d+ min )?\d+ s)"  # "42 s", "1 min 58 s"
    summary = re.match(rf"(\d+) runs in {span} with {span} of start-up \(", result.stdout)
    assert summary is not None, result.stdout
    assert int(summary.group(1)) == RUNS * len(load_suite(DEMO).scenarios)
    took = {name: float(seconds) for name, seconds in ended}
    overlapped = max(took["importing litellm"], took[start] + took[test])
    in_turn = sum(took[name] for name in names[:2]) + overlapped + took[names[5]]
    start_up, whole = _seconds(summary.group(3)), _seconds(summary.group(2))
    assert in_turn <= start_up + 1, (ended, result.stdout)  # each figure rounded
    assert 0 < start_up < whole


def test_demo_runset_has_every_run_with_the_documented_columns(demo_runset: Path) -> None:
    scenarios = [s.id for s in load_suite(DEMO).scenarios]
    runs = pd.read_parquet(demo_runset / "runs.parquet")
    missing = [c for c in DOCUMENTED_COLUMNS if c not in runs.columns]
    assert missing == [], f"documented columns missing from runs.parquet: {missing}"

    assert len(runs) == RUNS * len(scenarios)
    assert runs["run_id"].is_unique
    assert sorted(runs["run_id"]) == sorted(f"{s}/base/{i}" for s in scenarios for i in range(RUNS))
    assert Counter(runs["scenario"]) == dict.fromkeys(scenarios, RUNS)
    assert set(runs["variant"]) == {"base"}
    assert set(runs["suite"]) == {"demo"}
    assert set(runs["model"]) == {"local/smollm2"}
    assert runs["batch_id"].nunique() == 1
    assert set(runs["trajguard_version"]) == {trajguard.__version__}
    assert runs["seed"].notna().all()
    assert runs["seed"].nunique() == len(runs), "every run has its own seed"
    assert (runs.groupby("scenario")["config_hash"].nunique() == 1).all()
    assert runs["config_hash"].nunique() == len(scenarios)
    assert (runs["duration_s"] > 0).all()
    assert runs["started_at"].dt.tz is not None, "start times are timezone-aware"

    assert set(runs["status"]) <= STATUSES, set(runs["status"])
    assert (runs["status"] != "harness_error").all(), runs["error_message"].dropna().tolist()
    judged = runs[runs["status"].isin(["ok", "crash", "agent_error"])]
    assert judged["passed"].notna().all(), "every finished run is judged against its criteria"

    manifest = store.read_manifest(demo_runset)
    assert manifest["status"] == "finished"
    assert manifest["completed_runs"] == len(runs)
    assert not (demo_runset / "parts").exists(), "the parts were compacted into runs.parquet"


def test_demo_rows_agree_with_their_trajectories(demo_runset: Path) -> None:
    runs = pd.read_parquet(demo_runset / "runs.parquet")
    with_trajectory = runs[runs["trajectory"].notna()]
    without = runs.loc[runs["trajectory"].isna(), "status"]
    assert set(without) <= {"timeout"}, "only a timed-out run may lack its trajectory"
    for row in with_trajectory.to_dict("records"):
        data = json.loads(row["trajectory"])
        trajectory = load_trajectory(data)
        assert check_normative(trajectory) == [], row["run_id"]
        assert trajectory.schema_version == row["atif_schema_version"] == "ATIF-v1.8"
        run_shape = shape(data)
        sequence = list(row["tool_sequence"])
        assert all(isinstance(name, str) for name in sequence)
        assert sequence == list(run_shape.tool_calls), row["run_id"]
        assert dict(row["tool_counts"]) == dict(Counter(sequence)), row["run_id"]
        assert row["tool_call_count"] == len(sequence)
        assert row["step_count"] == run_shape.step_count
        assert row["llm_calls"] == row["agent_steps"] == run_shape.llm_calls
        assert row["total_tokens"] == row["prompt_tokens"] + row["completion_tokens"]
        if row["status"] == "ok":  # answered: system, user, and at least one model call
            assert row["step_count"] >= 3
            assert row["llm_calls"] >= 1
            assert row["total_tokens"] > 0
        assert row["content_hash"] == run_shape.content_hash
        assert row["final_output"] == run_shape.final_output
        assert row["subagent_count"] == 0
        assert pd.isna(row["cost_usd"]) or row["cost_usd"] >= 0
        demo_tools = {"calculator", "get_weather", "lookup_country"}
        offered = {t["function"]["name"] for t in data["agent"].get("tool_definitions", [])}
        assert offered <= demo_tools


def test_show_names_every_scenario(demo_runset: Path) -> None:
    result = _trajguard("show", str(demo_runset), timeout=120)
    assert result.returncode == 0, result.stderr
    for scenario in load_suite(DEMO).scenarios:
        assert scenario.id in result.stdout
    assert f"{RUNS * len(load_suite(DEMO).scenarios)} runs" in result.stdout
