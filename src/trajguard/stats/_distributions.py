"""Distribution functions without scipy's per-call overhead (they sit in the inner loops)."""

from __future__ import annotations

from scipy import special

__all__ = ["norm_ppf", "t_cdf", "t_ppf", "t_sf"]


def t_sf(x: float, df: float) -> float:
    """Student t survival function (``scipy.stats.t.sf`` without its per-call overhead)."""
    return float(special.stdtr(df, -x))


def t_cdf(x: float, df: float) -> float:
    """Student t distribution function."""
    return float(special.stdtr(df, x))


def t_ppf(q: float, df: float) -> float:
    """Student t quantile."""
    return float(special.stdtrit(df, q))


def norm_ppf(q: float) -> float:
    """Standard normal quantile."""
    return float(special.ndtri(q))
