"""The ``pairwise`` part of bench_judge_calibration.py: A/A nights and power of the pairwise judge's
test (issue 35, item 4), simulated in process with the scripted pairwise judge's logic
(_scripted_judge.preferences) and the real test (``trajguard.comparison.pairwise_test``).

A night: S scenarios, N pairs each (run i of A and of B answering one input), each pair's order
drawn by a fair coin and a ``--both-orders`` share of pairs (0.5, the suite's default) also
asked swapped,
as ``trajguard ab`` asks them. A/A: both variants answer from the same mix. Power: A always
answers "Paris.", B the better sentence on 70 % of inputs (as good as A's on the rest). A night
is "found" when the test's p is at most alpha (0.05) — the judge's own answer — and, in the A/B
answer, where it shares Holm with the pass- and crash-rate tests, at most alpha / 3 (the worst
case: those two find nothing). The position bias figure: its mean, and the share of nights whose
interval covers the judge's true bias (F for ``first-F``, 0 otherwise).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
from _scripted_judge import (
    A_PAIR_MIX,
    AA_PAIR_MIX,
    B_PAIR_MIX,
    PAIRWISE_JUDGES,
    QUALITY,
    preferences,
)

from trajguard.comparison import AskedOrder, PairJudgement, Preferences, pairwise_test
from trajguard.stats import wilson_interval

__all__ = ["part_pairwise", "part_pairwise_http"]

ALPHA = 0.05
CHOICES = ("first", "second", "tie")


def _true_bias(judge: str) -> float:
    return float(judge.split("-")[1]) if judge.startswith("first-") else 0.0


def night(
    judge: str,
    mixes: tuple[tuple[float, ...], tuple[float, ...]],
    scenarios: int,
    n: int,
    rng: np.random.Generator,
    both_orders: float,
) -> Preferences:
    """The pairwise judge's preferences on one simulated night."""
    size = scenarios * n
    q_a = QUALITY[rng.choice(len(QUALITY), size=size, p=mixes[0])]
    q_b = QUALITY[rng.choice(len(QUALITY), size=size, p=mixes[1])]
    b_first = rng.random(size) < 0.5
    both = rng.random(size) < both_orders
    first = preferences(judge, np.where(b_first, q_b, q_a), np.where(b_first, q_a, q_b), rng)
    swapped = preferences(judge, np.where(b_first, q_a, q_b), np.where(b_first, q_b, q_a), rng)
    pairs = []
    for i in range(size):
        orders = [AskedOrder(b_first=bool(b_first[i]), choice=CHOICES[first[i]])]
        if both[i]:
            orders.append(AskedOrder(b_first=not b_first[i], choice=CHOICES[swapped[i]]))
        pairs.append(PairJudgement(scenario=f"s{i // n}", run_index=i % n, orders=tuple(orders)))
    return Preferences(rubric="scripted", model="scripted", judgements=tuple(pairs))


def _share(hits: int, total: int) -> str:
    low, high = wilson_interval(hits, total)
    return f"{hits / total:.3f} ({low:.3f}–{high:.3f})"


def _cell(
    judge: str,
    mixes: tuple[tuple[float, ...], tuple[float, ...]],
    shape: tuple[int, int],
    nights: int,
    rng: np.random.Generator,
    both_orders: float,
) -> tuple[str, str, str, str]:
    """Nights found (A/A: either way; power: B helped), alone and in the A/B answer; the
    position bias's mean and its interval's coverage of the truth."""
    alone = holm = covered = 0
    biases = []
    aa = mixes[0] == mixes[1]
    for _ in range(nights):
        preferences = night(judge, mixes, *shape, rng, both_orders)
        result = pairwise_test(preferences, alpha=ALPHA, rng=rng)
        found = result.better is not None and (aa or result.better)
        alone += found and result.p_value <= ALPHA
        holm += found and result.p_value <= ALPHA / 3
        if result.position_bias is not None and result.position_bias_ci is not None:
            biases.append(result.position_bias)
            low, high = result.position_bias_ci
            covered += low <= _true_bias(judge) <= high
    bias = f"{np.mean(biases):+.2f} (true {_true_bias(judge):+.2f})"
    return _share(alone, nights), _share(holm, nights), bias, _share(covered, len(biases))


