"""``--max-cost`` and ``--max-minutes`` through ``run_batch``: command agents that record what
each run cost (ATIF ``final_metrics.total_cost_usd``) and use no model; the batch stops before a
run that would pass the budget, keeps its finished runs, says what it did not run, and
``--resume`` finishes it. The wall clock is the budget module's ``clock``, replaced here by one
that advances 100 s per finished run (no test depends on real time)."""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from trajguard import store
from trajguard.errors import UsageError
from trajguard.runner import BatchOptions, Budget, RunEstimate, _budget, run_batch
from trajguard.suite import Suite, load_suite

AGENT = """import json, sys
cost = json.loads(sys.argv[2])
final = {} if cost is None else {"total_cost_usd": cost}
json.dump({"schema_version": "ATIF-v1.7", "session_id": "s",
           "agent": {"name": "paid", "version": "1"},
           "steps": [{"step_id": 1, "source": "user", "message": "hi"},
                     {"step_id": 2, "source": "agent", "message": "done"}],
           "final_metrics": final}, open(sys.argv[1], "w"))
"""


def suite_of(tmp_path: Path, cost: float | None, *, runs: int = 5) -> Suite:
    script = tmp_path / "agent.py"
    script.write_text(AGENT)
    argv = json.dumps([sys.executable, str(script), "{output}", json.dumps(cost)])
    scenarios = "".join(
        f"  - id: {name}\n    agent: {{kind: command, uses_model: false, argv: {argv}}}\n"
        "    input: hello\n"
        for name in ("a", "b")
    )
    path = tmp_path / "suite.yaml"
    path.write_text(
        f"name: paid\ndefaults:\n  runs: {runs}\n  concurrency: 1\nscenarios:\n{scenarios}"
    )
    return load_suite(path)


class Counting:
    """An observer counting finished runs: the fake clock reads 100 s per finished run."""

    def __init__(self) -> None:
        self.finished = 0

    def start(self, total: int, skipped: int, interrupted: int) -> None:
        pass

    def update(self, row: Mapping[str, Any]) -> None:
        self.finished += 1


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Counting:
    counting = Counting()
    monkeypatch.setattr(_budget, "clock", lambda: 100.0 * counting.finished)
    return counting


def scenarios_of(runset: Path) -> list[str]:
    return sorted(store.read_runs(runset)["scenario"])


async def test_max_cost_stops_before_the_run_that_would_pass_it_and_resume_finishes(
    tmp_path: Path,
) -> None:
    suite, runset = suite_of(tmp_path, 0.10), tmp_path / "rs"
    result = await run_batch(suite, runset, BatchOptions(budget=Budget(max_cost_usd=0.35)))
    # 0.10 each: a fourth run would bring the spend to 0.40
    assert scenarios_of(runset) == ["a", "a", "b"]
    assert result.budget is not None
    assert result.budget.not_run == {"a": 3, "b": 4}
    assert result.budget.spent_usd == pytest.approx(0.30)
    assert "--max-cost $0.35" in result.budget.why and "would pass the budget" in result.budget.why
    manifest = store.read_manifest(runset)
    assert manifest["status"] == "running", "resumable, and refused by compare as unfinished"
    assert manifest["stopped"]["by"] == "budget"
    assert manifest["stopped"]["not_run"] == {"a": 3, "b": 4}

    resumed = await run_batch(suite, runset, BatchOptions(), resume=True)
    assert resumed.budget is None and resumed.skipped == 3
    assert scenarios_of(runset) == ["a"] * 5 + ["b"] * 5
    manifest = store.read_manifest(runset)
    assert manifest["status"] == "finished" and "stopped" not in manifest


