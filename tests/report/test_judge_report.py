"""The report's judge-consistency figures, from the runs' ``judge_calls`` (issue 25)."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pandas as pd
import pytest

from trajguard.comparison import CompareConfig, JudgeProbe, compare_runsets
from trajguard.report import build_document, render_report
from trajguard.report.html import render_html
from trajguard.results import ReportKind, document_json, read_document
from trajguard.store import RunSet


def run(passed: bool = True) -> dict:
    return {
        "scenario": "s",
        "variant": "main",
        "status": "ok",
        "passed": passed,
        "step_count": 3,
        "tool_sequence": [],
        "tool_counts": {},
        "prompt_tokens": 100,
        "completion_tokens": 20,
        "duration_s": 1.0,
    }


def document_of(base: list[dict], cand: list[dict], config: CompareConfig) -> Any:
    b, c = pd.DataFrame(base), pd.DataFrame(cand)
    return build_document(
        compare_runsets(b, c, config=config),
        kind=ReportKind.COMPARE,
        baseline=RunSet(path="b", manifest={"suite": "t"}, runs=b),
        candidate=RunSet(path="c", manifest={"suite": "t"}, runs=c),
    )


def render(base: list[dict], cand: list[dict], config: CompareConfig) -> str:
    return render_report(document_of(base, cand, config))


def judged(verdicts: list[str], passed: bool) -> dict:
    samples = [
        {"verdict": v, "reason": "", "prompt_tokens": 9, "completion_tokens": 3} for v in verdicts
    ]
    record = {
        "criterion": 'judge: "names Paris"',
        "model": "local/smollm2",
        "samples_wanted": len(verdicts),
        "held": passed,
        "error": None,
        "samples": samples,
    }
    return {**run(passed=passed), "judge_calls": json.dumps([record])}


def test_a_disagreeing_judge_is_flagged_in_the_headline_and_the_table():
    stable = [judged(["PASS"] * 3, True) for _ in range(6)] + [judged(["FAIL"] * 3, False)] * 2
    noisy = [judged(["PASS", "FAIL", "PASS"], True) for _ in range(4)] + [
        judged(["FAIL", "PASS", "FAIL"], False) for _ in range(4)
    ]
    text = render(stable, noisy, CompareConfig())
    assert "## Judge consistency" in text
    assert (
        '| s | baseline | judge: "names Paris" | local/smollm2 | 3 | 8 | 0% | 0% (0%–32%) | '
        "0% (0%–0%) | 75% | stable |" in text
    )
    # every run splits 2 to 1: two verdicts disagree 2 times in 3 (unbiased: not 4/9); the
    # within-run variance 1/3 exceeds the total 1/4 + the estimate's variance: pure noise
    assert (
        '| s | candidate | judge: "names Paris" | local/smollm2 | 3 | 8 | 100% | 67% (34%–89%) | '
        "100% (100%–100%) | 50% | **unstable** |" in text
    )
    assert (
        "- **Unstable judge:** s (candidate)" in text
        and "disagree 67% (34%–89%) of the time (flagged above 20% with 95% confidence)" in text
    )
    assert not compare_runsets(pd.DataFrame(stable), pd.DataFrame(noisy)).regressed


def test_an_unstable_judge_fails_the_night_only_when_asked():
    noisy = [judged(["PASS", "FAIL", "PASS"], True) for _ in range(4)] + [
        judged(["FAIL", "PASS", "FAIL"], False) for _ in range(4)
    ]
    b, c = pd.DataFrame(noisy), pd.DataFrame(noisy)
    assert not compare_runsets(b, c).regressed
    failing = CompareConfig(judge_unstable="fail")
    assert compare_runsets(b, c, config=failing).regressed
    assert "Unstable judge (fails the night: judge_unstable: fail)" in render(noisy, noisy, failing)
    # a design settling the verdicts again (sequential, escalation) keeps the judge's failure
    from trajguard.comparison._results import settle

    assert settle(compare_runsets(b, c, config=failing)).regressed
    assert not settle(compare_runsets(b, c)).regressed


def test_the_noise_share_of_a_pure_noise_judge_is_not_biased_low():
    import numpy as np

    draw = np.random.default_rng(3)
    rows = [
        judged(["PASS" if v else "FAIL" for v in draw.random(3) < 0.5], True) for _ in range(400)
    ]
    (found,) = compare_runsets(pd.DataFrame(rows), pd.DataFrame(rows)).judges[1:]
    # the naive within-run variance reads (k - 1) / k = 67 % here; the unbiased one about 100 %
    assert found.noise_share is not None and found.noise_share > 0.9
    assert found.noise_share_low is not None and found.noise_share_low > 0.8
    assert found.pair_disagreement_low < 0.5 < found.pair_disagreement_high


def test_one_sample_or_a_failed_judgement_is_not_measured():
    rows = [judged(["PASS"], True) for _ in range(3)] + [
        {
            **judged(["PASS", None], True),
            "judge_calls": json.dumps([{"samples_wanted": 2, "error": "x", "samples": []}]),
        }
    ]
    assert compare_runsets(pd.DataFrame(rows), pd.DataFrame(rows)).judges == ()


@pytest.mark.parametrize("calls", [None, "", "not json", "{}"])
def test_runs_without_judge_calls_have_no_figures(calls):
    rows = [{**run(), "judge_calls": calls} for _ in range(3)]
    assert compare_runsets(pd.DataFrame(rows), pd.DataFrame(rows)).judges == ()


def test_a_gating_judge_sampled_once_says_its_noise_is_unknown_in_the_headline():
    rows = [judged(["PASS"], True) for _ in range(5)] + [judged(["FAIL"], False)] * 3
    comparison = compare_runsets(pd.DataFrame(rows), pd.DataFrame(rows))
    assert [(j.side, j.runs, j.model) for j in comparison.judged_once] == [
        ("baseline", 8, "local/smollm2"),
        ("candidate", 8, "local/smollm2"),
    ]
    text = render(rows, rows, CompareConfig())
    headline = text.split("\n## ")[0]
    (line,) = [x for x in headline.splitlines() if "Judge noise unknown" in x]
    assert 's, judge: "names Paris" (local/smollm2) gave one verdict per run' in line
    assert "Set `samples: 3`" in line
    assert "nor whether a rule on answer length predicts its verdicts" in line


def test_a_judge_sampled_once_is_not_in_the_headline_when_the_pass_rate_does_not_gate():
    rows = [judged(["PASS"], True) for _ in range(5)] + [judged(["FAIL"], False)] * 3
    config = CompareConfig(gating=frozenset({"crash_rate"}))
    assert "Judge noise unknown" not in render(rows, rows, config)
    sampled = [judged(["PASS"] * 3, True) for _ in range(8)]
    assert "Judge noise unknown" not in render(sampled, sampled, CompareConfig())


def test_the_page_and_comparison_json_carry_the_judge_figures():
    noisy = [judged(["PASS", "FAIL", "PASS"], True) for _ in range(4)] + [
        judged(["FAIL", "PASS", "FAIL"], False) for _ in range(4)
    ]
    once = [judged(["PASS"], True) for _ in range(8)]
    document = document_of(once, noisy, CompareConfig())  # baseline once, candidate thrice
    page = render_html(document)
    assert "Judge consistency" in page and "67% (34%–89%)" in page
    assert "Judge noise unknown" in page
    read = read_document(document_json(document)).comparison
    (judge,) = read.judges
    assert judge == document.comparison.judges[0] and judge.unstable
    assert judge.pair_disagreement_low > 0.2 and judge.noise_share_high == 1.0
    assert [j.side for j in read.judged_once] == ["baseline"]


def test_a_judge_that_passes_every_different_answer_is_flagged_in_the_headline():
    def answered(text: str) -> dict:
        return {**judged(["PASS"] * 3, True), "final_output": text}

    rows = [answered(t) for t in ("Paris.", "Lyon.", "I do not know.", "Berlin.", "Paris!")] * 2
    comparison = compare_runsets(pd.DataFrame(rows), pd.DataFrame(rows))
    (found,) = comparison.uniform_judges
    assert (found.verdict, found.runs, found.answers) == ("PASS", 20, 5)
    headline = render(rows, rows, CompareConfig()).split("\n## ")[0]
    assert "**Judge that may not judge:** s" in headline and "said PASS of all 20 runs" in headline
    same = [answered("Paris.") for _ in range(10)]  # one answer: passing it every time is fine
    assert compare_runsets(pd.DataFrame(same), pd.DataFrame(same)).uniform_judges == ()
    mixed = [*rows[:-1], {**judged(["FAIL"] * 3, False), "final_output": "Lyon."}]
    assert compare_runsets(pd.DataFrame(rows), pd.DataFrame(mixed)).uniform_judges == ()


def test_a_judge_that_answer_length_explains_is_flagged_in_headline_page_and_json():
    def answered(length: int, verdicts: list[str]) -> dict:
        return {**judged(verdicts, verdicts.count("PASS") > 1), "final_output": "x" * length}

    # long answers get PASS, PASS, FAIL; short ones FAIL, FAIL, PASS: the length rule agrees
    # with 2 verdicts of 3, two of the judge's own agree 1 time in 3
    rows = [answered(80 + i, ["PASS", "PASS", "FAIL"]) for i in range(6)]
    rows += [answered(10 + i, ["FAIL", "PASS", "FAIL"]) for i in range(6)]
    document = document_of(rows, rows, CompareConfig())
    (found,) = document.comparison.length_rule_judges
    assert found.flagged and found.rule == "PASS when the answer has at least 48 characters"
    headline = render_report(document).split("\n## ")[0]
    (line,) = [x for x in headline.splitlines() if "answer length explains better" in x]
    assert 'the rule "PASS when the answer has at least 48 characters" agrees with 67%' in line
    assert "two of its own verdicts on one run agree 33% of the time, over 24 runs" in line
    assert "answer length explains better than it explains itself" in render_html(document)
    assert read_document(document_json(document)).comparison.length_rule_judges == (found,)
    steady = [answered(80 + i, ["PASS"] * 3) for i in range(6)]
    steady += [answered(10 + i, ["FAIL"] * 3) for i in range(6)]
    quiet = render(steady, steady, CompareConfig())
    assert "answer length explains better" not in quiet  # it never contradicts itself


def probe(
    answer: str, passed: bool | None, side: str = "candidate", model: str = "openai/j"
) -> Any:
    return JudgeProbe(
        side=side,  # type: ignore[arg-type]
        criterion='judge: "names Paris"',
        model=model,
        embedded=model == "local/smollm2",
        scenarios=("s",),
        answer=answer,
        verdicts=("PASS",) * 3 if passed else ("FAIL",) * 3,
        passed=passed,
    )


def test_a_judge_that_passed_the_empty_answer_before_the_batch_is_named():
    rows = [{**judged(["PASS"] * 3, True), "final_output": "Paris"} for _ in range(4)]
    document = document_of(rows, rows, CompareConfig())
    probes = (
        probe("empty", True, "baseline"),
        probe("empty", True),
        probe("off-topic", False),
        probe("off-topic", None),  # the judge failed on it: not a pass
    )
    document = replace(document, comparison=replace(document.comparison, judge_probes=probes))
    headline = render_report(document).split("\n## ")[0]
    (line,) = [x for x in headline.splitlines() if "Judge that cannot judge" in x]
    assert '**Judge that cannot judge:** judge: "names Paris" (openai/j) passed an empty ' in line
    assert "answer (baseline, candidate) before the batch" in line and "off-topic" not in line
    assert "Judge that cannot judge" in render_html(document)
    assert read_document(document_json(document)).comparison.judge_probes == probes
    failed = replace(document.comparison, judge_probes=(probe("empty", False),))
    assert "cannot judge" not in render_report(replace(document, comparison=failed))


def test_the_embedded_judge_is_called_plumbing_grade_in_the_headline():
    rows = [{**judged(["PASS"] * 3, True), "final_output": "Paris"} for _ in range(4)]
    headline = render(rows, rows, CompareConfig()).split("\n## ")[0]
    (line,) = [x for x in headline.splitlines() if "Plumbing-grade judge" in x]
    assert 'judge: "names Paris" judged by the embedded model (local/smollm2' in line
    other = [
        {**r, "judge_calls": r["judge_calls"].replace("local/smollm2", "openai/gpt-4o")}
        for r in rows
    ]
    assert "Plumbing-grade" not in render(other, other, CompareConfig())
