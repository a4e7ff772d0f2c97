"""`nightly`, `nightly --sequential` and `ab` end to end, in-process (callable agents whose
behaviour the test controls, real Parquet, real reports; the model server is only pinged)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from trajguard_testkit.browser import page_rows

from trajguard import pipeline, store
from trajguard.runner import BatchOptions

pytestmark = pytest.mark.live

AGENT = """
import os
from trajguard.capture import LLMResponse

async def agent(ctx):
    ctx.recorder.user(ctx.input)
    broken = ctx.variant == "broken" or os.environ.get("TG_BREAK") == "1"
    good = not broken and ctx.seed % 10 < (4 if os.environ.get("TG_MILD") == "1" else 8)
    ctx.recorder.agent_step(LLMResponse(content="391" if good else "no idea"))
    return None
"""

SUITE = """
name: tiny
defaults: {runs: 12, concurrency: 2}
variants:
  broken: {}
scenarios:
  - id: one
    agent: {kind: callable, function: "tiny_agent:agent"}
    input: What is 17 * 23?
    pass: [{final_output_contains: "391"}]
  - id: two
    agent: {kind: callable, function: "tiny_agent:agent"}
    input: And 23 * 17?
    pass: [{final_output_contains: "391"}]
"""


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("nightly")
    (root / "tiny_agent.py").write_text(AGENT)
    (root / "suite.yaml").write_text(SUITE)
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(root)
        patch.syspath_prepend(str(root))
        # A seeded baseline: the agent passes by its run seed, so the tests below are the same
        # every time (an unseeded one left the escalation test to chance).
        baseline = BatchOptions(runs=30, seed=20261201)
        pipeline.run(Path("suite.yaml"), options=baseline, out=Path("runs/first"))
        pipeline.promote(Path("runs/first"), baselines=Path("baselines"))
    return root


@pytest.fixture
def run(cli: Any, monkeypatch: pytest.MonkeyPatch) -> Callable[..., Any]:
    """``trajguard ARGS --no-progress`` in-process, with extra environment variables."""

    def call(*args: str, cwd: Path, env: dict[str, str] | None = None) -> Any:
        for key, value in (env or {}).items():
            monkeypatch.setenv(key, value)
        return cli(*args, "--no-progress", cwd=cwd)

    return call


def test_nightly_without_change_exits_0_and_writes_the_day(
    project: Path, tmp_path: Path, run: Callable[..., Any]
) -> None:
    summary = tmp_path / "summary.md"
    result = run(
        "nightly",
        "suite.yaml",
        "--reports",
        "r0",
        "--no-plots",
        cwd=project,
        env={"GITHUB_STEP_SUMMARY": str(summary)},
    )
    assert result.returncode == 0, result.stderr
    (day,) = (project / "r0").iterdir()
    report = (day / "report.md").read_text()
    assert "# trajguard report: tiny" in report and "regressed" not in report.split("\n")[2]
    assert len(store.read_runs(day / "runs")) == 24
    shown = page_rows(day / "report.html")["scenarios"]  # the page beside it, its runs inside
    assert sum(len(sides[1]) for sides in shown.values()) == 24
    assert summary.read_text().startswith("# trajguard report: tiny")
    assert f"→ r0/{day.name}/report.md" in result.stdout


def test_nightly_regression_exits_1(project: Path, run: Callable[..., Any]) -> None:
    result = run(
        "nightly", "suite.yaml", "--reports", "r1", "--no-plots", cwd=project, env={"TG_BREAK": "1"}
    )
    assert result.returncode == 1, result.stderr
    assert "verdict: regressed" in result.stdout


def test_nightly_sequential_stops_early_on_a_clear_regression(
    project: Path, run: Callable[..., Any]
) -> None:
    result = run(
        "nightly",
        "suite.yaml",
        "--reports",
        "r2",
        "--no-plots",
        "--sequential",
        "--runs",
        "30",
        cwd=project,
        env={"TG_BREAK": "1"},
    )
    assert result.returncode == 1, result.stderr
    (day,) = (project / "r2").iterdir()
    report = (day / "report.md").read_text()
    assert "## Sequential design" in report
    assert "**Sequential gate: regressed.**" in report
    runs = store.read_runs(day / "runs")
    assert len(runs) < 60, "a clear regression stops before the maximum of 30 runs per scenario"


def test_nightly_sequential_quiet_night_saves_runs(project: Path, run: Callable[..., Any]) -> None:
    result = run(
        "nightly",
        "suite.yaml",
        "--reports",
        "r3",
        "--no-plots",
        "--sequential",
        "--runs",
        "30",
        "--seed",
        "3",
        cwd=project,
    )
    assert result.returncode == 0, result.stderr
    (day,) = (project / "r3").iterdir()
    assert "**Sequential gate: no regression detected.**" in (day / "report.md").read_text()


def test_nightly_max_runs_escalates_a_leaning_scenario(
    project: Path, run: Callable[..., Any]
) -> None:
    # 80 % -> 40 %: at 12 runs per side inconclusive but leaning harmful; more runs decide it.
    result = run(
        "nightly",
        "suite.yaml",
        "--reports",
        "r4",
        "--no-plots",
        "--runs",
        "12",
        "--max-runs",
        "36",
        "--seed",
        "5",
        cwd=project,
        env={"TG_MILD": "1"},
    )
    (day,) = (project / "r4").iterdir()
    report = (day / "report.md").read_text()
    assert "## Escalation design" in report
    runs = store.read_runs(day / "runs")
    per_scenario = runs.groupby("scenario").size()
    assert per_scenario.max() > 12, "a leaning scenario got more runs"
    assert per_scenario.max() <= 36
    assert result.returncode == (1 if "**Verdict: 🔴 regressed**" in report else 0)
    both = run(
        "nightly", "suite.yaml", "--sequential", "--max-runs", "36", "--reports", "r5", cwd=project
    )
    assert both.returncode == 2 and "two designs" in both.stderr


def test_nightly_without_baseline_exits_2(
    project: Path, tmp_path: Path, run: Callable[..., Any]
) -> None:
    result = run("nightly", "suite.yaml", "--baseline", str(tmp_path / "none"), cwd=project)
    assert result.returncode == 2
    assert "has no baseline" in result.stderr and "baseline promote" in result.stderr


def test_ab_broken_variant_hurts(project: Path, run: Callable[..., Any]) -> None:
    result = run(
        "ab",
        "suite.yaml",
        "--variant",
        "base",
        "--variant",
        "broken",
        "--runs",
        "20",
        "--reports",
        "ab",
        "--no-plots",
        cwd=project,
    )
    assert result.returncode == 0, result.stderr
    assert "broken hurt compared with base" in result.stdout
    (folder,) = (project / "ab").iterdir()
    report = (folder / "ab.md").read_text()
    assert report.startswith("# trajguard A/B: broken against base")
    runs = store.read_runs(folder / "runs")
    assert sorted(runs["variant"].unique()) == ["base", "broken"]
    shown = page_rows(folder / "report.html")["scenarios"]
    for index, variant in enumerate(("base", "broken")):  # A plays the baseline, B the candidate
        assert (
            sum(len(sides[index]) for sides in shown.values()) == (runs["variant"] == variant).sum()
        )
    order = list(runs.sort_values("started_at")["variant"])
    assert order[:4].count("base") == 2, "variants are interleaved, not run one after the other"


def test_ab_same_variant_twice_is_refused(project: Path, run: Callable[..., Any]) -> None:
    result = run("ab", "suite.yaml", "--variant", "base", "--variant", "base", cwd=project)
    assert result.returncode == 2 and "two different names" in result.stderr
