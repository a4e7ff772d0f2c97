"""The suite's ``pairwise`` judge (read by ``trajguard ab``): its defaults, its errors with file,
line and field, and no part in any scenario's config hash (it judges pairs, not runs)."""

from __future__ import annotations

from pathlib import Path

import pytest

from trajguard.errors import SuiteError
from trajguard.suite import PairwiseJudge, load_suite

BASE = """name: paired
scenarios:
  - id: capital
    agent: {kind: builtin}
    input: What is the capital of France?
"""


def load(tmp_path: Path, block: str) -> object:
    path = tmp_path / "suite.yaml"
    path.write_text(BASE + block)
    return load_suite(path, check_imports=False)


def test_a_pairwise_judge_defaults_to_the_embedded_model_and_half_the_pairs_both_ways(
    tmp_path: Path,
) -> None:
    suite = load(tmp_path, "pairwise: {rubric: The fuller answer is better.}\n")
    judge = suite.pairwise  # type: ignore[attr-defined]
    assert isinstance(judge, PairwiseJudge)
    assert (judge.model, judge.api_base, judge.both_orders) == ("local/smollm2", None, 0.5)
    assert judge.settings.rubric == "The fuller answer is better."
    assert load(tmp_path, "").pairwise is None  # type: ignore[attr-defined]


def test_the_pairwise_judge_is_no_part_of_a_scenarios_hash(tmp_path: Path) -> None:
    plain = load(tmp_path, "").resolve("capital").config_hash()  # type: ignore[attr-defined]
    judged = load(tmp_path, "pairwise: {rubric: fuller}\n")
    assert judged.resolve("capital").config_hash() == plain  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("block", "words"),
    [
        ("pairwise: {rubric: x, both_orders: 1.5}\n", "pairwise.both_orders"),
        ("pairwise: {rubric: '   '}\n", "rubric is empty"),
        ("pairwise: {rubric: x, model: local/smollm2, api_base: 'http://h/v1'}\n", "api_base"),
        ("pairwise: {rubric: x, both_order: 0.5}\n", "both_order"),
        ("pairwise: {model: openai/gpt-4o-mini}\n", "pairwise.rubric"),
    ],
)
def test_a_bad_pairwise_block_names_its_file_line_and_field(
    tmp_path: Path, block: str, words: str
) -> None:
    with pytest.raises(SuiteError) as caught:
        load(tmp_path, block)
    message = str(caught.value)
    assert "suite.yaml:6" in message and words in message
