"""The exact tables (Boschloo p-values of every outcome, and the rejection regions power is read
from) are built at most once per process, however many sizes a process asks for (issue 40:
the bounded caches they had rebuilt tables once a plan or a suite used more sizes than they
kept)."""

from __future__ import annotations

from trajguard import stats
from trajguard.stats import _power, _rates

# 81 sizes, more than the 64 p-value tables the cache used to keep; with 4 levels, 324
# rejection regions, more than the 256 it used to keep.
SIZES = [(n_b, n_c) for n_b in range(1, 10) for n_c in range(1, 10)]
ALPHAS = (0.01, 0.025, 0.05, 0.1)


def _powers() -> list[float]:
    return [
        stats.power_rates(0.9, 0.5, n_b, n_c, alpha=alpha) for n_b, n_c in SIZES for alpha in ALPHAS
    ]


def test_each_table_is_built_once_however_many_sizes_are_asked_for() -> None:
    _rates._boschloo_greater.cache_clear()
    _power._rejects.cache_clear()
    first = _powers()
    again = _powers()
    assert again == first
    assert _rates._boschloo_greater.cache_info().misses == len(SIZES)
    assert _power._rejects.cache_info().misses == len(SIZES) * len(ALPHAS)
    # The p-values of every side are read from the one-sided table, not built again.
    for n_b, n_c in SIZES:
        stats.boschloo_pvalues(n_b, n_c, "two-sided")
        stats.boschloo_pvalues(n_b, n_c, "less")
    assert _rates._boschloo_greater.cache_info().misses == len(SIZES)
