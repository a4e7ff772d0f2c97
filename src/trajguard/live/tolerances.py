"""Names of the tolerance bands a suite or the command line can set, and the settings they map to.

``pass_rate`` and ``crash_rate`` are absolute differences (0.10 = ten points); ``steps`` and
``tools`` are the tolerated distance of A = P(candidate > baseline) + ½P(tie) from ½; ``tokens``
and ``latency`` (one shared band) are a ratio above 1 (1.15 tolerates ±15 %).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

__all__ = ["TOLERANCES", "margin_fields", "tolerance_problem"]

TOLERANCES: Mapping[str, str] = {
    "pass_rate": "pass_rate_margin",
    "crash_rate": "crash_rate_margin",
    "steps": "steps_margin",
    "step_count": "steps_margin",
    "tokens": "ratio_margin",
    "latency": "ratio_margin",
    "ratio": "ratio_margin",
    "tools": "tool_margin",
}


def margin_fields(tolerances: Mapping[str, float]) -> dict[str, float]:
    """Tolerance names → comparison settings (an unknown name raises KeyError)."""
    return {TOLERANCES[name]: float(value) for name, value in tolerances.items()}


def tolerance_problem(name: str, value: float) -> str | None:
    """What is wrong with a tolerance value, or ``None`` (``name`` must be in TOLERANCES)."""
    setting = TOLERANCES[name]
    if not math.isfinite(value) or value < 0:
        return f"{name} must be a number of at least 0, got {value}"
    if setting == "ratio_margin" and value <= 1:
        return f"{name} is a ratio above 1 (1.15 tolerates ±15 %), got {value}"
    if setting in ("pass_rate_margin", "crash_rate_margin") and value > 1:
        return f"{name} is a difference of rates (0.10 = ten points), at most 1, got {value}"
    if setting in ("steps_margin", "tool_margin") and value > 0.5:
        return f"{name} is a distance of A from 1/2, at most 0.5, got {value}"
    return None
