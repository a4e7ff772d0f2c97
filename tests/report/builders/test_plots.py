"""Distribution plots: one PNG per scenario the document links, none (and no figure) for none."""

from __future__ import annotations

import pandas as pd
from trajguard_testkit.rows import run_row

from trajguard.comparison import CompareConfig, compare_runsets
from trajguard.report.builders import _plots, build_document, plot_path, write_plots
from trajguard.results import ReportDocument, ReportKind
from trajguard.store import RunSet


def _runs(scenario: str) -> pd.DataFrame:
    cells = [("ok", True, 3, 100), ("ok", False, 5, 120), ("agent_error", False, 3, 90)]
    cells += [("ok", True, 7, 130), ("harness_error", None, 9, 999)]
    return pd.DataFrame(
        [
            run_row(scenario, passed, status=status, steps=steps, prompt=prompt)
            for status, passed, steps, prompt in cells
        ]
    )


def _document(plots: list[str]) -> ReportDocument:
    runs = _runs("a")
    config = CompareConfig()
    return build_document(
        compare_runsets(runs, runs, config=config),
        kind=ReportKind.COMPARE,
        baseline=RunSet(path="b", manifest={}, runs=runs),
        candidate=RunSet(path="c", manifest={}, runs=runs),
        plots=plots,
    )


def test_one_png_per_scenario(tmp_path):
    document = _document(["a"])
    assert document.plots == {"a": "plots/a.png"}
    sample = document.scenarios["a"].candidate.plot  # the harness error is left out
    assert (sample.pass_rate, sample.crash_rate, sample.judged) == (2 / 4, 1 / 4, 4)
    assert sample.steps == (3.0, 5.0, 3.0, 7.0)
    assert sample.prompt_tokens == (100.0, 120.0, 90.0, 130.0)
    assert write_plots(tmp_path, document) == [tmp_path / "plots" / "a.png"]
    assert (tmp_path / "plots" / "a.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_no_scenario_makes_no_figure(tmp_path, monkeypatch):
    def no_figure():
        raise AssertionError("a figure was made for no scenario")

    monkeypatch.setattr(_plots, "_new_figure", no_figure)
    assert write_plots(tmp_path, _document([])) == []
    assert list((tmp_path / "plots").iterdir()) == []


def test_plot_paths_are_one_safe_file_name():
    assert plot_path("weather / Paris: ok?") == "plots/weather_Paris_ok.png"
    assert plot_path("../../etc") == "plots/.._.._etc.png"
    assert plot_path("???") == "plots/scenario.png"
