"""Multiplicity: Holm (family-wise error) and Benjamini-Hochberg (false discovery rate)."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from scipy import stats

__all__ = ["bh", "holm"]

FloatArray = npt.NDArray[np.float64]


def holm(pvalues: npt.ArrayLike, alpha: float = 0.05) -> FloatArray:
    """Holm-adjusted p-values (family-wise error control); empty in, empty out.

    The values of ``statsmodels.stats.multitest.multipletests(p, method="holm")`` (which also
    runs a full garbage collection on every call, 50 ms). ``alpha`` does not change them.
    """
    p = np.asarray(pvalues, dtype=float)
    order = np.argsort(p, kind="stable")
    steps = (p.size - np.arange(p.size)) * p[order]
    adjusted = np.empty_like(p)
    adjusted[order] = np.minimum(np.maximum.accumulate(steps), 1.0)
    return adjusted


def bh(pvalues: npt.ArrayLike) -> FloatArray:
    """Benjamini-Hochberg adjusted p-values (false discovery rate); empty in, empty out."""
    p = np.asarray(pvalues, dtype=float)
    if p.size == 0:
        return p
    return np.asarray(stats.false_discovery_control(p, method="bh"), dtype=float)
