"""The ``judge`` criterion in a suite: its defaults, its errors, and its part in the config
hash (a changed judge is a changed scenario; a suite without a judge keeps its hashes)."""

from __future__ import annotations

from pathlib import Path

import pytest

from trajguard.errors import SuiteError
from trajguard.suite import JudgeCriterion, load_suite

BASE = """name: judged
scenarios:
  - id: capital
    agent: {kind: builtin}
    input: What is the capital of France?
    pass:
"""


def hash_of(tmp_path: Path, criteria: str) -> str:
    path = tmp_path / "suite.yaml"
    path.write_text(BASE + criteria)
    return load_suite(path, check_imports=False).resolve("capital").config_hash()


def test_a_judge_defaults_to_the_embedded_model_three_samples_majority_final_output(
    tmp_path: Path,
) -> None:
    path = tmp_path / "suite.yaml"
    path.write_text(BASE + "      - judge: The answer names Paris.\n")
    (criterion,) = load_suite(path, check_imports=False).resolve("capital").pass_criteria
    assert isinstance(criterion, JudgeCriterion)
    assert (criterion.model, criterion.samples, criterion.pass_if, criterion.on) == (
        "local/smollm2",
        3,  # one verdict per run says nothing of the judge's noise (issue 35)
        "majority",
        "final_output",
    )
    assert criterion.label == 'judge: "The answer names Paris."'


def test_the_judges_rubric_model_and_settings_enter_the_config_hash(tmp_path: Path) -> None:
    plain = hash_of(tmp_path, "      - final_output_contains: Paris\n")
    judged = "      - final_output_contains: Paris\n      - judge: {rubric: names Paris%s}\n"
    first = hash_of(tmp_path, judged % "")
    hashes = {
        hash_of(tmp_path, judged % change)
        for change in (
            ", samples: 5",
            ", model: openai/gpt-4o-mini",
            ", temperature: 0.5",
            ", max_tokens: 32",
            ", pass_if: all",
            ", on: trajectory",
        )
    }
    assert len({plain, first, *hashes}) == 8  # every change is a changed scenario
    assert hash_of(tmp_path, judged % "") == first  # and the same judge the same hash
    assert hash_of(tmp_path, judged % ", samples: 3") == first  # the default, said
    assert hash_of(tmp_path, "      - judge: {rubric: names Paris.}\n") != hash_of(
        tmp_path, "      - judge: {rubric: names Paris}\n"
    )


@pytest.mark.parametrize(
    ("criterion", "message"),
    [
        ("{rubric: '  '}", "the judge's rubric is empty"),
        ("{rubric: r, samples: 0}", "samples"),
        ("{rubric: r, pass_if: most}", "pass_if"),
        ("{rubric: r, on: output}", "on"),
        ("{rubric: r, api_base: 'http://127.0.0.1:1/v1'}", "runs its own server"),
        ("{rubric: r, sample: 3}", "sample"),
    ],
)
def test_a_bad_judge_is_named_with_its_line(tmp_path: Path, criterion: str, message: str) -> None:
    path = tmp_path / "suite.yaml"
    path.write_text(BASE + f"      - judge: {criterion}\n")
    with pytest.raises(SuiteError) as info:
        load_suite(path, check_imports=False)
    assert message in str(info.value) and "suite.yaml:7" in str(info.value)


def test_a_misspelt_judge_gets_a_did_you_mean(tmp_path: Path) -> None:
    path = tmp_path / "suite.yaml"
    path.write_text(BASE + "      - judg: names Paris\n")
    with pytest.raises(SuiteError, match="did you mean 'judge'"):
        load_suite(path, check_imports=False)
