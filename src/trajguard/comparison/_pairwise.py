"""The pairwise judge's answer: did the judge prefer B's answers to A's? (pure)

A *pair* is run ``i`` of variant A and run ``i`` of variant B of one scenario (the same input).
The judge was asked one order (chosen at random per pair) or, for a sample of pairs, both. Each
asked order scores B +1 (B's answer preferred), -1 (A's) or 0 (a tie); a pair's score is the
mean over its orders, so a judge that contradicts itself when the order flips gives the pair 0,
a tie. The statistic is the mean over scenarios of the scenario's mean pair score (each scenario
weighs the same, as in the stratified rate tests).

The test flips the sign of each pair's score independently (a stratified sign-flip test): with
no difference between the variants, the two answers of a pair are exchangeable and the order
shown was a fair coin, so each pair's score is symmetric about 0 whatever the judge's noise or
its bias for a position: the test holds its level for any judge (docs/explanation/statistics.md
§11). Position bias is measured on the pairs asked in both orders: the mean of (first-shown
preferred - second-shown preferred) / 2, which a preference for content cancels.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt

from trajguard import stats as st
from trajguard.comparison._answer import Answer

__all__ = [
    "AskedOrder",
    "PairJudgement",
    "PairwiseResult",
    "Preferences",
    "adjusted_score",
    "contradicted",
    "order_score",
    "pair_score",
    "pairwise_test",
]

FloatArray = npt.NDArray[np.float64]

Choice = Literal["first", "second", "tie"]
"""The answer shown first, the one shown second, or neither (``trajguard.judge`` reads them)."""


@dataclass(frozen=True, kw_only=True)
class AskedOrder:
    """One call of the pairwise judge: whether B's answer was shown first, and its choice."""

    b_first: bool
    choice: Choice


@dataclass(frozen=True, kw_only=True)
class PairJudgement:
    """What the judge said of one pair (every order asked gave a preference)."""

    scenario: str
    run_index: int
    orders: tuple[AskedOrder, ...]


@dataclass(frozen=True, kw_only=True)
class Preferences:
    """What the pairwise judge said of an A/B's pairs (asked by the pipeline).

    Attributes:
        rubric: what the judge was asked to prefer.
        model: the judge model.
        judgements: the judged pairs.
        judge_failures: pairs the judge failed on (not judged).
        failures: up to three distinct reasons (redacted).
        not_paired: pairs not judged because a run crashed or had no partner.
    """

    rubric: str
    model: str
    judgements: tuple[PairJudgement, ...]
    judge_failures: int = 0
    failures: tuple[str, ...] = ()
    not_paired: int = 0


@dataclass(frozen=True, kw_only=True)
class PairwiseResult:
    """The pairwise judge's preferences, B against A, and their test."""

    rubric: str
    """what the judge was asked to prefer."""
    model: str
    """the judge model."""
    test: str
    """the test used."""
    pairs: int
    """pairs judged (every asked order gave a preference)."""
    scenarios: int
    """scenarios with a judged pair."""
    b_preferred: int
    """pairs whose score favours B."""
    a_preferred: int
    """pairs whose score favours A."""
    ties: int
    """pairs scored 0 (a tie, or a judge that contradicted itself across orders)."""
    estimate: float | None
    """mean over scenarios of the mean pair score, -1 (A always) to +1 (B always); ``None`` without
    a judged pair."""
    ci: tuple[float, float] | None
    """its interval (normal, stratified variance; ``None`` without two pairs)."""
    p_value: float
    """two-sided p-value of the sign-flip test."""
    p_adjusted: float
    """Holm-adjusted with the overall pass- and crash-rate tests."""
    better: bool | None
    """B is better by the estimate (``None``: no difference measured)."""
    both_orders: int
    """pairs asked in both orders (with a preference in both)."""
    contradictions: int
    """of those, pairs whose two orders preferred different variants."""
    position_bias: float | None
    """mean over both-order pairs of (first-shown preferred - second-shown preferred) / 2, -1 to +1
    (0: no bias); ``None`` without such a pair."""
    position_bias_ci: tuple[float, float] | None
    """its interval (Student t, with one pseudo-pair at each extreme)."""
    judge_failures: int
    """pairs not judged because the judge failed (no answer, no preference, the run's timeout);
    never counted as a tie or as the agent's."""
    failures: tuple[str, ...]
    """up to three distinct reasons (redacted)."""
    not_paired: int
    """pairs not judged because a run of the pair crashed or has no partner."""
    judgements: tuple[PairJudgement, ...]
    """every judged pair."""

    def answer(self, alpha: float) -> Answer:
        """What the judge's preferences say on their own: helped or hurt when the adjusted p is
        at most ``alpha``, else no detectable difference."""
        if self.p_adjusted > alpha or self.better is None:
            return Answer.NO_DETECTABLE_DIFFERENCE
        return Answer.HELPED if self.better else Answer.HURT


def order_score(order: AskedOrder) -> float:
    """One asked order's score for B: +1 (B's answer preferred), -1 (A's), 0 (a tie)."""
    if order.choice == "tie":
        return 0.0
    return 1.0 if (order.choice == "first") == order.b_first else -1.0


def pair_score(pair: PairJudgement) -> float:
    """The pair's score for B: the mean over its asked orders."""
    return sum(order_score(o) for o in pair.orders) / len(pair.orders)


