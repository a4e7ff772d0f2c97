"""Each read-only command imports what it runs (issue 40): `show`, `runs`, `report` and
`trend` run in a fresh process (`python -m trajguard.cli ...` through the wrapper of
trajguard_testkit.imports) on small real inputs, and none of them loads the batch runner, a
model client, statsmodels or matplotlib; `show` and `runs` load no comparison code, no scipy and
no ATIF models (a run set's rows hold the shapes);
`report` does not draw the plots again unless `--redraw` asks (and draws them when it does:
the control), and what it writes is byte for byte the committed sample report. No timing is
asserted (benchmarks/bench_command_floors.py measures it).

`report` and `trend` read the comparison's record types without the code that compares
(`_compare` and the tests it runs): the record modules import it inside the functions that
compare. Nor do they load the metric registry (`_registry`, whose metrics carry their
evaluators, and through them `_arms`, `_joint` and the numeric code): the renderers word a
metric from the standard-library table (`trajguard._metric_table.metric_description`); and
`report` loads no pandas. What they still load: numpy and scipy (the record modules
`results._document` reads import them at module level, and the store's pyarrow brings numpy);
trend's own tests use scipy.stats and its store reads pandas.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from trajguard_testkit.imports import command_imports
from trajguard_testkit.nights import night

from trajguard.nights import record_night

REPO = Path(__file__).resolve().parents[2]
RUNSET = REPO / "benchmarks" / "data" / "real-nights-2026-12-01" / "baseline"
SAMPLES = REPO / "reports"

NEVER = ("statsmodels", "matplotlib", "litellm", "aiohttp", "openai", "trajguard.runner")
"""Loaded by no read-only command (only by a comparison, a plot or a model call)."""
COMPARING = ("trajguard.comparison", "scipy")
"""Loaded by no command that reads one run set."""
TRAJECTORY_MODELS = ("trajguard.atif", "trajguard.core", "pydantic")
"""The ATIF models and the shapes computed from them: a run set's rows already hold the shape,
so no command that reads one loads them (only `show` of a trajectory file does)."""
COMPARING_CODE = (
    "trajguard.comparison._compare",
    "trajguard.comparison._combined_tests",
    "trajguard.comparison._families",
)
"""The comparison itself: loaded by no command that reads a comparison's or a night's records."""
METRIC_CODE = (
    "trajguard.comparison._registry",
    "trajguard.comparison._metric",
    "trajguard.comparison._evaluators",
    "trajguard.comparison._arms",
    "trajguard.comparison._joint",
)
"""How a metric is computed: loaded by no command that only words a metric (issue 40)."""


def _loaded(modules: list[str], names: tuple[str, ...]) -> list[str]:
    """Which of ``names`` (packages or modules) ``modules`` holds."""
    return sorted({n for n in names for m in modules if m == n or m.startswith(n + ".")})


def test_show_loads_neither_the_comparison_nor_scipy(tmp_path: Path) -> None:
    answer = command_imports(tmp_path, "show", str(RUNSET))
    assert answer["code"] == 0, answer["stderr"]
    assert "capital" in answer["stdout"] and "median steps" in answer["stdout"]
    assert _loaded(answer["modules"], NEVER + COMPARING + TRAJECTORY_MODELS) == []


def test_show_of_a_trajectory_file_loads_its_models(tmp_path: Path) -> None:
    """The control: a trajectory is read through the ATIF models and shaped."""
    trajectory = REPO / "tests" / "core" / "data" / "real_atif" / "openhands-hello-world.json"
    answer = command_imports(tmp_path, "show", str(trajectory))
    assert answer["code"] == 0, answer["stderr"]
    assert _loaded(answer["modules"], TRAJECTORY_MODELS) == sorted(TRAJECTORY_MODELS)


def test_runs_loads_neither_the_comparison_nor_pandas(tmp_path: Path) -> None:
    answer = command_imports(tmp_path, "runs", str(RUNSET), "--scenario", "capital")
    assert answer["code"] == 0, answer["stderr"]
    assert answer["stdout"].count("\n") == 20  # the baseline's 20 runs of capital
    assert _loaded(answer["modules"], (*NEVER, *COMPARING, *TRAJECTORY_MODELS, "pandas")) == []


@pytest.mark.parametrize("sample", ["sample-nightly", "sample-ab"])
def test_report_renders_the_sample_again_without_drawing_a_plot(
    tmp_path: Path, sample: str
) -> None:
    source = SAMPLES / sample / "comparison.json"
    answer = command_imports(tmp_path, "report", str(source), "--out", "again")
    assert answer["code"] == 0, answer["stderr"]
    assert _loaded(answer["modules"], (*NEVER, *COMPARING_CODE, *METRIC_CODE, "scipy.stats")) == []
    assert _loaded(answer["modules"], ("pandas",)) == []
    assert "trajguard.report.builders._document" not in answer["modules"]  # the document's builder
    written = sorted(p.relative_to(tmp_path / "again") for p in (tmp_path / "again").rglob("*"))
    assert any(p.suffix == ".png" for p in written), written
    for relative in written:
        if (tmp_path / "again" / relative).is_file():
            again = (tmp_path / "again" / relative).read_bytes()
            assert again == (SAMPLES / sample / relative).read_bytes(), relative


def test_report_pr_comment_words_the_metrics_without_computing_them(tmp_path: Path) -> None:
    """The pull-request comment reads the metric table only, and prints the committed sample."""
    source = SAMPLES / "sample-nightly" / "comparison.json"
    answer = command_imports(
        tmp_path, "report", str(source), "--format", "pr-comment", "--page-url", "report.html"
    )
    assert answer["code"] == 0, answer["stderr"]
    assert _loaded(answer["modules"], (*NEVER, *COMPARING_CODE, *METRIC_CODE, "pandas")) == []
    sample = (SAMPLES / "sample-nightly" / "pr-comment.md").read_text(encoding="utf-8")
    assert answer["stdout"] == sample


def test_report_redraw_draws_the_same_plots(tmp_path: Path) -> None:
    """The control: asked to, `report` imports matplotlib and draws every plot, the same bytes."""
    source = SAMPLES / "sample-nightly" / "comparison.json"
    answer = command_imports(tmp_path, "report", str(source), "--out", "drawn", "--redraw")
    assert answer["code"] == 0, answer["stderr"]
    assert _loaded(answer["modules"], ("matplotlib",)) == ["matplotlib"]
    plots = sorted((tmp_path / "drawn" / "plots").iterdir())
    assert len(plots) == 4
    for plot in plots:
        assert plot.read_bytes() == (SAMPLES / "sample-nightly" / "plots" / plot.name).read_bytes()


def test_report_draws_the_plots_that_are_missing(tmp_path: Path) -> None:
    """A comparison.json moved without its plots: they are drawn, not left dangling."""
    folder = tmp_path / "moved"
    folder.mkdir()
    shutil.copy(SAMPLES / "sample-nightly" / "comparison.json", folder)
    answer = command_imports(tmp_path, "report", "moved/comparison.json")
    assert answer["code"] == 0, answer["stderr"]
    assert _loaded(answer["modules"], ("matplotlib",)) == ["matplotlib"]
    for plot in (SAMPLES / "sample-nightly" / "plots").iterdir():
        assert (folder / "plots" / plot.name).read_bytes() == plot.read_bytes()
    assert (folder / "report.md").read_bytes() == (
        SAMPLES / "sample-nightly" / "report.md"
    ).read_bytes()


def test_report_refuses_redraw_with_no_plots(tmp_path: Path) -> None:
    source = SAMPLES / "sample-nightly" / "comparison.json"
    answer = command_imports(
        tmp_path, "report", str(source), "--out", "x", "--redraw", "--no-plots"
    )
    assert answer["code"] == 2
    assert "--redraw" in answer["stderr"] and "Traceback" not in answer["stderr"]
    assert not (tmp_path / "x").exists()


def test_trend_loads_no_comparison_runner_plot_or_model_client(tmp_path: Path) -> None:
    for i in range(8):
        rates = {"capital": 0.5, "multiply": 0.9 if i < 5 else 0.2}
        record_night(
            tmp_path / "store", night(f"n{i:02d}", date=f"2026-11-{i + 1:02d}", rates=rates, seed=i)
        )
    answer = command_imports(tmp_path, "trend", "store")
    assert answer["code"] == 0, answer["stderr"]
    assert "# Trend (8 nights of suite demo" in answer["stdout"]
    assert _loaded(answer["modules"], NEVER + COMPARING_CODE + METRIC_CODE) == []
    assert "trajguard.pipeline" not in answer["modules"]
