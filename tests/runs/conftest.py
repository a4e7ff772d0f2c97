"""The small run set of the runs tests (trajguard_testkit.runsets builds it)."""

from __future__ import annotations

from pathlib import Path

import pytest
from trajguard_testkit.runsets import make_row, write_runset


@pytest.fixture
def small_runset(tmp_path: Path) -> Path:
    """capital: 6 runs (3 pass, 2 call get_weather, 1 answers Sydney); greeting/terse: 2 runs;
    one harness error without a trajectory."""
    rows = [
        make_row("capital", 0, ["lookup_country"]),
        make_row("capital", 1, ["lookup_country"]),
        make_row("capital", 2, ["lookup_country", "calculator"]),
        make_row("capital", 3, ["lookup_country", "get_weather"]),
        make_row("capital", 4, ["get_weather"]),
        make_row("capital", 5, ["lookup_country"], "It is Sydney."),
        make_row("greeting", 0, [], "Hello!", variant="terse", criteria=[]),
        make_row("greeting", 1, ["get_weather"], "Hi", variant="terse", criteria=[]),
        make_row(
            "greeting",
            2,
            [],
            variant="terse",
            status="harness_error",
            with_trajectory=False,
            error_message="endpoint unreachable",
        ),
    ]
    return write_runset(tmp_path / "rs", rows)
