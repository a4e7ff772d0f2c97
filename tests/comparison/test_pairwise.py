"""The pairwise judge's test statistic: pair scores, the stratified sign-flip test, the position
bias and its interval, and the answer they give (issue 35, item 4)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import binomtest

from trajguard.comparison import (
    Answer,
    AskedOrder,
    PairJudgement,
    PairwiseResult,
    Preferences,
    pair_score,
    pairwise_test,
)
from trajguard.comparison._pairwise import adjusted_score, contradicted


def once(b_first: bool, choice: str, scenario: str = "s", index: int = 0) -> PairJudgement:
    order = AskedOrder(b_first=b_first, choice=choice)  # type: ignore[arg-type]
    return PairJudgement(scenario=scenario, run_index=index, orders=(order,))


def twice(first: str, second: str, scenario: str = "s", index: int = 0) -> PairJudgement:
    """Asked with B's answer first (choice ``first``), then with A's first (``second``)."""
    orders = (
        AskedOrder(b_first=True, choice=first),  # type: ignore[arg-type]
        AskedOrder(b_first=False, choice=second),  # type: ignore[arg-type]
    )
    return PairJudgement(scenario=scenario, run_index=index, orders=orders)


def judged(pairs: list[PairJudgement]) -> PairwiseResult:
    preferences = Preferences(rubric="r", model="m", judgements=tuple(pairs))
    return pairwise_test(preferences, alpha=0.05, rng=np.random.default_rng(0))


def test_an_order_scores_for_the_variant_whose_answer_was_chosen() -> None:
    assert pair_score(once(True, "first")) == 1.0  # B shown first, first chosen: B
    assert pair_score(once(False, "first")) == -1.0  # A shown first, first chosen: A
    assert pair_score(once(False, "second")) == 1.0
    assert pair_score(once(True, "tie")) == 0.0
    assert pair_score(twice("first", "second")) == 1.0  # B both times
    assert pair_score(twice("first", "tie")) == 0.5


def test_a_judge_that_contradicts_itself_across_the_orders_gives_a_tie() -> None:
    flipped = twice("first", "first")  # the first-shown answer both times: B, then A
    assert pair_score(flipped) == 0.0 and contradicted(flipped)
    assert not contradicted(twice("first", "second"))
    result = judged([twice("first", "first", index=i) for i in range(12)])
    assert result.ties == 12 and result.contradictions == 12 and result.both_orders == 12
    assert result.p_value == 1.0 and result.answer(0.05) is Answer.NO_DETECTABLE_DIFFERENCE
    assert result.position_bias == 1.0  # always the first-shown answer
    low, high = result.position_bias_ci
    assert 0.5 < low < high <= 1.0  # a few agreeing pairs are not certainty


def test_one_order_per_pair_and_one_scenario_is_the_exact_two_sided_sign_test() -> None:
    rng = np.random.default_rng(3)
    for _ in range(20):
        size = int(rng.integers(3, 15))
        b_first = rng.random(size) < 0.5
        choice = rng.choice(["first", "second", "tie"], size)
        pairs = [
            once(bool(b), str(c), index=i)
            for i, (b, c) in enumerate(zip(b_first, choice, strict=True))
        ]
        result = judged(pairs)
        wins, losses = result.b_preferred, result.a_preferred
        expected = 1.0 if wins + losses == 0 else binomtest(wins, wins + losses).pvalue
        assert result.p_value == pytest.approx(expected, abs=1e-12)
        assert result.test == "stratified sign-flip (exact)"
        assert result.position_bias is None and result.position_bias_ci is None


def test_b_preferred_on_every_pair_is_helped_and_swapping_the_variants_is_hurt() -> None:
    pairs = [once(i % 2 == 0, "first" if i % 2 == 0 else "second", index=i) for i in range(10)]
    result = judged(pairs)
    assert result.estimate == 1.0 and result.b_preferred == 10
    assert result.p_value == pytest.approx(2 / 2**10)
    assert result.answer(0.05) is Answer.HELPED
    mirrored = [
        PairJudgement(
            scenario=p.scenario,
            run_index=p.run_index,
            orders=tuple(AskedOrder(b_first=not o.b_first, choice=o.choice) for o in p.orders),
        )
        for p in pairs
    ]
    swapped = judged(mirrored)
    assert swapped.estimate == -1.0 and swapped.p_value == result.p_value
    assert swapped.answer(0.05) is Answer.HURT


def test_scenarios_weigh_the_same_whatever_their_pairs() -> None:
    many = [once(True, "first", "big", i) for i in range(30)]  # B in 30 pairs
    few = [once(True, "second", "small", i) for i in range(2)]  # A in 2
    result = judged(many + few)
    assert result.scenarios == 2
    assert result.estimate == pytest.approx((1.0 - 1.0) / 2)
    assert result.test.endswith("resamples)")  # 32 moved pairs: too many to enumerate


def test_a_position_biased_judge_is_measured_and_taken_out_of_single_order_pairs() -> None:
    # Six pairs asked twice: the first-shown answer each time (bias +1); ten asked once, the
    # first-shown answer each time: all the order, none the content.
    pairs = [twice("first", "first", index=i) for i in range(6)]
    pairs += [once(i % 2 == 0, "first", index=10 + i) for i in range(10)]
    result = judged(pairs)
    assert result.position_bias == 1.0
    assert adjusted_score(pairs[6], 1.0) == 0.0 and adjusted_score(pairs[7], 1.0) == 0.0
    assert result.estimate == 0.0 and result.p_value == 1.0
    assert result.answer(0.05) is Answer.NO_DETECTABLE_DIFFERENCE


def test_nothing_judged_says_nothing() -> None:
    result = judged([])
    assert result.pairs == 0 and result.estimate is None and result.ci is None
    assert result.p_value == 1.0 and result.better is None
    assert result.answer(0.05) is Answer.NO_DETECTABLE_DIFFERENCE


def test_under_no_difference_the_test_holds_its_level_for_a_biased_noisy_judge() -> None:
    """Exchangeable answers, a judge that picks the first-shown answer 60 % of the time and
    otherwise a coin: 400 nights of 20 pairs, half asked in both orders."""
    rng = np.random.default_rng(11)
    rejected = 0
    for night in range(400):
        pairs = []
        for i in range(20):

            def call() -> str:
                return "first" if rng.random() < 0.6 else str(rng.choice(["second", "tie"]))

            b_first = bool(rng.random() < 0.5)
            if rng.random() < 0.5:
                orders = (
                    AskedOrder(b_first=b_first, choice=call()),  # type: ignore[arg-type]
                    AskedOrder(b_first=not b_first, choice=call()),  # type: ignore[arg-type]
                )
                pairs.append(PairJudgement(scenario="s", run_index=i, orders=orders))
            else:
                pairs.append(once(b_first, call(), index=i))
        preferences = Preferences(rubric="r", model="m", judgements=tuple(pairs))
        result = pairwise_test(preferences, alpha=0.05, rng=np.random.default_rng(night))
        rejected += result.p_value <= 0.05
    assert rejected / 400 <= 0.05 + 2.6 * (0.05 * 0.95 / 400) ** 0.5  # within 2.6 SE of alpha
