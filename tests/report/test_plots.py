"""Distribution plots: one PNG per scenario asked for, none (and no figure) for none."""

from __future__ import annotations

import pandas as pd

from trajguard.report import _plots, write_plots


def _runs(scenario: str) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "scenario": [scenario] * 4,
            "status": ["ok", "ok", "agent_error", "ok"],
            "passed": [True, False, False, True],
            "step_count": [3, 5, 3, 7],
            "prompt_tokens": [100, 120, 90, 130],
        }
    )


def test_one_png_per_scenario(tmp_path):
    links = write_plots(tmp_path, _runs("a"), _runs("a"), ["a"])
    assert links == {"a": "plots/a.png"}
    assert (tmp_path / "plots" / "a.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_no_scenario_makes_no_figure(tmp_path, monkeypatch):
    def no_figure():
        raise AssertionError("a figure was made for no scenario")

    monkeypatch.setattr(_plots, "_new_figure", no_figure)
    assert write_plots(tmp_path, _runs("a"), _runs("a"), iter(())) == {}
    assert list((tmp_path / "plots").iterdir()) == []
