"""Small nights on disk for the HTML report's tests: run sets written with the store's writer
from rows the runner's row builder makes (real criteria on hand-made trajectories)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from trajguard import pipeline, store
from trajguard_testkit.runsets import make_row

HOSTILE = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=1</script>'
"""Markup that would run if a page let it: every place it is put must show it as text."""
ANSI = "\x1b[31mred\x1b[0m"
DESCRIPTION = "Capitals " + HOSTILE + ANSI
"""A scenario description with markup and an escape sequence in it, as a suite may hold."""


def _hostile(row: dict[str, Any]) -> dict[str, Any]:
    trajectory = json.loads(row["trajectory"])
    for step in trajectory["steps"]:
        for call in step.get("tool_calls") or ():
            call["arguments"] = {"query": HOSTILE + ANSI}
        for result in (step.get("observation") or {}).get("results") or ():
            result["content"] = "result " + HOSTILE
    return row | {"trajectory": json.dumps(trajectory)}


def night_rows(*, regressed: bool, variant: str = "base", hostile: bool = True) -> list[dict]:
    """Three scenarios of 12 runs: ``capital`` breaks when ``regressed`` (8 of 12 runs call
    get_weather and miss Canberra), ``greeting`` and a scenario with a hostile name never do."""
    rows = []
    for i in range(12):
        broken = regressed and i < 8
        calls = ["lookup_country", "get_weather"] if broken else ["lookup_country"]
        final = "It is Sydney." if broken else "The capital is Canberra."
        rows.append(make_row("capital", i, calls, final, variant=variant))
        rows.append(make_row("greeting", i, ["lookup_country"], variant=variant))
        if hostile:
            row = make_row(f"x{HOSTILE}", i, ["lookup_country"], HOSTILE + ANSI, variant=variant)
            rows.append(_hostile(row))
    return rows


def write_night(root: Path, name: str, rows: list[dict], batch: str) -> Path:
    path = root / name
    store.write_runs(path / store.RUNS_FILE, [r | {"batch_id": batch} for r in rows])
    manifest = {"suite": "demo", "status": "finished", "batch_id": batch, "models": ["m"]}
    store.write_manifest(path, manifest | {"descriptions": {"capital": DESCRIPTION}})
    return path


def compared(root: Path, *, regressed: bool) -> pipeline.CompareOutcome:
    """A baseline and a candidate night compared, the report written under ``root/report``."""
    baseline = write_night(root, "baseline", night_rows(regressed=False), "base1")
    candidate = write_night(root, "candidate", night_rows(regressed=regressed), "cand1")
    return pipeline.compare(
        baseline,
        candidate,
        report=root / "report" / "report.md",
        options=pipeline.ReportOptions(command="trajguard compare baseline candidate"),
    )


def ab_compared(root: Path, preferences: Any = None) -> Path:
    """An A/B run set (variants base and b) compared (with a pairwise judge's ``preferences``
    when given); returns the report's folder."""
    from trajguard.comparison import CompareConfig, compare_ab
    from trajguard.pipeline._outputs import ReportOptions, run_payload, write_outputs
    from trajguard.report import build_ab_document

    rows = night_rows(regressed=False) + night_rows(regressed=True, variant="b")
    runs = write_night(root, "ab-runs", rows, "ab1")
    side = store.load_runset(runs)
    result = compare_ab(
        side.runs, "base", "b", config=CompareConfig(two_sided=True), preferences=preferences
    )
    document = build_ab_document(
        result, runs=side, plots=[s.scenario for s in result.per_scenario.scenarios]
    )
    frame = side.runs
    from dataclasses import replace

    payload = run_payload(
        document,
        replace(side, runs=frame[frame["variant"] == "base"]),
        replace(side, runs=frame[frame["variant"] == "b"]),
        path=runs,
    )
    folder = root / "ab"
    write_outputs(document, folder / "ab.md", options=ReportOptions(), runs=payload)
    return folder
