"""The one verdict rule: a test's evidence → its verdict; verdicts → a scenario's and a report's;
the report → its exit code (docs/explanation/statistics.md §2).

Every path that decides a verdict — a metric of a fixed comparison under either multiplicity
setting, a suite-level test, a metric whose significance a sequential or escalation design
decided — builds an :class:`Evidence` and calls :func:`verdict_of`. What differs between those
paths is only *how significance was established* (which family, which level, which design); the
mapping from evidence to words is this one ladder:

1. not testable (a side without runs) → inconclusive;
2. a significant change (harmful, or any change for a metric without direction, or either
   direction two-sided):
   two-sided on the beneficial side → improved (as a one-sided improvement, on significance
   alone: the band is a tolerance of harm);
   otherwise inside its tolerance band → changed within tolerance;
   beyond it → *regressed* for a directional metric, and for a gating metric without direction
   in a one-sided comparison (the suite declared that this behaviour must not move beyond its
   band); *changed* for a metric without direction that is diagnostic or compared two-sided
   (nothing says which way is worse);
3. a significant improvement in its own family (one-sided) → improved;
4. equivalence shown (TOST at most alpha) → unchanged;
5. otherwise → inconclusive.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum

__all__ = [
    "EXIT_BLIND",
    "EXIT_OK",
    "EXIT_REGRESSED",
    "Evidence",
    "Verdict",
    "combine_verdicts",
    "exit_code",
    "verdict_of",
]


class Verdict(StrEnum):
    """A metric's, a scenario's or a report's verdict."""

    REGRESSED = "regressed"
    IMPROVED = "improved"
    UNCHANGED = "unchanged"
    CHANGED_WITHIN_TOLERANCE = "changed within tolerance"
    CHANGED = "changed"
    INCONCLUSIVE = "inconclusive"


EXIT_OK = 0
"""No gating regression (and, with ``--require-power``, every scenario could see its band)."""
EXIT_REGRESSED = 1
"""A gating metric or a suite-level test regressed: the night failed."""
EXIT_BLIND = 4
"""No regression found, but ``--require-power`` was asked and some scenario's gating tests could
not detect a drop of its pass-rate band (a blind night, distinct from a regression)."""
EXIT_BUDGET = 6
"""A budget (``--max-cost``, ``--max-minutes``) ended the batch before its plan and no regression
was found in the runs it made: the finished runs are kept, ``--resume`` finishes the batch."""


@dataclass(frozen=True, kw_only=True)
class Evidence:
    """What a verdict is decided from."""

    testable: bool = True
    """both sides had runs for this metric."""
    significant: bool = False
    """the change is significant where it is judged (its family's adjusted p-value, its scenario's
    combined test, a suite-level test, or a design's threshold)."""
    beyond_band: bool = False
    """the estimate lies beyond the tolerance band (on the harmful side for a directional metric).
    """
    directional: bool = True
    """the metric has a better and a worse direction."""
    two_sided: bool = False
    """the comparison is two-sided (A/B)."""
    beneficial_side: bool = False
    """two-sided, the estimate points in the beneficial direction."""
    gating: bool = True
    """the metric gates (its regressions fail the night)."""
    improved: bool = False
    """one-sided, the improvement family is significant."""
    equivalent: bool = False
    """the equivalence test (TOST) shows the change within the band."""


def verdict_of(evidence: Evidence) -> Verdict:
    """The verdict of one test (the ladder of the module docstring)."""
    e = evidence
    if not e.testable:
        return Verdict.INCONCLUSIVE
    if e.significant:
        if not e.directional:
            if not e.beyond_band:
                return Verdict.CHANGED_WITHIN_TOLERANCE
            return Verdict.REGRESSED if e.gating and not e.two_sided else Verdict.CHANGED
        if e.two_sided and e.beneficial_side:
            return Verdict.IMPROVED
        return Verdict.REGRESSED if e.beyond_band else Verdict.CHANGED_WITHIN_TOLERANCE
    if e.improved:
        return Verdict.IMPROVED
    if e.equivalent:
        return Verdict.UNCHANGED
    return Verdict.INCONCLUSIVE


def combine_verdicts(verdicts: Sequence[Verdict], *, suite: Iterable[Verdict] = ()) -> Verdict:
    """A scenario's verdict from its gating metrics, or a report's from its scenarios and its
    suite-level tests.

    Any regressed (a suite-level test included): regressed; then any changed (a difference
    beyond its band with no direction to call it): changed; all unchanged: unchanged; any
    improved: improved; only unchanged or changed within tolerance: changed within tolerance;
    otherwise (or none): inconclusive.
    """
    if Verdict.REGRESSED in verdicts or Verdict.REGRESSED in tuple(suite):
        return Verdict.REGRESSED
    if Verdict.CHANGED in verdicts:
        return Verdict.CHANGED
    if verdicts and all(v is Verdict.UNCHANGED for v in verdicts):
        return Verdict.UNCHANGED
    if Verdict.IMPROVED in verdicts:
        return Verdict.IMPROVED
    calm = {Verdict.UNCHANGED, Verdict.CHANGED_WITHIN_TOLERANCE}
    if verdicts and all(v in calm for v in verdicts):
        return Verdict.CHANGED_WITHIN_TOLERANCE
    return Verdict.INCONCLUSIVE


def exit_code(*, failed: bool, blind: bool, require_power: bool) -> int:
    """The exit code of a comparison: 1 when the night failed, 4 when it was blind and power
    was required, else 0."""
    if failed:
        return EXIT_REGRESSED
    if blind and require_power:
        return EXIT_BLIND
    return EXIT_OK
