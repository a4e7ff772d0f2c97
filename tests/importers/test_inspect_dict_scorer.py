"""``--scorer SCORER/KEY``: one key of a dict scorer decides (issue 41), as the criteria are
named after it. The log is the committed ``qa-a.json`` (written by Inspect 0.3.285) with each
sample's ``includes`` score rewritten as the value of a dict scorer ``shape`` with two keys:
``short`` (the original value) and ``long`` (its opposite)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from trajguard.errors import UsageError
from trajguard.importers import ImportOptions
from trajguard.importers._inspect import read
from trajguard.importers._inspect_scores import criterion_names, judge

LOG_JSON = Path(__file__).parent / "data" / "inspect" / "qa-a.json"
FLIP = {"C": "I", "I": "C"}


def _dict_scorer_log(tmp_path: Path) -> tuple[Path, Counter[tuple[str, bool]]]:
    data = json.loads(LOG_JSON.read_text())
    short: Counter[tuple[str, bool]] = Counter()
    for sample in data["samples"]:
        value = sample["scores"]["includes"]["value"]
        sample["scores"] = {"shape": {"value": {"short": value, "long": FLIP[value]}}}
        short[(sample["id"], value == "C")] += 1
    path = tmp_path / "shape.json"
    path.write_text(json.dumps(data))
    return path, short


def test_the_names_scorer_takes_include_each_key_of_a_dict_scorer() -> None:
    scores = {"shape": {"value": {"short": "C", "long": "I"}}, "includes": {"value": "C"}}
    assert criterion_names(scores) == {"shape", "shape/short", "shape/long", "includes"}


def test_one_key_decides_and_the_others_are_kept_undecided() -> None:
    scores = {"shape": {"value": {"short": "C", "long": "I"}}}
    criteria, passed = judge(scores, rule=None, scorer="shape/short")
    assert passed is True
    assert [(c.name, c.held, c.value) for c in criteria] == [
        ("shape/short", True, "C"),
        ("shape/long", None, "I"),
    ]
    # the whole scorer: every key decides, as before
    assert judge(scores, rule=None, scorer="shape")[1] is False


@pytest.mark.parametrize("reader", ["inspect", "builtin"])
def test_scorer_key_on_a_log_passes_runs_by_that_key(tmp_path: Path, reader: str) -> None:
    log, short = _dict_scorer_log(tmp_path)
    assert len(set(short)) > 2  # passes and failures both occur
    batch = read([log], ImportOptions(scorer="shape/short"), reader=reader)
    assert Counter((r.scenario, r.passed) for r in batch.runs) == short
    flipped = read([log], ImportOptions(scorer="shape/long"), reader=reader)
    expected = Counter({(scenario, not ok): n for (scenario, ok), n in short.items()})
    assert Counter((r.scenario, r.passed) for r in flipped.runs) == expected


def test_an_unknown_key_is_refused_with_the_names_there_are(tmp_path: Path) -> None:
    log, _ = _dict_scorer_log(tmp_path)
    with pytest.raises(UsageError) as caught:
        read([log], ImportOptions(scorer="shape/shrt"), reader="builtin")
    assert caught.value.hint == "their scorers are shape, shape/long, shape/short"