def adjusted_score(pair: PairJudgement, bias: float) -> float:
    """The pair's score less the judge's measured position bias where one order was asked:
    ``bias`` times +1 when B's answer was shown first, -1 when A's (a pair asked in both orders
    has none to remove). Its mean is the raw score's (the order is a fair coin); its spread is
    smaller for a judge with a position bias."""
    if len(pair.orders) != 1:
        return pair_score(pair)
    return pair_score(pair) - bias * (1.0 if pair.orders[0].b_first else -1.0)


def contradicted(pair: PairJudgement) -> bool:
    """Whether one asked order preferred B and another A (the order decided, not the content)."""
    return {1.0, -1.0} <= {order_score(o) for o in pair.orders}


def _position(pair: PairJudgement) -> float:
    firsts = sum(o.choice == "first" for o in pair.orders)
    seconds = sum(o.choice == "second" for o in pair.orders)
    return (firsts - seconds) / 2


def _flip_p(
    scores: FloatArray,
    weights: FloatArray,
    rng: np.random.Generator,
    resamples: int,
    exact_limit: int,
) -> tuple[float, bool]:
    """Two-sided p of ``weights @ scores`` under independent sign flips (all of them when
    there are few enough: exact; else ``resamples`` random ones), and whether it was exact."""
    moved = scores != 0
    values = (weights * scores)[moved]
    observed = abs(float(values.sum()))
    if values.size == 0:
        return 1.0, True
    tol = 1e-9 * max(1.0, observed)
    if 2**values.size <= exact_limit:
        bits = (np.arange(2**values.size)[:, None] >> np.arange(values.size)) & 1
        signs = 1.0 - 2.0 * bits
        return float(np.mean(np.abs(signs @ values) >= observed - tol)), True
    signs = rng.choice((-1.0, 1.0), size=(resamples, values.size))
    hits = int(np.sum(np.abs(signs @ values) >= observed - tol))
    return (1 + hits) / (resamples + 1), False


def _interval(mean: float, var: float, quantile: float) -> tuple[float, float]:
    half = quantile * math.sqrt(max(var, 0.0))
    return max(-1.0, mean - half), min(1.0, mean + half)


def pairwise_test(
    preferences: Preferences,
    *,
    alpha: float,
    rng: np.random.Generator,
    resamples: int = 1999,
    exact_limit: int = 50_000,
) -> PairwiseResult:
    """Test the judged pairs (stratified by scenario) and measure the judge's position bias.

    Args:
        alpha: level of the intervals (the answer is decided with the other overall tests).
        rng: draws the sign flips when they are too many to enumerate.
        resamples: random sign flips drawn then.
        exact_limit: up to this many sign arrangements, all are enumerated (an exact p).
    """
    judged = tuple(sorted(preferences.judgements, key=lambda p: (p.scenario, p.run_index)))
    both = [p for p in judged if len(p.orders) > 1]
    bias, bias_ci = _position_bias(both, alpha)
    raw = np.array([pair_score(p) for p in judged], dtype=float)
    by_scenario: dict[str, list[float]] = {}
    for pair in judged:
        by_scenario.setdefault(pair.scenario, []).append(adjusted_score(pair, bias or 0.0))
    scores = np.array([s for values in by_scenario.values() for s in values], dtype=float)
    weights = np.array(
        [1 / (len(v) * len(by_scenario)) for v in by_scenario.values() for _ in v], dtype=float
    )
    means = [sum(v) / len(v) for v in by_scenario.values()]
    estimate = sum(means) / len(means) if means else None
    ci = _stratified_ci(by_scenario, estimate, alpha)
    resampled, exact = _flip_p(scores, weights, rng, resamples, exact_limit)
    return PairwiseResult(
        rubric=preferences.rubric,
        model=preferences.model,
        test="stratified sign-flip (" + ("exact" if exact else f"{resamples} resamples") + ")",
        pairs=len(judged),
        scenarios=len(by_scenario),
        b_preferred=int(np.sum(raw > 0)),
        a_preferred=int(np.sum(raw < 0)),
        ties=int(np.sum(raw == 0)),
        estimate=estimate,
        ci=ci,
        p_value=resampled,
        p_adjusted=resampled,
        better=None if not estimate else estimate > 0,
        both_orders=len(both),
        contradictions=sum(1 for p in both if contradicted(p)),
        position_bias=bias,
        position_bias_ci=bias_ci,
        judge_failures=preferences.judge_failures,
        failures=preferences.failures,
        not_paired=preferences.not_paired,
        judgements=judged,
    )


def _stratified_ci(
    by_scenario: Mapping[str, list[float]], estimate: float | None, alpha: float
) -> tuple[float, float] | None:
    if estimate is None or sum(len(v) for v in by_scenario.values()) < 2:
        return None
    # A scenario with one pair has no variance of its own: it counts the largest a score can have.
    var = (
        sum(
            (float(np.var(v, ddof=1)) if len(v) > 1 else 1.0) / len(v) for v in by_scenario.values()
        )
        / len(by_scenario) ** 2
    )
    return _interval(estimate, var, st.norm_ppf(1 - alpha / 2))


def _position_bias(
    both: list[PairJudgement], alpha: float
) -> tuple[float | None, tuple[float, float] | None]:
    if not both:
        return None, None
    values = np.array([_position(p) for p in both], dtype=float)
    # One pseudo-pair at each extreme keeps the spread positive when every pair agreed (the
    # Agresti-Caffo idea, as the rate intervals use): a few agreeing pairs are not certainty.
    padded = np.r_[values, 1.0, -1.0]
    n = padded.size
    var = float(np.var(padded, ddof=1)) / n
    centre = float(padded.mean())
    return float(values.mean()), _interval(centre, var, st.t_ppf(1 - alpha / 2, n - 1))