def part_pairwise(args: argparse.Namespace, tables: object) -> None:
    rng = np.random.default_rng(args.seed + 4)
    both = args.both_orders
    print(
        f"\nPairwise judge: A/A nights ({args.nights} per cell) and power nights "
        f"({args.power_nights}), alpha = {ALPHA}, both orders asked for {both:.0%} of pairs"
    )
    print(
        "| nights | judge | scenarios × N | found (p ≤ α) | in the A/B answer (Holm, worst "
        "case) | position bias: mean | its interval covers the truth |"
    )
    print("|---|---|---|---|---|---|---|")
    aa = (AA_PAIR_MIX, AA_PAIR_MIX)
    cells = [("A/A", aa, args.nights, shape) for shape in ((1, 20), (1, 50), (5, 20))]
    power = (A_PAIR_MIX, B_PAIR_MIX)
    cells += [("B better on 70 %", power, args.power_nights, (1, n)) for n in (20, 50)]
    judges = PAIRWISE_JUDGES
    if args.pairwise_cell:  # one A/A cell again, e.g. "first-0.3:1x50"
        judge, shape = args.pairwise_cell.split(":")
        scenarios, n = (int(x) for x in shape.split("x"))
        cells, judges = [("A/A", aa, args.nights, (scenarios, n))], (judge,)
    for kind, mixes, nights, shape in cells:
        for judge in judges:
            alone, holm, bias, covered = _cell(judge, mixes, shape, nights, rng, both)
            print(
                f"| {kind} | {judge} | {shape[0]} × {shape[1]} | {alone} | {holm} | {bias} | "
                f"{covered} |"
            )


def _http_suite(path: Path, api_base: str, b_mix: tuple[float, ...], n: int) -> Path:
    mix = ",".join(str(w) for w in A_PAIR_MIX)
    path.write_text(
        f"""name: pairwise-http
defaults: {{runs: {n}, concurrency: 2, timeout_s: 30, model: openai/judge,
            api_base: "{api_base}"}}
pairwise: {{rubric: "The fuller answer is better.", model: openai/judge,
           api_base: "{api_base}"}}
variants:
  b: {{params: {{mix: "{",".join(str(w) for w in b_mix)}"}}}}
scenarios:
  - id: capital
    agent: {{kind: callable, function: "repeats_agent:answer", params: {{mix: "{mix}"}}}}
    input: What is the capital of France?
    pass: [{{final_output_contains: "Paris"}}]
"""
    )
    return path


def part_pairwise_http(args: argparse.Namespace, tables: object) -> None:
    """A few nights through ``trajguard ab`` itself (litellm to the scripted pairwise judge on
    127.0.0.1): A/A nights where A and B both always answer "Paris." with a judge 60 % biased
    for the first position, and power nights (B better on 70 % of inputs) with a consistent
    judge; each beside the in-process share of the same condition (the table above)."""
    import os
    import sys
    import tempfile

    from _scripted_judge import AGENT, pairwise_server

    from trajguard import pipeline
    from trajguard.pipeline import ReportOptions
    from trajguard.runner import BatchOptions

    os.environ.setdefault("OPENAI_API_KEY", "sk-scripted-judge-0000")  # litellm wants one
    n, nights = 20, args.http_nights
    print(f"\nPairwise judge over HTTP: {nights} nights per condition, N = {n}, both_orders 0.5")
    print("| nights | judge | found by the pairwise test (p ≤ α) | A/B answer helped or hurt |")
    print("|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        where = Path(tmp)
        (where / "repeats_agent.py").write_text(AGENT)
        sys.path.insert(0, str(where))
        os.chdir(where)
        for kind, judge, b_mix in (
            ("A/A", "first-0.6", A_PAIR_MIX),
            ("B better on 70 %", "consistent", B_PAIR_MIX),
        ):
            found = answered = 0
            with pairwise_server(judge, seed=args.seed) as server:
                suite = _http_suite(where / "suite.yaml", server["api_base"], b_mix, n)
                for night in range(nights):
                    outcome = pipeline.ab(
                        suite,
                        variants=("base", "b"),
                        options=BatchOptions(seed=args.seed * 1000 + night),
                        reports=where / f"reports-{night}",
                        report=ReportOptions(plots=False, html=False),
                    )
                    result = outcome.result.pairwise
                    assert result is not None
                    found += result.better is not None and result.p_value <= ALPHA
                    answered += outcome.result.answer.value in ("helped", "hurt")
            print(f"| {kind} | {judge} | {_share(found, nights)} | {_share(answered, nights)} |")
