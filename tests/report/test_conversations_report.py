"""The conversations section (issue 37): pass^k per side, each scripted turn's pass rates and
where the conversations ended, in report.md and comparison.json, from two nights of a refund
desk on a scripted model (trajguard_testkit.conversations: the candidate skips the
confirmation step)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import jsonschema
import pandas as pd
import pytest
from trajguard_testkit.conversations import RUNS, compared_refund_nights

from trajguard.report.builders._conversation_facts import conversation_facts
from trajguard.results import SCHEMA_FILE, read_document


@pytest.fixture(scope="module")
def night(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return compared_refund_nights(tmp_path_factory.mktemp("conversations"))


def _section(report: Path) -> str:
    text = report.read_text(encoding="utf-8")
    return text[text.index("## Conversations") : text.index("## Method")]


def test_the_report_names_the_turn_and_its_criterion_with_both_rates(night) -> None:
    section = _section(night["report"])
    row = next(line for line in section.splitlines() if line.startswith("| 1 |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[1] == "tool\\_not\\_called: issue\\_refund"
    assert cells[2].startswith(f"100% ({RUNS}/{RUNS};")
    assert cells[3].startswith(f"0% (0/{RUNS};")
    # Fisher's exact two-sided p of 6/6 against 0/6: 2 / C(12, 6)
    assert cells[4] == f"{2 / math.comb(12, 6):.3f}"


def test_where_conversations_ended_is_compared_between_the_sides(night) -> None:
    section = _section(night["report"])
    simulated = section[section.index("### simulated") :]
    assert f"| max\\_turns | {RUNS} (100%) | 0 (0%) |" in simulated
    assert f"| user\\_done | 0 (0%) | {RUNS} (100%) |" in simulated
    # disjoint mixes: TVD 1, and only the two arrangements that split them are as far apart
    assert f"TVD 1.00 between the sides' mixes, permutation p {2 / math.comb(12, 6):.3f}" in (
        simulated
    )
    request = section[section.index("### request") : section.index("### simulated")]
    assert "TVD 0.00 between the sides' mixes, permutation p 1.000" in request


def test_pass_k_runs_from_one_to_the_runs_for_each_side(night) -> None:
    section = _section(night["report"])
    simulated = section[section.index("### simulated") :]
    assert "| pass^k | " + " | ".join(f"k={k}" for k in range(1, RUNS + 1)) + " |" in simulated
    # every run passed: the unbiased estimate is 1 at every k, the interval's low end Wilson^k
    baseline = next(line for line in simulated.splitlines() if line.startswith("| baseline |"))
    assert baseline.count("100% [") == RUNS


def test_comparison_json_holds_the_section_and_matches_the_schema(night) -> None:
    raw = json.loads((night["report"].parent / "comparison.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(json.loads(SCHEMA_FILE.read_text())).validate(raw)
    by_id = {c["scenario"]: c for c in raw["conversations"]}
    assert set(by_id) == {"request", "simulated"}
    (turn,) = by_id["request"]["turns"]
    assert (turn["turn"], turn["criterion"]) == (1, "tool_not_called: issue_refund")
    assert (turn["baseline"]["hits"], turn["candidate"]["hits"]) == (RUNS, 0)
    endings = {e["reason"]: (e["baseline"], e["candidate"]) for e in by_id["simulated"]["endings"]}
    assert endings == {"max_turns": (RUNS, 0), "user_done": (0, RUNS)}
    document = read_document((night["report"].parent / "comparison.json").read_bytes())
    assert document.conversations[1].endings_tvd == 1.0


def test_runs_without_a_conversation_give_no_section(night) -> None:
    plain = pd.read_parquet(night["baseline"] / "runs.parquet").assign(stop_reason=None)
    assert conversation_facts(plain, plain, alpha=0.05) == ()


def test_a_turn_only_one_side_stored_has_no_test() -> None:
    row = {
        "scenario": "s",
        "status": "ok",
        "stop_reason": "user_done",
        "criteria": [{"criterion": "turn 2: tool_called: x", "held": True, "reason": ""}],
    }
    other = {**row, "criteria": []}
    (facts,) = conversation_facts(pd.DataFrame([row]), pd.DataFrame([other]), alpha=0.05)
    (turn,) = facts.turns
    assert (turn.turn, turn.criterion, turn.candidate, turn.p_value) == (
        2,
        "tool_called: x",
        None,
        None,
    )
    assert turn.baseline is not None and turn.baseline.hits == 1
