"""Floors through every command: ``run`` (the floors-only check, no baseline), ``compare`` (on
copies of real run sets, benchmarks/data), ``nightly`` and ``ab`` (each variant's arm): the
exit code, the words, the report's section and comparison.json (schema-valid, rendered again
byte for byte)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import jsonschema
import pytest

from trajguard import pipeline
from trajguard.cli import main
from trajguard.results import SCHEMA_FILE
from trajguard.runner import BatchOptions

REAL = Path(__file__).resolve().parents[2] / "benchmarks" / "data" / "real-nights-2026-12-01"

AGENT = """
from trajguard.capture import LLMResponse

async def agent(ctx):
    ctx.recorder.user(ctx.input)
    good = ctx.variant != "broken"
    ctx.recorder.agent_step(LLMResponse(content="391" if good else "no idea"))
    return None
"""

SUITE = """
name: floored
defaults: {{runs: 20, concurrency: 2, floor: {{min_pass_rate: 0.8}}}}
variants:
  broken: {{}}
scenarios:
  - id: one
    agent: {{kind: callable, function: "floor_agent:agent"}}
    input: What is 17 * 23?
    pass: [{{final_output_contains: "391"}}]
    {own}
  - id: two
    agent: {{kind: callable, function: "floor_agent:agent"}}
    input: And 23 * 17?
    pass: [{{final_output_contains: "391"}}]
