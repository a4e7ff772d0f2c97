"""A side imported without trajectories: its tool use is unknown, so it is not compared."""

from __future__ import annotations

import json
from pathlib import Path

from trajguard.atif import Agent, Step, ToolCall, Trajectory
from trajguard.cli import main
from trajguard.importers import ImportedBatch, ImportedCriterion, ImportedRun, write_batch


def _trajectory(answer: str) -> Trajectory:
    call = ToolCall(tool_call_id="c1", function_name="add", arguments={})
    return Trajectory(
        agent=Agent(name="tool-x", version="1.0", model_name="m"),
        steps=[
            Step(step_id=1, source="user", message="What is 2+2?"),
            Step(step_id=2, source="agent", model_name="m", message="", tool_calls=[call]),
            Step(step_id=3, source="agent", model_name="m", message=answer),
        ],
    )


def _batch(*, trajectories: bool, passes: int) -> ImportedBatch:
    runs = tuple(
        ImportedRun(
            scenario=scenario,
            run_index=i,
            model="m",
            passed=i < passes,
            criteria=(ImportedCriterion(name="match", held=i < passes, value="C"),),
            trajectory=_trajectory("4") if trajectories else None,
            final_output=None if trajectories else "4",
        )
        for scenario in ("sum", "greet")
        for i in range(20)
    )
    lacks = () if trajectories else ("trajectories", "token usage")
    return ImportedBatch(
        source="promptfoo",
        suite="arith",
        runs=runs,
        files=("results.json",),
        lacks=lacks,
        pass_rule="promptfoo's own success",
    )


def test_tool_metrics_of_a_side_without_trajectories_are_not_tested(tmp_path: Path) -> None:
    write_batch(_batch(trajectories=True, passes=14), tmp_path / "a")
    write_batch(_batch(trajectories=False, passes=12), tmp_path / "b")
    report = tmp_path / "report" / "report.md"
    code = main(["compare", str(tmp_path / "a"), str(tmp_path / "b"), "--report", str(report)])
    text = report.read_text()
    assert code == 0  # nothing may regress on tool use nobody recorded
    assert "**The candidate was imported from promptfoo logs.**" in text
    assert "do not record trajectories, token usage" in text
    assert "the candidate runs record no tool calls" in text
    document = json.loads((report.parent / "comparison.json").read_text())
    text_json = json.dumps(document)
    assert '"imported_from": "promptfoo"' in text_json
    for scenario in document["comparison"]["scenarios"]:
        by_name = {m["metric"]: m for m in scenario["metrics"]}
        for name in ("tool_usage", "failing_paths"):
            metric = by_name[name]
            assert metric["estimate"] is None, (scenario["scenario"], name)
            assert any("record no tool calls" in note for note in metric["notes"])
        assert by_name["pass_rate"]["estimate"] is not None
