"""The one verdict ladder: every combination of evidence, both multiplicity settings and both
sidedness modes on real comparisons, the combined verdicts, the exit codes and blind spots."""

from __future__ import annotations

import itertools
from dataclasses import fields

import pandas as pd
import pytest
from trajguard_testkit.rows import pass_rows, run_row

from trajguard.comparison import (
    EXIT_BLIND,
    EXIT_OK,
    EXIT_REGRESSED,
    CompareConfig,
    Evidence,
    Verdict,
    combine_verdicts,
    compare_runsets,
    exit_code,
    verdict_of,
)

V = Verdict


def expected(e: Evidence) -> Verdict:
    """The ladder of docs/explanation/statistics.md §2, case by case as a table would be."""
    if not e.testable:
        return V.INCONCLUSIVE
    if e.significant and e.directional and e.two_sided and e.beneficial_side:
        return V.IMPROVED
    if e.significant and not e.beyond_band:
        return V.CHANGED_WITHIN_TOLERANCE
    if e.significant and e.directional:
        return V.REGRESSED
    if e.significant and e.gating and not e.two_sided:
        return V.REGRESSED
    if e.significant:
        return V.CHANGED
    if e.improved:
        return V.IMPROVED
    if e.equivalent:
        return V.UNCHANGED
    return V.INCONCLUSIVE


def every_evidence() -> list[Evidence]:
    names = [f.name for f in fields(Evidence)]
    return [
        Evidence(**dict(zip(names, values, strict=True)))
        for values in itertools.product((False, True), repeat=len(names))
    ]


def test_the_ladder_on_every_combination_of_evidence():
    cases = every_evidence()
    assert len(cases) == 2 ** len(fields(Evidence))
    for e in cases:
        assert verdict_of(e) is expected(e), e


def _tools_changed() -> tuple[pd.DataFrame, pd.DataFrame]:
    """Same pass rate, but the candidate calls another tool in most runs."""
    base = [run_row("s", passed=i % 2 == 0, tools=("calc",)) for i in range(30)]
    cand = [
        run_row("s", passed=i % 2 == 0, tools=("weather",) if i < 24 else ("calc",))
        for i in range(30)
    ]
    return pd.DataFrame(base), pd.DataFrame(cand)


@pytest.mark.parametrize("multiplicity", ["omnibus", "holm"])
def test_gating_tool_usage_beyond_its_band_regresses_on_both_multiplicity_paths(multiplicity):
    base, cand = _tools_changed()
    config = CompareConfig(
        metrics=("pass_rate", "crash_rate", "tool_usage"),
        gating=frozenset({"pass_rate", "crash_rate", "tool_usage"}),
        multiplicity=multiplicity,
    )
    result = compare_runsets(base, cand, config=config)
    tools = result.scenario("s").metric("tool_usage")
    assert tools.evidence.significant and tools.evidence.beyond_band
    assert tools.verdict is V.REGRESSED
    assert result.regressed and result.verdict is V.REGRESSED
    # Diagnostic, the same change is "changed": nothing says it must not move.
    diagnostic = compare_runsets(
        base, cand, config=config.with_updates(gating=frozenset({"pass_rate", "crash_rate"}))
    )
    assert diagnostic.scenario("s").metric("tool_usage").verdict is V.CHANGED
    assert not diagnostic.regressed


@pytest.mark.parametrize("multiplicity", ["omnibus", "holm"])
def test_two_sided_the_same_change_is_changed_and_the_scenario_says_so(multiplicity):
    base, cand = _tools_changed()
    config = CompareConfig(
        metrics=("pass_rate", "crash_rate", "tool_usage"),
        gating=frozenset({"pass_rate", "crash_rate", "tool_usage"}),
        multiplicity=multiplicity,
        two_sided=True,
        suite_share=0.0,
    )
    result = compare_runsets(base, cand, config=config)
    scenario = result.scenario("s")
    assert scenario.metric("tool_usage").verdict is V.CHANGED
    # A scenario with a gating metric changed beyond its band reads "changed", not
    # "inconclusive" (the contradiction a new user saw in an A/B report).
    assert scenario.verdict is V.CHANGED
    assert not result.regressed


