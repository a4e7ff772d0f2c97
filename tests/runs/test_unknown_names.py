"""A filter naming a scenario or variant the run set does not hold is refused, naming the ones
it holds (issue 41: `export --scenario <unknown>` wrote "0 ATIF files" and exited 0)."""

from __future__ import annotations

from pathlib import Path

import pytest

from trajguard.errors import UsageError
from trajguard.runs import RunFilter, export_runs, list_runs


def test_export_of_an_unknown_scenario_is_refused(small_runset: Path, tmp_path: Path) -> None:
    with pytest.raises(UsageError) as caught:
        export_runs(small_runset, tmp_path / "out", RunFilter(scenario="capitol"))
    assert caught.value.message == "the run set has no scenario 'capitol'"
    assert caught.value.hint == "its scenarios: capital, greeting"
    assert not any((tmp_path / "out").glob("*.json"))


def test_an_unknown_variant_is_refused_and_a_known_one_listed(small_runset: Path) -> None:
    with pytest.raises(UsageError, match="no variant 'short'") as caught:
        list_runs(small_runset, RunFilter(variant="short"))
    assert caught.value.hint == "its variants: base, terse"
    assert len(list_runs(small_runset, RunFilter(scenario="greeting", variant="terse"))) == 3


def test_a_known_scenario_with_no_match_is_an_empty_list_not_an_error(
    small_runset: Path,
) -> None:
    # the names exist; the other filters select nothing: that is an answer, not a mistake
    assert list_runs(small_runset, RunFilter(scenario="greeting", variant="base")) == ()


def test_the_cli_says_so(small_runset: Path, tmp_path: Path, cli) -> None:
    result = cli(
        "export", str(small_runset), "--scenario", "nope", "--out", str(tmp_path / "o"),
        cwd=tmp_path,
    )  # fmt: skip
    assert result.returncode == 2
    assert "the run set has no scenario 'nope'" in result.stderr
    assert "0 ATIF files" not in result.stdout
