"""The plain answer of an A/B comparison (its overall tests' and its pairwise judge's)."""

from __future__ import annotations

from enum import StrEnum

__all__ = ["Answer"]


class Answer(StrEnum):
    """The plain answer to "did B help?".

    Helped and hurt come from the overall stratified tests of pass and crash rate, and the
    pairwise judge's preference when the suite has one (Holm over them at alpha); "behaved
    differently" when those find nothing but some scenario's gating
    metric regressed, improved or changed beyond its band (the per-scenario family, adjusted
    over scenarios at alpha); otherwise no detectable difference.
    """

    HELPED = "helped"
    HURT = "hurt"
    DIFFERENT = "behaved differently"
    NO_DETECTABLE_DIFFERENCE = "no detectable difference"
