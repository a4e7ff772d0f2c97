"""A tolerance band: how far a metric may move before a significant change is a regression.

The bands themselves are listed in :data:`trajguard.compare.TOLERANCES` (``_registry``), with the
metrics that use them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

__all__ = ["Tolerance"]


@dataclass(frozen=True, kw_only=True)
class Tolerance:
    """A tolerance band: how far a metric may move before a significant change is a regression.

    Attributes:
        name: the name suites and ``--tolerance`` use.
        aliases: other accepted names.
        default: the band when nothing sets it.
        scale: ``difference`` (of rates, 0 to 1), ``distance`` (of A from 1/2, 0 to 0.5),
            ``ratio`` (above 1; 1.15 tolerates ±15 %) or ``share`` (of calls or runs, 0 to 1).
        meaning: one line for help texts and reports.
    """

    name: str
    aliases: tuple[str, ...] = ()
    default: float
    scale: Literal["difference", "distance", "ratio", "share"]
    meaning: str

    def problem(self, value: float, *, given_as: str | None = None) -> str | None:
        """What is wrong with ``value`` for this band, or ``None``."""
        name = given_as or self.name
        if not math.isfinite(value) or value < 0:
            return f"{name} must be a number of at least 0, got {value}"
        if self.scale == "ratio" and value <= 1:
            return f"{name} is a ratio above 1 (1.15 tolerates ±15 %), got {value}"
        if self.scale == "difference" and value > 1:
            return f"{name} is a difference of rates (0.10 = ten points), at most 1, got {value}"
        if self.scale == "distance" and value > 0.5:
            return f"{name} is a distance of A from 1/2, at most 0.5, got {value}"
        if self.scale == "share" and value > 1:
            return f"{name} is a share (0.10 = a tenth), at most 1, got {value}"
        return None
