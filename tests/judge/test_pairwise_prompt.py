"""The pairwise judge's prompt and how its answer is read (issue 35, item 4)."""

from __future__ import annotations

import pytest

from trajguard.judge import pair_draw, pairwise_messages, parse_preference


@pytest.mark.parametrize(
    ("answer", "choice", "reason"),
    [
        ("PREFERENCE: 1\nREASON: names the city", "first", "names the city"),
        ("preference: 2\nreason: fuller", "second", "fuller"),
        ("**Preference:** TIE\nReason: both say Paris.", "tie", "both say Paris"),
        ('{"preference": "2", "reason": "complete"}', "second", "complete"),
        ("Answer 1 is better.\nREASON: shorter", "first", "shorter"),
        ("2", "second", ""),
        ("Both answers are fine.", None, ""),
        ("PREFERENCE: 3", None, ""),
        (None, None, ""),
    ],
)
def test_a_preference_is_read_or_none(answer: str | None, choice: str | None, reason: str) -> None:
    assert parse_preference(answer) == (choice, reason)


def test_the_judge_sees_both_answers_and_never_the_variants() -> None:
    (system, user) = pairwise_messages("What is 2+2?", "Correct.", "4", "")
    assert "order of the answers means nothing" in system["content"]
    text = user["content"]
    assert "What is 2+2?" in text and "<<<\n4\n>>>" in text
    assert "(empty: there was no final output)" in text
    assert "variant" not in text.lower()


def test_a_pairs_draws_are_reproducible_and_its_own() -> None:
    draw = pair_draw("11/12", "capital", 3, "order")
    assert draw == pair_draw("11/12", "capital", 3, "order")
    others = {
        pair_draw("11/13", "capital", 3, "order"),
        pair_draw("11/12", "capital", 4, "order"),
        pair_draw("11/12", "capital", 3, "both"),
    }
    assert draw not in others and all(0 <= d < 2**31 for d in others)