async def test_max_minutes_stops_and_resume_with_a_new_budget_continues(
    tmp_path: Path, clock: Counting
) -> None:
    suite, runset = suite_of(tmp_path, 0.10), tmp_path / "rs"
    options = BatchOptions(budget=Budget(max_minutes=5))
    result = await run_batch(suite, runset, options, observer=clock)
    # 100 s of the clock per run: the fourth would end past 300 s
    assert len(scenarios_of(runset)) == 3
    assert result.budget is not None and sum(result.budget.not_run.values()) == 7
    assert "--max-minutes 5" in result.budget.why

    clock.finished = 0  # the resuming command's own clock and budget
    again = await run_batch(suite, runset, options, resume=True, observer=clock)
    assert len(scenarios_of(runset)) == 6
    assert again.budget is not None and again.budget.not_run == {"a": 2, "b": 2}
    clock.finished = 0
    await run_batch(suite, runset, BatchOptions(), resume=True, observer=clock)
    assert store.read_manifest(runset)["status"] == "finished"
    assert len(scenarios_of(runset)) == 10


async def test_a_budget_smaller_than_one_run_without_an_estimate_runs_one(tmp_path: Path) -> None:
    suite, runset = suite_of(tmp_path, 0.10), tmp_path / "rs"
    result = await run_batch(suite, runset, BatchOptions(budget=Budget(max_cost_usd=0.05)))
    # nothing told what a run costs: the first run (alone in flight) is how the batch learns it
    assert len(scenarios_of(runset)) == 1
    assert result.budget is not None and sum(result.budget.not_run.values()) == 9


@pytest.mark.parametrize(
    ("budget", "words"),
    [
        (Budget(max_cost_usd=0.05, prior={"*": RunEstimate(cost_usd=0.10)}), "--max-cost $0.05"),
        (Budget(max_minutes=1, prior={"*": RunEstimate(seconds=120.0)}), "--max-minutes 1"),
    ],
)
async def test_a_budget_smaller_than_one_estimated_run_is_refused_before_anything_is_written(
    tmp_path: Path, budget: Budget, words: str
) -> None:
    suite, runset = suite_of(tmp_path, 0.10), tmp_path / "rs"
    with pytest.raises(UsageError, match="smaller than one run") as caught:
        await run_batch(suite, runset, BatchOptions(budget=budget))
    assert words in str(caught.value) and caught.value.exit_code == 2
    assert not runset.exists()


async def test_a_prior_estimate_keeps_concurrent_runs_within_the_budget(tmp_path: Path) -> None:
    suite, runset = suite_of(tmp_path, 0.10), tmp_path / "rs"
    budget = Budget(max_cost_usd=0.35, prior={"*": RunEstimate(cost_usd=0.10)})
    result = await run_batch(suite, runset, BatchOptions(budget=budget, concurrency=4))
    # the runs in flight count at their estimate: never more than three started
    assert len(scenarios_of(runset)) == 3
    assert result.budget is not None and result.spent_usd == pytest.approx(0.30)


async def test_an_unknown_cost_under_max_cost_stops_the_batch(tmp_path: Path) -> None:
    suite, runset = suite_of(tmp_path, None), tmp_path / "rs"
    result = await run_batch(suite, runset, BatchOptions(budget=Budget(max_cost_usd=1.0)))
    assert len(scenarios_of(runset)) == 1
    assert result.budget is not None and "cost is unknown" in result.budget.why
    assert result.spent_usd is None and result.budget.spent_usd is None


def test_a_budget_must_be_positive() -> None:
    with pytest.raises(UsageError, match="--max-cost must be a number above 0"):
        Budget(max_cost_usd=0)
    with pytest.raises(UsageError, match="--max-minutes must be a number above 0"):
        Budget(max_minutes=float("nan"))


async def test_without_a_budget_nothing_changes(tmp_path: Path) -> None:
    suite, runset = suite_of(tmp_path, 0.10, runs=2), tmp_path / "rs"
    result = await run_batch(suite, runset, BatchOptions())
    assert result.budget is None and result.spent_usd == pytest.approx(0.40)
    assert store.read_manifest(runset)["status"] == "finished"
