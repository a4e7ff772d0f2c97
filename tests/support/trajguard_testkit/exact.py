"""Independent computations the statistics tests check against."""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Iterator

import numpy as np
import numpy.typing as npt
from scipy import stats


def arrangements(total: int, n_c: int) -> Iterator[npt.NDArray[np.bool_]]:
    """Every labelling of ``total`` runs with ``n_c`` candidates, as a candidate mask."""
    for chosen in itertools.combinations(range(total), n_c):
        mask = np.zeros(total, dtype=bool)
        mask[list(chosen)] = True
        yield mask


def boschloo_greater(x_b: int, n_b: int, x_c: int, n_c: int) -> float:
    """scipy's Boschloo exact test that the baseline's rate is the greater."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = [[x_b, x_c], [n_b - x_b, n_c - x_c]]
        return float(stats.boschloo_exact(table, alternative="greater").pvalue)