"""


def _validate(document: Path) -> dict[str, object]:
    data = json.loads(document.read_text(encoding="utf-8"))
    jsonschema.validate(data, json.loads(SCHEMA_FILE.read_text(encoding="utf-8")))
    return data


# ---- compare, on copies of real run sets (no model) -------------------------------------------


@pytest.fixture
def real_pair(tmp_path: Path) -> tuple[Path, Path]:
    baseline, candidate = tmp_path / "baseline", tmp_path / "candidate"
    shutil.copytree(REAL / "baseline", baseline)
    shutil.copytree(REAL / "unedited-seed1", candidate)
    manifest = json.loads((candidate / "manifest.json").read_text())
    # as `trajguard run` records them from a suite with floors
    bar = {"max_crash_rate": None, "max_cost_usd_per_run": None, "confidence": 0.95}
    manifest["floors"] = {
        "capital": {**bar, "min_pass_rate": 0.2},
        "greeting": {**bar, "min_pass_rate": 0.8},
    }
    (candidate / "manifest.json").write_text(json.dumps(manifest))
    return baseline, candidate


def test_compare_gates_on_the_floors_and_says_so(
    real_pair: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    baseline, candidate = real_pair
    report = tmp_path / "out" / "report.md"
    code = main(["compare", str(baseline), str(candidate), "--report", str(report)])
    out = capsys.readouterr().out
    assert code == 1  # no regression against the baseline, but a floor is not met
    assert "verdict: " in out and "floors: 1 of 2 bars not met (exit 1)" in out
    data = _validate(report.parent / "comparison.json")
    floors = data["floors"]
    assert isinstance(floors, dict)
    states = {c["scenario"]: c["state"] for c in floors["checks"]}
    assert states["capital"] == "met" and states["greeting"] in ("not shown", "breached")
    text = report.read_text(encoding="utf-8")
    assert "## Floors" in text and "| capital | pass rate ≥ 20% | 🟢 met |" in text
    assert "the command exits 1" in text
    page = (report.parent / "report.html").read_text(encoding="utf-8")
    assert "pass rate ≥ 20%" in page
    again = tmp_path / "again"
    assert main(["report", str(report.parent / "comparison.json"), "--out", str(again)]) == 0
    assert (again / "report.md").read_text(encoding="utf-8") == text


def test_compare_without_floors_is_unchanged(
    real_pair: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    baseline, _ = real_pair
    report = tmp_path / "plain" / "report.md"
    code = main(["compare", str(baseline), str(REAL / "unedited-seed2"), "--report", str(report)])
    assert code == 0 and "floors:" not in capsys.readouterr().out
    assert _validate(report.parent / "comparison.json")["floors"] is None
    assert "## Floors" not in report.read_text(encoding="utf-8")


def test_a_manifest_with_broken_floors_is_a_clear_error(
    real_pair: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    baseline, candidate = real_pair
    manifest = json.loads((candidate / "manifest.json").read_text())
    manifest["floors"] = {"capital": {"min_pass_rate": "high"}}
    (candidate / "manifest.json").write_text(json.dumps(manifest))
    report = tmp_path / "bad" / "report.md"
    assert main(["compare", str(baseline), str(candidate), "--report", str(report)]) == 2
    err = capsys.readouterr().err
    assert "floors it cannot use" in err and "floors.capital" in err
    assert "Traceback" not in err
    assert not report.parent.exists() or not (report.parent / "comparison.json").exists()


# ---- run, nightly, ab: live batches -----------------------------------------------------------


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("floors")
    (root / "floor_agent.py").write_text(AGENT)
    (root / "suite.yaml").write_text(SUITE.format(own=""))
    (root / "costly.yaml").write_text(
        SUITE.format(own="floor: {min_pass_rate: 0.5, max_cost_usd_per_run: 0.02}")
    )
    plain = SUITE.format(own="").replace(", floor: {min_pass_rate: 0.8}", "")
    (root / "plain.yaml").write_text(plain)
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(root)
        patch.syspath_prepend(str(root))
        pipeline.run(Path("suite.yaml"), options=BatchOptions(runs=20, seed=1), out=Path("first"))
        pipeline.promote(Path("first"), baselines=Path("baselines"))
    return root


@pytest.fixture
def inside(project: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(project)
    monkeypatch.syspath_prepend(str(project))
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    return project


@pytest.mark.live
def test_run_checks_the_floors_without_a_baseline(inside: Path, capsys: pytest.CaptureFixture[str]):
    assert main(["run", "suite.yaml", "--out", "r20", "--no-progress"]) == 0
    assert "floors: all 2 bars met" in capsys.readouterr().out
    assert main(["run", "suite.yaml", "--runs", "10", "--out", "r10", "--no-progress"]) == 1
    out = capsys.readouterr().out
    assert "floors: 2 of 2 bars not met (exit 1)" in out
    said = "one (base): 10/10 passed (100%): the 95% lower bound 74.1% is below the floor 80%"
    assert said in out
    assert "about 14 runs would show it on 8 nights in 10" in out


@pytest.mark.live
def test_run_never_passes_an_unknown_cost(inside: Path, capsys: pytest.CaptureFixture[str]):
    assert main(["run", "costly.yaml", "--runs", "3", "--out", "rc", "--no-progress"]) == 1
    assert "cost unknown: 3 of 3 runs recorded no cost" in capsys.readouterr().out


@pytest.mark.live
def test_run_of_a_suite_without_floors_is_unchanged(
    inside: Path, capsys: pytest.CaptureFixture[str]
):
    assert main(["run", "plain.yaml", "--runs", "2", "--out", "rp", "--no-progress"]) == 0
    assert "floors:" not in capsys.readouterr().out
    assert "floors" not in json.loads((inside / "rp" / "manifest.json").read_text())


@pytest.mark.live
@pytest.mark.parametrize(("runs", "code"), [("20", 0), ("10", 1)])
def test_nightly_gates_on_the_floors(
    inside: Path, runs: str, code: int, capsys: pytest.CaptureFixture[str]
):
    reports = inside / f"nights-{runs}"
    args = ["nightly", "suite.yaml", "--runs", runs, "--reports", str(reports), "--no-progress"]
    assert main(args) == code
    (day,) = reports.iterdir()
    data = _validate(day / "comparison.json")
    assert data["comparison"]["regressed"] is False  # type: ignore[index]
    text = (day / "report.md").read_text(encoding="utf-8")
    assert ("**Floors: all met**" in text) is (code == 0)
    assert "floors:" in capsys.readouterr().out


@pytest.mark.live
def test_ab_checks_each_variants_arm(inside: Path, capsys: pytest.CaptureFixture[str]):
    reports = inside / "ab"
    args = ["ab", "suite.yaml", "--variant", "base", "--variant", "broken", "--runs", "20"]
    assert main([*args, "--reports", str(reports), "--no-progress"]) == 1
    out = capsys.readouterr().out
    assert "floors: 2 of 4 bars not met (exit 1)" in out
    (day,) = reports.iterdir()
    checks = _validate(day / "comparison.json")["floors"]["checks"]  # type: ignore[index]
    states = {(c["scenario"], c["variant"]): c["state"] for c in checks}
    assert states == {
        ("one", "base"): "met",
        ("two", "base"): "met",
        ("one", "broken"): "breached",
        ("two", "broken"): "breached",
    }
    text = (day / "ab.md").read_text(encoding="utf-8")
    assert "| one | broken | pass rate ≥ 80% | 🔴 breached | 0/20 passed (0%)" in text
