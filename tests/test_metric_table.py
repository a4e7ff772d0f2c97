"""trajguard._metric_table is the one table of metrics: the comparison's metrics are its entries
with their evaluators, the suite's ``gate:``, ``--gate`` and the comparison settings check names
against it, the renderers word a metric through its lookup, and it stays import-light."""

from __future__ import annotations

import dataclasses
import subprocess
import sys

import pytest

from trajguard import _metric_table as table
from trajguard import comparison
from trajguard.comparison import _evaluators
from trajguard.suite._gates import check_gates


def test_the_comparisons_metrics_are_the_tables_entries_in_its_order() -> None:
    assert comparison.METRIC_NAMES is table.METRIC_NAMES
    assert comparison.DEFAULT_GATING is table.DEFAULT_GATING
    assert len(comparison.METRICS) == len(table.METRIC_DESCRIPTIONS)
    for metric, description in zip(comparison.METRICS, table.METRIC_DESCRIPTIONS, strict=True):
        own = {f.name: getattr(metric, f.name) for f in dataclasses.fields(description)}
        assert own == dataclasses.asdict(description)
        assert metric.evaluate is getattr(_evaluators, description.evaluator)


def test_the_default_gates_are_the_entries_marked_gating() -> None:
    assert {"pass_rate", "crash_rate", "tool_usage", "failing_paths"} == table.DEFAULT_GATING


@pytest.mark.parametrize(
    ("names", "unknown"),
    [
        (["pass_rate", "cost"], []),
        (["tool_multiset"], []),  # an earlier name of tool_usage
        (["vibes", "pass_rate", "latncy", "vibes"], ["vibes", "latncy"]),
    ],
)
def test_one_check_of_metric_names(names: list[str], unknown: list[str]) -> None:
    assert table.unknown_metrics(names) == unknown


def test_the_suite_and_the_settings_accept_what_the_table_knows() -> None:
    names = ("cost", "tool_multiset")
    assert check_gates(names) == ("cost", "tool_usage")
    assert comparison.CompareConfig(gating=frozenset(names)).gating == {"cost", "tool_usage"}


def test_the_suite_and_the_settings_refuse_what_it_does_not() -> None:
    with pytest.raises(comparison.InvalidSettings) as info:
        comparison.CompareConfig(gating=frozenset({"vibes", "pass_rate"}))
    assert [p.setting for p in info.value.problems] == ["gating"]
    assert "unknown metric(s) ['vibes']" in info.value.message
    with pytest.raises(ValueError, match=r"unknown metric 'latncy' \(the closest is 'latency'\)"):
        check_gates(("pass_rate", "latncy"))


def test_the_lookup_gives_the_tables_entry_by_its_name_or_an_earlier_one() -> None:
    assert table.metric_description("latency") is table.METRIC_DESCRIPTIONS[5]
    assert table.metric_description("tool_multiset").name == "tool_usage"
    with pytest.raises(KeyError):
        table.metric_description("vibes")


@pytest.mark.parametrize("name", table.METRIC_NAMES)
def test_a_metric_reads_the_same_from_the_table_and_from_the_comparison(name: str) -> None:
    """The comparison's metric inherits its words: what the renderers write does not depend on
    which of the two they look up."""
    described, computed = table.metric_description(name), comparison.metric(name)
    side = comparison.Summary(n=12, mean=0.25, median=3.0, geometric_mean=None)
    assert (described.heading, described.no_change, described.directional) == (
        computed.heading,
        computed.no_change,
        computed.directional,
    )
    assert described.format_side(side) == computed.format_side(side)
    assert described.format_effect(0.4, (0.1, 0.7)) == computed.format_effect(0.4, (0.1, 0.7))
    assert described.format_band(0.15) == computed.format_band(0.15)


def test_the_table_imports_only_the_standard_library() -> None:
    code = (
        "import sys, trajguard._metric_table; "
        "print(sorted(m for m in ('numpy', 'pandas', 'scipy', 'pydantic') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
