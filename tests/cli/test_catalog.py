"""trajguard._catalog (the import-light tables the options and the suite loader read) says what
trajguard.comparison and trajguard.store say: the same bands, names, defaults and checks."""

from __future__ import annotations

import dataclasses
import math

import pytest

from trajguard import _catalog, store
from trajguard import comparison as compare
from trajguard.comparison import CompareConfig


def test_the_tolerance_bands_are_the_comparisons() -> None:
    assert [dataclasses.asdict(t) for t in _catalog.TOLERANCES] == [
        dataclasses.asdict(t) for t in compare.TOLERANCES
    ]
    names = sorted(n for t in compare.TOLERANCES for n in (t.name, *t.aliases))
    assert list(_catalog.TOLERANCE_NAMES) == names


def test_the_defaults_are_the_comparisons_and_the_stores() -> None:
    assert CompareConfig().suite_share == _catalog.SUITE_SHARE
    assert _catalog.DEFAULT_KEEP == store.DEFAULT_KEEP


VALUES = [-1.0, -0.0, 0.0, 0.05, 0.5, 0.51, 1.0, 1.01, 1.15, 2.0, math.inf, math.nan]


@pytest.mark.parametrize("name", _catalog.TOLERANCE_NAMES)
def test_a_value_has_the_same_problem_in_both(name: str) -> None:
    ours, theirs = _catalog.tolerance(name), compare.tolerance(name)
    for value in VALUES:
        assert ours.problem(value, given_as=name) == theirs.problem(value, given_as=name), value
    assert any(ours.problem(v) is None for v in VALUES)
    assert any(ours.problem(v) is not None for v in VALUES)


@pytest.mark.parametrize(
    "values",
    [{}, {"pass_rate": 0.2, "tokens": 1.3}, {"tokens": 0.9, "steps": 0.7}, {"nope": 1.0}],
    ids=["none", "fine", "out of range", "unknown"],
)
def test_tolerance_problems_are_the_comparisons(values: dict[str, float]) -> None:
    assert _catalog.tolerance_problems(values) == compare.tolerance_problems(values)
