"""The codec and the schema on the real result types, built by running the real comparison on
small synthetic run tables: fixed (default, holm, two-sided), with a drifting history, A/B,
and the sequential and escalation designs' records."""

from __future__ import annotations

import copy
import dataclasses
import json
import math

import jsonschema
import pandas as pd
import pytest
from trajguard_testkit.rows import pass_rows, run_row

from trajguard.comparison import (
    ABResult,
    CompareConfig,
    Comparison,
    EscalationPlan,
    EscalationStop,
    LookRecord,
    SequentialOutcome,
    Stop,
    compare_ab,
    compare_runsets,
    pool_history,
    split_runs,
)
from trajguard.comparison._escalation import escalation_plan, later_look, leaning
from trajguard.comparison._sequential import decide_look
from trajguard.results import InvalidResultData, dumps, from_data, json_schema, loads, to_data

VERSION = "1"
SMALL = CompareConfig(
    metrics=("pass_rate", "crash_rate", "step_count", "prompt_tokens", "tool_usage")
)


def _tables(shift: int = 0, batch: str | None = None, config_hash: str | None = None):
    rows = []
    for name, passes, tools in (("multiply", 18, ("calc",)), ("capital", 12, ("lookup", "calc"))):
        rows += pass_rows(
            name, max(passes - shift, 0), 20, tools, batch=batch, config_hash=config_hash
        )
    rows += [run_row("weather", i % 3 > 0, ("weather",), steps=3 + i % 4) for i in range(20)]
    rows += [run_row("weather", None, status="harness_error")]
    rows += [run_row("weather", False, status="agent_error")]
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def comparisons() -> dict[str, Comparison]:
    base, cand = _tables(), _tables(shift=8)
    history = pd.concat(
        [
            pd.DataFrame(pass_rows("multiply", p, 20, batch=b, config_hash="h"))
            for b, p in (("n3", 2), ("n2", 10), ("n1", 19))
        ],
        ignore_index=True,
    )
    drifting = pd.DataFrame(pass_rows("multiply", 6, 20, batch="c", config_hash="h"))
    return {
        "default": compare_runsets(base, cand),
        "small": compare_runsets(base, cand, config=SMALL),
        "holm": compare_runsets(base, cand, config=SMALL.with_updates(multiplicity="holm")),
        "two_sided": compare_runsets(
            base,
            cand,
            config=SMALL.with_updates(
                two_sided=True, scenario_tolerances={"capital": {"pass_rate": 0.2}}
            ),
        ),
        "history": compare_runsets(history, drifting, config=SMALL),
    }


@pytest.fixture(scope="module")
def ab() -> ABResult:
    a, b = _tables().assign(variant="A"), _tables(shift=6).assign(variant="B")
    return compare_ab(pd.concat([a, b], ignore_index=True), "A", "B", config=SMALL)


def _validator(tp) -> jsonschema.Draft202012Validator:
    schema = json_schema(tp, title=tp.__name__, version=VERSION)
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def _document(value) -> dict:
    return json.loads(dumps(value, version=VERSION))


def test_the_history_comparison_has_a_drift_test(comparisons):
    # Otherwise the drift records would not be part of the round trips below.
    assert comparisons["history"].drift
    assert any(s.gate is not None for s in comparisons["default"].scenarios)
    assert comparisons["holm"].family is not None


@pytest.mark.parametrize("name", ["default", "small", "holm", "two_sided", "history"])
def test_a_comparison_round_trips_and_validates(comparisons, name):
    comparison = comparisons[name]
    data = to_data(comparison)
    assert from_data(Comparison, data) == comparison
    # Fields only: properties (ScenarioResult.mde_note) and methods are not data.
    assert list(data["scenarios"][0]) == [
        f.name for f in dataclasses.fields(comparison.scenarios[0])
    ]
    text = dumps(comparison, version=VERSION)
    assert text == dumps(comparison, version=VERSION)
    assert loads(Comparison, text, version=VERSION) == comparison
    # Floats exactly: every p-value and estimate comes back bit for bit.
    again = loads(Comparison, text, version=VERSION)
    for got, want in zip(again.scenarios, comparison.scenarios, strict=True):
        for m, n in zip(got.metrics, want.metrics, strict=True):
            assert (m.p_value, m.p_adjusted, m.estimate) == (n.p_value, n.p_adjusted, n.estimate)
    _validator(Comparison).validate(json.loads(text))


def test_an_ab_result_round_trips_and_validates(ab):
    assert from_data(ABResult, to_data(ab)) == ab
    assert loads(ABResult, dumps(ab, version=VERSION), version=VERSION) == ab
    _validator(ABResult).validate(_document(ab))


