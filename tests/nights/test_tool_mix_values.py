"""A night's tool mix that is no JSON object of numbers (a store file written by hand) gives no
tool distance, never a traceback nor a distance from an invented empty mix (issue 41)."""

from __future__ import annotations

import pytest

from trajguard.nights._trend_builder import _distance


@pytest.mark.parametrize(
    "mix",
    ['{"calculator": ', "[" * 200_000, "[1, 2]", '{"calculator": "many"}', '{"a": null}'],
    ids=["cut", "200000-deep", "a-list", "text-count", "null-count"],
)
def test_an_unreadable_mix_on_either_side_gives_no_distance(mix: str) -> None:
    good = '{"calculator": 2, "search": 2}'
    assert _distance(mix, good) is None
    assert _distance(good, mix) is None


def test_readable_mixes_give_their_total_variation_distance() -> None:
    assert _distance('{"calculator": 2, "search": 2}', '{"calculator": 4}') == pytest.approx(0.5)
