"""How far one category's share rose in the candidate: the largest standardised rise.

The runs fall into categories (one-hot rows; a run in none of them, such as an unjudged run, is
a row of zeros and counts in neither arm). For each category ``k`` among ``watched`` the
two-sample z of its share, with the pooled share's variance,

    z_k = (c_k / n_c - b_k / n_b) / sqrt(s_k (1 - s_k) (1 / n_c + 1 / n_b)),

and the statistic is the largest ``z_k``: a test of "some watched category gained share" that
does not need to know which one. Permuting whole runs calibrates the maximum, so the choice of
the category costs exactly what it should.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import numpy.typing as npt

__all__ = ["largest_rise", "rise_statistic"]

FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]
Statistic = Callable[[BoolArray], FloatArray]

# An arrangement with an empty arm says nothing: it ranks below every real value.
_NOTHING = -1e12


def _rises(
    cells: FloatArray, watched: Sequence[int], masks: BoolArray
) -> tuple[FloatArray, FloatArray]:
    """Arrangements x watched categories: the rise of each share and its standardised value."""
    total = cells.sum(axis=0)
    runs = total.sum()
    share = total[list(watched)] / runs if runs else np.zeros(len(watched))
    spread = np.sqrt(np.maximum(share * (1 - share), 1e-12))
    in_c = masks.astype(float) @ cells
    n_c = in_c.sum(axis=1, keepdims=True)
    n_b = runs - n_c
    in_c = in_c[:, list(watched)]
    in_b = total[None, list(watched)] - in_c
    with np.errstate(divide="ignore", invalid="ignore"):
        rise = in_c / n_c - in_b / n_b
        z = rise / (spread[None, :] * np.sqrt(1 / n_c + 1 / n_b))
    return rise, np.asarray(np.where((n_c > 0) & (n_b > 0), z, _NOTHING), dtype=float)


def rise_statistic(cells: FloatArray, watched: Sequence[int]) -> Statistic:
    """The largest standardised rise of a ``watched`` category's share (see module docstring).

    ``cells`` is runs x categories, one-hot (or all zeros for a run that counts in neither arm).
    """
    if not watched:
        return lambda masks: np.zeros(len(masks))

    def stat(masks: BoolArray) -> FloatArray:
        return np.asarray(_rises(cells, watched, masks)[1].max(axis=1), dtype=float)

    return stat


def largest_rise(cells: FloatArray, watched: Sequence[int], mask: BoolArray) -> tuple[int, float]:
    """For one arrangement: the watched category with the largest z (its column in ``cells``)
    and the rise of its share (candidate minus baseline)."""
    rise, z = (values[0] for values in _rises(cells, watched, mask[None, :]))
    k = int(np.argmax(z))
    return list(watched)[k], float(rise[k])