def test_a_sequential_outcome_round_trips_and_validates():
    base = split_runs(_tables())
    plan = (10, 20)
    outcome = SequentialOutcome(max_runs=20, plan=plan, alpha=0.025)
    looks, stopped = [], {}
    for look, runs in enumerate(plan):
        cand = split_runs(_tables(shift=8).groupby("scenario").head(runs))
        decisions = decide_look(base, cand, look=look, plan=plan, alpha=0.025)
        looks.append(
            LookRecord(
                look=look, runs=runs, decisions={s: d.action.value for s, d in decisions.items()}
            )
        )
        stopped |= {
            s: Stop(runs=runs, decision=d) for s, d in decisions.items() if s not in stopped
        }
    outcome = dataclasses.replace(outcome, looks=tuple(looks), stopped=stopped)
    assert len(outcome.stopped) == 3
    assert from_data(SequentialOutcome, to_data(outcome)) == outcome
    assert dumps(outcome) == dumps(from_data(SequentialOutcome, to_data(outcome)))
    _validator(SequentialOutcome).validate(_document(outcome))


def test_an_escalation_design_and_its_stops_round_trip_and_validate():
    base, cand = _tables(), _tables(shift=8)
    design = escalation_plan(first=20, max_runs=60, alpha=0.05, scenarios=3)
    first = compare_runsets(base, cand, config=SMALL.with_updates(alpha=design.alpha_first))
    stops = [stop for stop in leaning(first, design).values() if stop is not None]
    stop, seen = later_look(first.scenarios[0], design, 1, ())
    stops += [stop or EscalationStop(scenario="late", runs=40, reason="lean", looks=seen)]
    assert stops and seen
    assert from_data(EscalationPlan, to_data(design)) == design
    _validator(EscalationPlan).validate(_document(design))
    validator = _validator(EscalationStop)
    for each in stops:
        assert from_data(EscalationStop, to_data(each)) == each
        validator.validate(_document(each))


def _mutations(document: dict) -> dict[str, tuple[dict, str]]:
    """name -> (mutated document, the path from_data must name)"""
    out = {}
    wrong_enum = copy.deepcopy(document)
    wrong_enum["scenarios"][1]["verdict"] = "much worse"
    out["enum"] = (wrong_enum, "$.scenarios[1].verdict")
    extra = copy.deepcopy(document)
    extra["scenarios"][0]["metrics"][2]["surprise"] = 1
    out["extra field"] = (extra, "$.scenarios[0].metrics[2].surprise")
    missing = copy.deepcopy(document)
    del missing["scenarios"][2]["metrics"][0]["p_value"]
    out["missing field"] = (missing, "$.scenarios[2].metrics[0].p_value")
    wrong_type = copy.deepcopy(document)
    wrong_type["scenarios"][0]["runs_baseline"] = True
    out["bool as int"] = (wrong_type, "$.scenarios[0].runs_baseline")
    return out


@pytest.mark.parametrize("mutation", ["enum", "extra field", "missing field", "bool as int"])
def test_the_schema_and_the_reader_refuse_a_mutated_document(comparisons, mutation):
    document = _document(comparisons["small"])
    validator = _validator(Comparison)
    validator.validate(document)
    mutated, path = _mutations(document)[mutation]
    assert list(validator.iter_errors(mutated)), mutation
    del mutated["schema_version"]
    with pytest.raises(InvalidResultData) as caught:
        from_data(Comparison, mutated)
    assert caught.value.path == path
    assert caught.value.exit_code == 2
    assert str(caught.value).startswith(f"{path}: ")


def test_a_nan_is_refused_on_encode_with_its_path(comparisons):
    comparison = comparisons["small"]
    scenario = comparison.scenarios[1]
    metrics = list(scenario.metrics)
    metrics[2] = dataclasses.replace(metrics[2], estimate=math.nan)
    broken = dataclasses.replace(
        comparison,
        scenarios=(
            comparison.scenarios[0],
            dataclasses.replace(scenario, metrics=tuple(metrics)),
            *comparison.scenarios[2:],
        ),
    )
    with pytest.raises(
        ValueError, match=r"comparison\.scenarios\[1\]\.metrics\[2\]\.estimate: nan"
    ):
        dumps(broken)


def test_another_schema_version_is_refused(comparisons):
    text = dumps(comparisons["small"], version="2")
    with pytest.raises(InvalidResultData, match="schema version '2', but this trajguard reads"):
        loads(Comparison, text, version=VERSION, file="out/comparison.json")
    with pytest.raises(InvalidResultData, match=r"^out/comparison.json:3: not JSON"):
        loads(Comparison, text[:40], version=VERSION, file="out/comparison.json")


def test_a_pooled_baseline_has_no_json_form():
    # It holds the pooled runs as a DataFrame: data for the comparison, not a result.
    pooled = pool_history([("n1", _tables(batch="n1"))], _tables())
    with pytest.raises(TypeError, match=r"DataFrame.* has no JSON form"):
        to_data(pooled)
