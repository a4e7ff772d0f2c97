"""Asking the pairwise judge about an A/B's pairs (``trajguard.runner.ask_pairs``): which runs pair,
the order drawn per pair (reproducible), the share asked both ways, and the judge's failures —
a judge that never answers is bounded by the run's ``timeout_s`` — counted apart and redacted
(issue 35, item 4). The HTTP path is tests/pipeline/test_ab_pairwise.py."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from trajguard_testkit.scripted import Scripted

from trajguard.runner import ask_pairs
from trajguard.suite import Suite, load_suite

SECRET = "sk-pairwise-unit-0123456789abcdef"


def suite(tmp_path: Path, both_orders: float, timeout_s: float = 30) -> Suite:
    path = tmp_path / "suite.yaml"
    path.write_text(
        f"""name: paired
defaults: {{timeout_s: {timeout_s}}}
pairwise: {{rubric: "Fuller is better.", model: openai/judge, both_orders: {both_orders}}}
variants:
  b: {{}}
scenarios:
  - id: capital
    agent: {{kind: builtin}}
    input: What is the capital of France?
"""
    )
    return load_suite(path, check_imports=False)


def runs(pairs: int, *, crashed: Sequence[tuple[str, int]] = ()) -> pd.DataFrame:
    rows = [
        {
            "scenario": "capital",
            "variant": variant,
            "run_index": i,
            "seed": 1000 * (variant == "b") + i,
            "crashed": (variant, i) in crashed,
            "final_output": f"{variant} answer {i}",
        }
        for variant in ("base", "b")
        for i in range(pairs)
    ]
    return pd.DataFrame(rows)


def shown(messages: Sequence[Any]) -> list[str]:
    return re.findall(r"<<<\n(.*?)\n>>>", messages[-1]["content"], re.S)


def prefers_b(messages: Sequence[Any], options: dict[str, Any]) -> str:
    first, _ = shown(messages)
    return "PREFERENCE: 1" if first.startswith("b ") else "PREFERENCE: 2"


def test_every_pair_is_asked_its_own_way_and_the_order_is_drawn_per_pair(tmp_path: Path) -> None:
    judge = Scripted(prefers_b)
    got = ask_pairs(suite(tmp_path, 0.5), runs(40), ("base", "b"), make_model=lambda s, t: judge)
    assert got.judge_failures == 0 and got.not_paired == 0 and len(got.judgements) == 40
    asked_twice = [p for p in got.judgements if len(p.orders) == 2]
    assert 8 < len(asked_twice) < 32  # about half, drawn per pair
    assert len(judge.calls) == 40 + len(asked_twice)
    b_first = [p.orders[0].b_first for p in got.judgements]
    assert 8 < sum(b_first) < 32  # the order is a coin per pair
    for pair in got.judgements:  # the judge saw pair i's own answers, never another pair's
        assert all(o.choice == ("first" if o.b_first else "second") for o in pair.orders)
    seeds = [options["seed"] for _, options in judge.calls]
    assert len(set(seeds)) == len(seeds)  # every call its own seed: nothing shared
    texts = {tuple(shown(m)) for m, _ in judge.calls}
    assert ("b answer 7", "base answer 7") in texts or ("base answer 7", "b answer 7") in texts
    again = ask_pairs(
        suite(tmp_path, 0.5), runs(40), ("base", "b"), make_model=lambda s, t: Scripted(prefers_b)
    )
    assert again.judgements == got.judgements  # reproducible from the runs' seeds


def test_a_pair_with_a_crashed_run_or_no_partner_is_not_judged(tmp_path: Path) -> None:
    frame = runs(6, crashed=[("b", 2)])
    frame = frame[~((frame["variant"] == "base") & (frame["run_index"] == 5))]
    got = ask_pairs(
        suite(tmp_path, 0.0), frame, ("base", "b"), make_model=lambda s, t: Scripted(prefers_b)
    )
    assert got.not_paired == 2 and [p.run_index for p in got.judgements] == [0, 1, 3, 4]
    assert all(len(p.orders) == 1 for p in got.judgements)  # both_orders: 0


def test_a_judge_that_never_answers_is_bounded_by_the_runs_timeout(tmp_path: Path) -> None:
    async def never(messages: Sequence[Any], options: dict[str, Any]) -> str:
        await asyncio.Event().wait()  # accepts the call and never answers
        return "unreachable"

    limits: list[float] = []

    def make(settings: Any, timeout_s: float) -> Scripted:
        limits.append(timeout_s)
        return Scripted(never)

    got = ask_pairs(suite(tmp_path, 1.0, timeout_s=0.3), runs(3), ("base", "b"), make_model=make)
    assert limits == [0.3]  # the client's attempts get no longer either
    assert got.judgements == () and got.judge_failures == 3
    assert got.failures == ("the judge openai/judge did not answer within the run's 0.3 s timeout",)


@pytest.mark.parametrize("reply", ["I refuse. key=" + SECRET, RuntimeError("401 for " + SECRET)])
def test_a_judge_that_fails_is_counted_apart_and_its_words_redacted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, reply: Any
) -> None:
    monkeypatch.setenv("JUDGE_API_KEY", SECRET)

    def answer(messages: Sequence[Any], options: dict[str, Any]) -> str:
        if isinstance(reply, Exception):
            raise reply
        return reply

    got = ask_pairs(
        suite(tmp_path, 0.5), runs(4), ("base", "b"), make_model=lambda s, t: Scripted(answer)
    )
    assert got.judgements == () and got.judge_failures == 4 and len(got.failures) == 1
    assert SECRET not in got.failures[0] and "[REDACTED]" in got.failures[0]
