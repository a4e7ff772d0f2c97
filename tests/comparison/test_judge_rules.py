"""A judge that a rule on answer length explains better than it explains itself (issue 35)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from trajguard.comparison import compare_runsets
from trajguard.comparison._judge_rules import length_rule_judges


def row(answer: str, verdicts: list[str]) -> dict:
    record = {
        "criterion": 'judge: "is right"',
        "model": "scripted",
        "samples_wanted": len(verdicts),
        "held": verdicts.count("PASS") * 2 > len(verdicts),
        "error": None,
        "samples": [{"verdict": v} for v in verdicts],
    }
    return {
        "scenario": "s",
        "variant": "main",
        "status": "ok",
        "passed": record["held"],
        "step_count": 3,
        "tool_sequence": [],
        "tool_counts": {},
        "prompt_tokens": 100,
        "completion_tokens": 20,
        "duration_s": 1.0,
        "final_output": answer,
        "judge_calls": json.dumps([record]),
    }


def batch(judge: str, n: int, seed: int, *, k: int = 3, flip: float = 0.2) -> pd.DataFrame:
    """``n`` runs whose answers are right with chance 0.6, their length telling right from
    wrong in 3 of 4 runs; the judge says PASS on the right ones (``good``) or on the long ones
    (``length``), each verdict flipped with chance ``flip``."""
    rng = np.random.default_rng(seed)
    rows = []
    for _ in range(n):
        right = rng.random() < 0.6
        long = right if rng.random() < 0.75 else not right
        answer = "x" * int(rng.integers(60, 120) if long else rng.integers(5, 50))
        leaning = right if judge == "good" else long
        said = [("PASS" if leaning != (rng.random() < flip) else "FAIL") for _ in range(k)]
        rows.append(row(answer, said))
    return pd.DataFrame(rows)


def test_a_noisy_judge_that_scores_length_is_flagged():
    b, c = batch("length", 40, 1), batch("length", 40, 2)
    (found,) = length_rule_judges(b, c)
    assert found.flagged and found.runs == 80
    assert found.rule.startswith("PASS when the answer has at least ")
    assert found.rule_agreement > found.self_agreement > found.constant_agreement
    assert found.margin_low > 0 and found.margin_over_constant_low > 0
    (same,) = compare_runsets(b, c).length_rule_judges
    assert same == found


def test_an_equally_noisy_judge_of_the_rubric_is_not_flagged():
    (found,) = length_rule_judges(batch("good", 40, 1), batch("good", 40, 2))
    assert not found.flagged
    assert found.margin < 0 < found.self_agreement - found.rule_agreement


def test_a_judge_that_never_contradicts_itself_is_never_flagged():
    (found,) = length_rule_judges(batch("length", 40, 3, flip=0.0), batch("length", 40, 4, flip=0))
    assert found.self_agreement == 1.0 and not found.flagged


def test_the_empty_answer_rule_is_named_in_words():
    rows = [row("", ["FAIL", "FAIL", "PASS"]) for _ in range(6)]
    rows += [row(f"answer {i}", ["PASS", "PASS", "FAIL"]) for i in range(6)]
    (found,) = length_rule_judges(pd.DataFrame(rows))
    assert found.rule == "PASS unless the answer is empty"
    # the rule agrees with 2 verdicts of 3; two of the judge's own agree 1 time in 3
    assert found.rule_agreement == pytest.approx(2 / 3)
    assert found.self_agreement == pytest.approx(1 / 3)


@pytest.mark.parametrize(
    "rows",
    [
        [row("same length", ["PASS", "FAIL"])] * 12,  # one length: no rule
        [row("a" * i, ["PASS", "FAIL"]) for i in range(9)],  # too few runs
        [row("a" * i, ["PASS"]) for i in range(12)],  # sampled once: self-agreement unknown
    ],
)
def test_no_entry_where_no_rule_or_no_self_agreement_can_be_measured(rows):
    assert length_rule_judges(pd.DataFrame(rows)) == ()
