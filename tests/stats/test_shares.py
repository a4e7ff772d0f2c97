"""The largest standardised rise of a category's share, against a computation by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest
from trajguard_testkit.exact import arrangements

from trajguard import stats as st

# Six runs in three categories; run 4 counts in none (an unjudged run).
CELLS = np.array(
    [[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 0, 0], [0, 0, 0], [0, 1, 0]],
    dtype=float,
)


def _by_hand(cells: np.ndarray, watched: list[int], in_c: np.ndarray) -> float:
    """max over watched k of (c_k/n_c - b_k/n_b) / sqrt(s_k(1 - s_k)(1/n_c + 1/n_b))."""
    rows = [r for r in range(len(cells)) if cells[r].sum() > 0]
    cand = [r for r in rows if in_c[r]]
    base = [r for r in rows if not in_c[r]]
    if not cand or not base:
        return -math.inf
    best = -math.inf
    for k in watched:
        c_k = sum(cells[r, k] for r in cand)
        b_k = sum(cells[r, k] for r in base)
        s = (c_k + b_k) / len(rows)
        spread = math.sqrt(max(s * (1 - s), 1e-12) * (1 / len(cand) + 1 / len(base)))
        best = max(best, (c_k / len(cand) - b_k / len(base)) / spread)
    return best


@pytest.mark.parametrize("watched", [[0], [1, 2], [0, 1, 2]])
def test_every_arrangement_matches_the_formula(watched: list[int]) -> None:
    masks = np.array(list(arrangements(6, 3)))
    got = st.rise_statistic(CELLS, watched)(masks)
    for mask, value in zip(masks, got, strict=True):
        expected = _by_hand(CELLS, watched, mask)
        if math.isinf(expected):
            assert value < -1e11, "an arrangement with an empty arm ranks below every other"
        else:
            assert value == pytest.approx(expected, rel=1e-12)


def test_no_watched_category_gives_a_constant_statistic() -> None:
    masks = np.array(list(arrangements(6, 2)))
    assert np.all(st.rise_statistic(CELLS, [])(masks) == 0.0)


def test_the_largest_rise_names_its_category_and_its_rise_in_share() -> None:
    cand = np.array([False, True, False, False, True, True])  # runs 1 and 5 (category 1) + 4
    column, rise = st.largest_rise(CELLS, [0, 1, 2], cand)
    assert column == 1
    assert rise == pytest.approx(2 / 2 - 0 / 3)
