"""What a comparison says of its judges: how consistently each judged, which judged once, which
gave every run one verdict, which a probe or a rule on answer length shows cannot judge.

All are frozen and keyword-only, as the other result types (:mod:`trajguard.comparison._results`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = [
    "UNSTABLE_JUDGE_DISAGREEMENT",
    "JudgeConsistency",
    "JudgeOnce",
    "JudgeProbe",
    "LengthRuleJudge",
    "UniformJudge",
]


UNSTABLE_JUDGE_DISAGREEMENT = 0.2
"""A judge is flagged unstable when two of its verdicts on one run disagree more often than
this (its pairwise disagreement), with 95 % confidence: the lower end of the interval of
:attr:`JudgeConsistency.pair_disagreement` is above it. 0.2 is a judge flipping about 11 % of
its verdicts at random."""


@dataclass(frozen=True, kw_only=True)
class JudgeConsistency:
    """How consistently a ``judge`` criterion judged the runs of one scenario (one side)."""

    scenario: str
    """the scenario."""
    criterion: str
    """the criterion's label (``judge: "…"``)."""
    side: Literal["baseline", "candidate"]
    """``baseline`` or ``candidate``."""
    model: str
    """the judge model."""
    samples: int
    """verdicts per run."""
    runs: int
    """runs whose every sample gave a verdict (the ones measured)."""
    disagreeing_runs: int
    """runs whose verdicts were not all the same."""
    disagreement: float
    """``disagreeing_runs / runs``."""
    noise_share: float | None
    """the share of one verdict's variance that is the judge's own noise: the within-run variance
    (each run's ``s (k - s) / (k (k - 1))``, unbiased, ``s`` its PASS verdicts of ``k``) over the
    total (``p (1 - p)``, ``p`` the share of PASS, corrected by the variance of its estimate);
    clipped to [0, 1]; ``None`` when every verdict was the same (no variance at all). A judge that
    is pure noise reads 1."""
    verdict_pass_rate: float
    """the share of PASS among all the verdicts."""
    unstable: bool
    """the lower end of ``pair_disagreement``'s interval is above
    :data:`UNSTABLE_JUDGE_DISAGREEMENT`: the scenario's pass rate moves with the judge's noise, not
    only with the agent."""
    pair_disagreement: float = 0.0
    """the chance that two verdicts of the judge on the same run disagree (each run's share of
    disagreeing pairs of its verdicts, averaged: unbiased, and the same figure whatever
    ``samples``)."""
    pair_disagreement_low: float = 0.0
    """its lower 95 % bound (a Wilson interval over the runs, which is conservative for a mean of
    values in [0, 1])."""
    pair_disagreement_high: float = 0.0
    """its upper 95 % bound."""
    noise_share_low: float | None = None
    """the lower end of the noise share's 95 % interval (percentile bootstrap over runs, 999
    resamples); ``None`` with ``noise_share``."""
    noise_share_high: float | None = None
    """its upper end."""


@dataclass(frozen=True, kw_only=True)
class JudgeOnce:
    """A ``judge`` criterion that gave one verdict per run (``samples: 1``) on one side: how
    often the judge contradicts itself is not measured, so the share of a pass-rate change
    that is the judge's noise is unknown.
    """

    scenario: str
    """the scenario."""
    criterion: str
    """the criterion's label (``judge: "…"``)."""
    side: Literal["baseline", "candidate"]
    """``baseline`` or ``candidate``."""
    model: str
    """the judge model."""
    runs: int
    """runs the judge decided."""


@dataclass(frozen=True, kw_only=True)
class UniformJudge:
    """A ``judge`` criterion whose every verdict, on both sides, was the same although the runs
    gave different answers: a judge that passes (or fails) everything cannot see a change.
    """

    scenario: str
    """the scenario."""
    criterion: str
    """the criterion's label (``judge: "…"``)."""
    model: str
    """the judge model."""
    verdict: Literal["PASS", "FAIL"]
    """``PASS`` or ``FAIL``, every time."""
    runs: int
    """runs judged, both sides."""
    answers: int
    """distinct final outputs among them."""


@dataclass(frozen=True, kw_only=True)
class JudgeProbe:
    """What a ``judge`` criterion said, before a batch, of an answer that should fail most
    rubrics (the batch's ``judge_probes``, from its manifest).
    """

    side: Literal["baseline", "candidate"]
    """``baseline`` or ``candidate``."""
    criterion: str
    """the criterion's label (``judge: "…"``)."""
    model: str
    """the judge model."""
    embedded: bool
    """the judge is trajguard's embedded model."""
    scenarios: tuple[str, ...]
    """the scenarios of the batch judged by it."""
    answer: str
    """the probe answer: ``empty`` or ``off-topic``."""
    verdicts: tuple[str | None, ...]
    """its verdicts (``PASS`` / ``FAIL``; ``None``: none in the judge's answer)."""
    passed: bool | None
    """the verdicts combined by the criterion's ``pass_if`` (``None``: not decided)."""
    error: str | None = None
    """why the probe was not decided."""


@dataclass(frozen=True, kw_only=True)
class LengthRuleJudge:
    """How well a rule on answer length predicts a ``judge`` criterion's verdicts, beside how
    well the judge predicts itself (both sides' runs judged k ≥ 2 times; each agreement is the
    chance that one verdict agrees, averaged over runs).
    """

    scenario: str
    """the scenario."""
    criterion: str
    """the criterion's label (``judge: "…"``)."""
    model: str
    """the judge model."""
    runs: int
    """runs judged at least twice, both sides."""
    rule: str
    """the length rule that agrees with the most verdicts of all runs, in words."""
    rule_agreement: float
    """the rule's agreement with a verdict, cross-validated (its threshold chosen on the other folds
    of a 10-fold split)."""
    self_agreement: float
    """the chance that two verdicts of the judge on one run agree (unbiased)."""
    constant_agreement: float
    """the agreement of the better of always-PASS and always-FAIL (cross-validated likewise)."""
    margin: float
    """``rule_agreement - self_agreement``."""
    margin_low: float
    """the lower end of its 95 % Student interval over runs."""
    margin_over_constant: float
    """``rule_agreement - constant_agreement``."""
    margin_over_constant_low: float
    """the lower end of its 95 % interval."""
    flagged: bool
    """both lower ends above 0: answer length predicts the judge's next verdict better than asking
    the judge again, and better than a constant does."""
