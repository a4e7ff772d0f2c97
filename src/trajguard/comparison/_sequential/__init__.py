"""Sequential batches (docs/explanation/statistics.md §4): up to three looks, stopping early
per scenario.

The candidate's runs come in looks of about N/3. After each look, every still-active scenario's
gating metrics (``CompareConfig.gating``; pass and crash rate by default) are tested against the
baseline, one-sided, at the look's alpha-spending threshold at alpha divided by the number of
gating tests (Bonferroni). Rates use Boschloo's exact test with the calibrated thresholds of
:func:`trajguard.stats.rate_thresholds` and curtailment; other directional metrics the
test of the fixed-sample comparison at the union-bound thresholds (valid for any test). A scenario
stops "regressed" when a metric crosses its threshold with its estimate outside the tolerance band
(docs/explanation/statistics.md §2), "no regression detected" when the candidate is no worse
than the baseline
(non-binding futility) or can no longer cross a later threshold (curtailment), and otherwise runs
on. In sequential mode this rule is the gate: :class:`SequentialDesign` settles the final
comparison's gating verdicts by it (headline, JUnit and exit code agree with it), and the final
comparison has no suite-level tests (the looks' thresholds spend the whole alpha).

A/B comparisons have no "no worse" side: :func:`decide_ab_look` stops a scenario only on a clear
pass-rate difference (either direction, thresholds at alpha/2 each, "stop: different" with the
direction), and otherwise runs it to the maximum; its pass-rate verdicts follow those stops.

One design, one package (split by concern to stay small): ``_rules`` holds the stopping rules and
the record types, ``_design`` the design's object, which produces its record.
"""

from trajguard.comparison._sequential._design import SequentialDesign
from trajguard.comparison._sequential._rules import (
    Decision,
    LookRecord,
    SequentialOutcome,
    SequentialRecord,
    Stop,
    decide_ab_look,
    decide_look,
    gate_metrics,
    gating_alpha,
    schedule,
)

__all__ = [
    "Decision",
    "LookRecord",
    "SequentialDesign",
    "SequentialOutcome",
    "SequentialRecord",
    "Stop",
    "decide_ab_look",
    "decide_look",
    "gate_metrics",
    "gating_alpha",
    "schedule",
]
