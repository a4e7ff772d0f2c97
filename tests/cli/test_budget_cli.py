"""``--max-cost`` and ``--max-minutes`` on ``run`` and ``nightly``: a batch cut by each, its
summary or report (what the budget did not run), exit 6, and ``--resume`` finishing it; a budget
smaller than one run by the baseline's estimate is refused before anything is written. Command
agents record each run's cost (ATIF ``final_metrics.total_cost_usd``) and use no model; the
wall clock of ``--max-minutes`` is the budget module's ``clock``, replaced here (no test depends
on real time)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from trajguard import store
from trajguard.runner import _budget

AGENT = """import json, sys
json.dump({"schema_version": "ATIF-v1.7", "session_id": "s",
           "agent": {"name": "paid", "version": "1"},
           "steps": [{"step_id": 1, "source": "user", "message": "hi"},
                     {"step_id": 2, "source": "agent", "message": "answer"}],
           "final_metrics": {"total_cost_usd": 0.10}}, open(sys.argv[1], "w"))
"""


@pytest.fixture
def project(tmp_path: Path, cli: Any) -> Path:
    (tmp_path / "agent.py").write_text(AGENT)
    argv = json.dumps([sys.executable, "agent.py", "{output}"])
    (tmp_path / "suite.yaml").write_text(
        "name: paid\ndefaults: {runs: 4, concurrency: 1}\nscenarios:\n"
        f"  - id: s\n    input: hi\n    agent: {{kind: command, argv: {argv}, uses_model: false}}\n"
        "    pass:\n      - final_output_contains: answer\n"
    )
    made = cli("run", "suite.yaml", "--out", "first", "--no-progress", "--seed", "1", cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    promoted = cli("baseline", "promote", "first", cwd=tmp_path)
    assert promoted.returncode == 0, promoted.stderr
    return tmp_path


def test_run_cut_by_max_cost_exits_6_and_resume_finishes(project: Path, cli: Any) -> None:
    cut = cli(
        "run", "suite.yaml", "--out", "rs", "--no-progress", "--max-cost", "0.25", cwd=project
    )
    assert cut.returncode == 6, cut.stderr
    assert "the budget ended the batch: --max-cost $0.25" in cut.stdout
    assert "not run (runs per scenario): s 2" in cut.stdout
    assert "trajguard run suite.yaml --resume rs" in cut.stdout
    assert len(store.read_runs(project / "rs")) == 2
    resumed = cli("run", "suite.yaml", "--resume", "rs", "--no-progress", cwd=project)
    assert resumed.returncode == 0, resumed.stderr
    assert len(store.read_runs(project / "rs")) == 4
    assert store.read_manifest(project / "rs")["status"] == "finished"


def _night(project: Path) -> Path:
    (night,) = (project / "reports").iterdir()
    return night


def test_nightly_cut_by_max_cost_reports_what_was_not_run_then_resumes(
    project: Path, cli: Any
) -> None:
    cut = cli("nightly", "suite.yaml", "--no-progress", "--max-cost", "0.25", cwd=project)
    # the baseline's runs cost 0.10 each: a third run would bring the night to 0.30
    assert cut.returncode == 6, cut.stderr
    night = _night(project)
    assert len(store.read_runs(night / "runs")) == 2
    report = (night / "report.md").read_text()
    assert "**The budget ended it** (--max-cost $0.25" in report
    assert "Not run (runs per scenario): s 2" in report
    document = json.loads((night / "comparison.json").read_text())
    assert document["candidate"]["budget_not_run"] == {"s": 2}
    page = (night / "report.html").read_text()
    assert "The budget ended it" in page and "Not run (runs per scenario): s 2" in page

    resumed = cli(
        "nightly", "suite.yaml", "--resume", str(night / "runs"), "--no-progress", cwd=project
    )
    assert resumed.returncode == 0, resumed.stderr
    assert len(store.read_runs(night / "runs")) == 4
    assert "The budget ended it" not in (night / "report.md").read_text()


def test_nightly_cut_by_max_minutes_then_resumes(
    project: Path, cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    def clock() -> float:  # 100 s per run on disk
        return 100.0 * sum(len(store.completed_run_ids(r)) for r in project.glob("reports/*/runs"))

    monkeypatch.setattr(_budget, "clock", clock)
    cut = cli("nightly", "suite.yaml", "--no-progress", "--max-minutes", "2.5", cwd=project)
    assert cut.returncode == 6, cut.stderr
    night = _night(project)
    # before the third run the clock reads 200 s: past 2.5 minutes
    assert len(store.read_runs(night / "runs")) == 2
    assert "--max-minutes 2.5: the next run" in (night / "report.md").read_text()
    resumed = cli(
        "nightly", "suite.yaml", "--resume", str(night / "runs"), "--no-progress", cwd=project
    )
    assert resumed.returncode == 0, resumed.stderr
    assert len(store.read_runs(night / "runs")) == 4


def test_a_budget_smaller_than_one_baseline_run_is_refused(project: Path, cli: Any) -> None:
    baseline = project / "baselines" / "paid" / "runs.parquet"
    table = store.read_table(baseline.parent)
    slow = table.set_column(
        table.schema.get_field_index("duration_s"),
        "duration_s",
        pa.array([120.0] * table.num_rows, pa.float64()),
    )
    store.write_runs_table(baseline, slow)
    refused = cli("nightly", "suite.yaml", "--no-progress", "--max-minutes", "1", cwd=project)
    assert refused.returncode == 2
    assert "the budget is smaller than one run: --max-minutes 1" in refused.stderr
    assert "Traceback" not in refused.stderr
    assert not (project / "reports").exists(), "nothing was written"


def test_plan_estimates_a_nights_minutes_and_cost_from_the_baseline(
    project: Path, cli: Any
) -> None:
    baseline = project / "baselines" / "paid"
    table = store.read_table(baseline)
    timed = table.set_column(
        table.schema.get_field_index("duration_s"),
        "duration_s",
        pa.array([30.0] * table.num_rows, pa.float64()),
    )
    store.write_runs_table(baseline / "runs.parquet", timed)
    planned = cli("plan", str(baseline), "--runs", "20", cwd=project)
    assert planned.returncode == 0, planned.stderr
    # 20 runs of 30 s: 10 minutes; 20 runs at $0.10: $2.00
    assert "a night of 20 runs x 1 scenarios (20 runs): 10.0 min of runs one at a time" in (
        planned.stdout
    )
    assert "its cost: about $2.00" in planned.stdout


def test_plan_says_when_the_baselines_cost_is_unknown(project: Path, cli: Any) -> None:
    baseline = project / "baselines" / "paid"
    table = store.read_table(baseline)
    unpriced = table.set_column(
        table.schema.get_field_index("cost_usd"),
        "cost_usd",
        pa.array([None] * table.num_rows, pa.float64()),
    )
    store.write_runs_table(baseline / "runs.parquet", unpriced)
    planned = cli("plan", str(baseline), "--runs", "20", cwd=project)
    assert planned.returncode == 0, planned.stderr
    assert "its cost: unknown (4 baseline runs record no cost" in planned.stdout


def test_nightly_budgeted_design_spends_the_budget_in_looks(project: Path, cli: Any) -> None:
    night = cli(
        "nightly", "suite.yaml", "--no-progress", "--budgeted", "--max-cost", "1.2", cwd=project
    )  # fmt: skip
    assert night.returncode == 0, night.stderr
    folder = _night(project)
    runs = store.read_runs(folder / "runs")
    # the baseline's runs cost $0.10: the design plans at most 12 runs, and the A/A night
    # (same agent) stops as soon as the candidate is no worse
    assert 2 <= len(runs) <= 12
    assert runs["cost_usd"].sum() <= 1.2 + 1e-9
    document = json.loads((folder / "comparison.json").read_text())
    assert document["design"]["name"] == "budget"
    assert document["design"]["outcome"]["budget"] == 1.2
    assert "## Budgeted design" in (folder / "report.md").read_text()


def test_budgeted_needs_a_budget_and_no_other_design(project: Path, cli: Any) -> None:
    none = cli("nightly", "suite.yaml", "--no-progress", "--budgeted", cwd=project)
    assert none.returncode == 2 and "--budgeted spends a budget" in none.stderr
    both = cli(
        "nightly", "suite.yaml", "--budgeted", "--sequential", "--max-cost", "1", cwd=project
    )  # fmt: skip
    assert both.returncode == 2 and "design of its own" in both.stderr


def test_ab_cut_by_max_cost_exits_6_and_resume_finishes(project: Path, cli: Any) -> None:
    suite = (project / "suite.yaml").read_text()
    (project / "suite.yaml").write_text(
        suite.replace("scenarios:", "variants: {terse: {params: {style: terse}}}\nscenarios:")
    )
    cut = cli(
        "ab", "suite.yaml", "--variant", "base", "--variant", "terse", "--max-cost", "0.55",
        "--no-progress", cwd=project,
    )  # fmt: skip
    assert cut.returncode == 6, cut.stderr
    (folder,) = (project / "reports").iterdir()
    assert len(store.read_runs(folder / "runs")) == 5, "a sixth run would bring it to $0.60"
    assert "**The budget ended it**" in (folder / "ab.md").read_text()
    resumed = cli(
        "ab", "suite.yaml", "--variant", "base", "--variant", "terse", "--resume",
        str(folder / "runs"), "--no-progress", cwd=project,
    )  # fmt: skip
    assert resumed.returncode == 0, resumed.stderr
    assert len(store.read_runs(folder / "runs")) == 8


def test_a_cost_budget_smaller_than_one_baseline_run_is_refused(project: Path, cli: Any) -> None:
    # the baseline's runs cost $0.10 each
    refused = cli("nightly", "suite.yaml", "--no-progress", "--max-cost", "0.05", cwd=project)
    assert refused.returncode == 2
    assert "the budget is smaller than one run: --max-cost $0.05" in refused.stderr
    assert "Traceback" not in refused.stderr
    assert not (project / "reports").exists(), "nothing was written"