def test_combined_verdicts():
    assert combine_verdicts([V.REGRESSED, V.IMPROVED]) is V.REGRESSED
    assert combine_verdicts([V.INCONCLUSIVE], suite=[V.REGRESSED]) is V.REGRESSED
    assert combine_verdicts([V.CHANGED, V.INCONCLUSIVE]) is V.CHANGED
    assert combine_verdicts([V.CHANGED, V.IMPROVED]) is V.CHANGED
    assert combine_verdicts([V.UNCHANGED, V.UNCHANGED]) is V.UNCHANGED
    assert combine_verdicts([V.IMPROVED, V.INCONCLUSIVE]) is V.IMPROVED
    assert combine_verdicts([V.UNCHANGED, V.CHANGED_WITHIN_TOLERANCE]) is (
        V.CHANGED_WITHIN_TOLERANCE
    )
    assert combine_verdicts([V.UNCHANGED, V.INCONCLUSIVE]) is V.INCONCLUSIVE
    assert combine_verdicts([]) is V.INCONCLUSIVE


def test_exit_codes():
    assert exit_code(failed=True, blind=True, require_power=True) == EXIT_REGRESSED == 1
    assert exit_code(failed=False, blind=True, require_power=True) == EXIT_BLIND == 4
    assert exit_code(failed=False, blind=True, require_power=False) == EXIT_OK == 0
    assert exit_code(failed=False, blind=False, require_power=True) == EXIT_OK


def test_blind_spots_name_the_scenarios_that_cannot_see_their_band():
    # 5 runs per side cannot see ten points from any plausible rate; 400 runs per side can.
    small = pd.DataFrame(pass_rows("few", 3, 5) + pass_rows("many", 200, 400))
    result = compare_runsets(small, small, config=CompareConfig(metrics=("pass_rate",)))
    blind = {b.scenario: b for b in result.blind}
    assert set(blind) == {"few"}
    few = blind["few"]
    assert few.drop == pytest.approx(0.10)
    assert few.detectable is None or few.detectable > 0.10
    # judged at a rate its 3 of 5 leave plausible (90 % Jeffreys: 0.25 to 0.89), not at 0.6
    assert few.rate is not None and 0.25 <= few.rate <= 0.89
    assert few.runs_needed is not None and few.runs_needed > 5
    many = result.scenario("many")
    assert many.mde_pass_rate is not None and many.mde_pass_rate <= 0.10


@pytest.mark.parametrize("runs", [3, 5, 10])
def test_a_baseline_that_passed_none_of_few_runs_is_blind_not_clean(runs):
    """0 of 3 is what a 30 % scenario gives one time in three: it must not read as "nothing
    to drop" (the observed rate's collapse), and it is stated with the N that would see it."""
    none = pd.DataFrame(pass_rows("zero", 0, runs))
    blind = compare_runsets(none, none, config=CompareConfig(metrics=("pass_rate",))).blind
    assert [b.scenario for b in blind] == ["zero"]
    assert blind[0].runs_needed is not None and blind[0].runs_needed > runs
    assert blind[0].rate is not None and blind[0].rate >= 0.10


def test_a_baseline_that_plainly_passes_under_the_band_has_no_band_to_drop():
    # 0 of 60: every plausible rate is under 4 %, so a 10-point drop cannot happen
    none = pd.DataFrame(pass_rows("zero", 0, 60))
    assert compare_runsets(none, none, config=CompareConfig(metrics=("pass_rate",))).blind == ()


@pytest.mark.parametrize("passes", [0, 3])
def test_a_baseline_that_passed_all_or_none_of_its_runs_is_judged_from_its_interval(passes):
    # 3 of 3 (or 0 of 3) at 30 runs per side for the candidate: the baseline's 3 runs are the
    # weak side whatever they showed
    rows = pass_rows("s", passes, 3)
    candidate = pd.DataFrame(pass_rows("s", 15, 30))
    result = compare_runsets(
        pd.DataFrame(rows), candidate, config=CompareConfig(metrics=("pass_rate",))
    )
    assert [b.scenario for b in result.blind] == ["s"]
