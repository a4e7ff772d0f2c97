"""Imports never invent (issue 41): Harbor trials without a trajectory (as a crash leaves them)
are missing from tool usage, tool order and failing paths, with each metric's n showing it,
on the jobs `harbor run` wrote (tests/importers/data/harbor)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

DATA = Path(__file__).parent / "data" / "harbor"
TERSE = DATA / "terse"
TOOL_METRICS = ("tool_usage", "tool_sequence", "failing_paths")


def _metrics(document: dict[str, Any], scenario: str) -> dict[str, dict[str, Any]]:
    (found,) = [s for s in document["comparison"]["scenarios"] if s["scenario"] == scenario]
    return {m["metric"]: m for m in found["metrics"]}


def test_trials_without_trajectories_are_missing_from_the_tool_metrics(
    cli: Any, tmp_path: Path
) -> None:
    candidate = tmp_path / "terse"
    shutil.copytree(TERSE, candidate)
    trials = sorted(p for p in candidate.glob("capital__*") if p.is_dir())
    assert len(trials) == 10
    for trial in trials[:8]:
        (trial / "agent" / "trajectory.json").unlink()
    report = tmp_path / "r" / "report.md"
    done = cli(
        "compare", str(TERSE), str(candidate), "--report", str(report), "--no-plots", cwd=tmp_path
    )
    assert done.returncode in (0, 1), done.stderr
    document = json.loads((report.parent / "comparison.json").read_text())
    capital = _metrics(document, "capital")
    for name in TOOL_METRICS:
        assert (capital[name]["baseline"]["n"], capital[name]["candidate"]["n"]) == (10, 2), name
        assert capital[name]["verdict"] not in ("regressed", "changed"), name
    # the pass rate and the crash rate still count every trial
    assert capital["pass_rate"]["candidate"]["n"] == 10
    assert capital["crash_rate"]["candidate"]["n"] == 10
    # the same tools, per run that recorded them: no drift is invented
    assert capital["tool_usage"]["estimate"] == 0.0
    assert "| tool usage | n=10 | n=2 | TVD = 0.00 |" in report.read_text()
    colour = _metrics(document, "colour")
    assert colour["tool_usage"]["candidate"]["n"] == 10
