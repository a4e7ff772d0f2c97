"""Gating on cost when the suite says so (issue 38): ``defaults.gate: [cost]`` puts the cost
metric in the gating family of ``nightly``, of ``compare`` of the suite's run sets (the manifest
records it) and of ``ab``. A candidate whose runs cost twice as much at the same pass rate fails
the night (exit 1) with the switch and passes it without (cost diagnostic); ``ab`` never fails
on behaviour, but its answer becomes "behaved differently". A misspelt metric is refused on load
with the file, line and field (exit 2). The agent is a command that records its run's cost
(ATIF ``final_metrics.total_cost_usd``): the price given, times a spread drawn from the run's
seed; no model is called."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

AGENT = """import json, random, sys
output, seed, price = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
cost = price * random.Random(seed).uniform(0.8, 1.25)
json.dump({"schema_version": "ATIF-v1.7", "session_id": "s",
           "agent": {"name": "paid", "version": "1"},
           "steps": [{"step_id": 1, "source": "user", "message": "hi"},
                     {"step_id": 2, "source": "agent", "message": "answer"}],
           "final_metrics": {"total_cost_usd": cost}}, open(output, "w"))
"""


def _suite(project: Path, *, price: float, gate: str) -> None:
    argv = json.dumps([sys.executable, "agent.py", "{output}", "{seed}", "{params.price}"])
    (project / "suite.yaml").write_text(
        f"name: paid\ndefaults: {{runs: 20, concurrency: 2{gate}}}\n"
        "variants:\n  dearer: {params: {price: 0.2}}\n"
        "scenarios:\n"
        + "".join(
            f"  - id: {name}\n    input: hi\n"
            f"    agent: {{kind: command, argv: {argv}, uses_model: false,"
            f" params: {{price: {price}}}}}\n"
            "    pass:\n      - final_output_contains: answer\n"
            for name in ("one", "two")
        )
    )


GATES = {"suite gates cost": ", gate: [cost]", "cost diagnostic": ""}


@pytest.fixture(params=list(GATES))
def project(request: pytest.FixtureRequest, tmp_path: Path, cli: Any) -> tuple[Path, bool]:
    (tmp_path / "agent.py").write_text(AGENT)
    _suite(tmp_path, price=0.1, gate=GATES[request.param])
    made = cli("run", "suite.yaml", "--out", "first", "--no-progress", "--seed", "1", cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    promoted = cli("baseline", "promote", "first", cwd=tmp_path)
    assert promoted.returncode == 0, promoted.stderr
    return tmp_path, request.param == "suite gates cost"


def _cost_rows(document: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        m
        for s in document["comparison"]["scenarios"]
        for m in s["metrics"]
        if m["metric"] == "cost"
    ]


def test_nightly_fails_on_doubled_cost_only_when_the_suite_gates_it(
    project: tuple[Path, bool], cli: Any
) -> None:
    root, gated = project
    _suite(root, price=0.2, gate=", gate: [cost]" if gated else "")
    night = cli("nightly", "suite.yaml", "--no-progress", "--no-plots", "--seed", "2", cwd=root)
    assert night.returncode == (1 if gated else 0), night.stdout + night.stderr
    (folder,) = (root / "reports").iterdir()
    document = json.loads((folder / "comparison.json").read_text())
    rows = _cost_rows(document)
    assert len(rows) == 2
    assert {r["kind"] for r in rows} == ({"gating"} if gated else {"diagnostic"})
    assert all(r["verdict"] == "regressed" for r in rows)  # the cost did double
    passing = {
        m["verdict"]
        for s in document["comparison"]["scenarios"]
        for m in s["metrics"]
        if m["metric"] == "pass_rate"
    }
    assert passing <= {"unchanged", "inconclusive"}  # the same pass rate


def test_compare_follows_the_gate_its_run_sets_record(project: tuple[Path, bool], cli: Any) -> None:
    root, gated = project
    _suite(root, price=0.2, gate=", gate: [cost]" if gated else "")
    made = cli("run", "suite.yaml", "--out", "cand", "--no-progress", "--seed", "2", cwd=root)
    assert made.returncode == 0, made.stderr
    manifest = json.loads((root / "cand" / "manifest.json").read_text())
    assert manifest.get("gate") == (["cost"] if gated else None)
    compared = cli("compare", "first", "cand", "--no-plots", "--report", "cmp/report.md", cwd=root)
    assert compared.returncode == (1 if gated else 0), compared.stdout + compared.stderr
    document = json.loads((root / "cmp" / "comparison.json").read_text())
    assert {r["kind"] for r in _cost_rows(document)} == ({"gating"} if gated else {"diagnostic"})


def test_ab_answers_different_on_cost_only_when_the_suite_gates_it(
    project: tuple[Path, bool], cli: Any
) -> None:
    root, gated = project
    args = ["suite.yaml", "--variant", "base", "--variant", "dearer", "--seed", "3"]
    done = cli("ab", *args, "--no-progress", "--no-plots", cwd=root)
    assert done.returncode == 0, done.stdout + done.stderr  # an A/B answer never fails
    (report,) = (root / "reports").rglob("ab.md")
    text = report.read_text()
    if gated:
        assert "**Answer: dearer behaved differently.**" in text
        assert "one: cost worse (×" in text and "two: cost worse (×" in text
    else:
        assert "behaved differently" not in text
    assert "% dearer per run" in text  # the cost sentence either way
    document = json.loads((report.parent / "comparison.json").read_text())
    assert {r["kind"] for r in _cost_rows(document)} == ({"gating"} if gated else {"diagnostic"})


def test_an_unknown_gate_is_refused_with_file_line_and_field(tmp_path: Path, cli: Any) -> None:
    (tmp_path / "agent.py").write_text(AGENT)
    _suite(tmp_path, price=0.1, gate=", gate: [cots]")
    checked = cli("validate", "suite.yaml", cwd=tmp_path)
    assert checked.returncode == 2
    assert "suite.yaml:2: defaults.gate: unknown metric 'cots' (the closest is 'cost')" in (
        checked.stdout + checked.stderr
    )
    ran = cli("nightly", "suite.yaml", "--no-progress", cwd=tmp_path)
    assert ran.returncode == 2 and "Traceback" not in ran.stderr
    assert not (tmp_path / "reports").exists()
