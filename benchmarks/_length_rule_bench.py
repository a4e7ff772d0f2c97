"""The ``trivial`` part of bench_judge_calibration.py: how often ``compare`` names a judge that a
rule on answer length explains better than it explains itself (``Comparison.length_rule_judges``).

Each night pools both sides of an A/A night (N runs per side). A run's answer is right with
chance 0.7; its length tells right from wrong in a share ``a`` of runs (``a`` = 0.5: length says
nothing; long answers 60-119 characters, short 5-49). Two kinds of judge, each verdict flipped
with chance f: a *good* judge leans PASS on right answers (a false flag when flagged), a
*length* judge leans PASS on long answers (power when flagged). The flag is computed by the
code ``compare`` runs (``_judged``: the 10-fold cross-validated rule, the Student bounds) on the
simulated runs' lengths and verdicts; reading them from a run table is tested in
tests/comparison/test_judge_rules.py.
"""

from __future__ import annotations

import argparse

import numpy as np

from trajguard.comparison._judge_rules import _judged
from trajguard.stats import wilson_interval

RIGHT_SHARE = 0.7
LENGTH_TELLS = (0.5, 0.75, 0.9, 0.95)
JUDGES = (
    ("good", 0.1),
    ("good", 0.2),
    ("good", 0.3),
    ("length", 0.0),
    ("length", 0.1),
    ("length", 0.2),
    ("length", 0.3),
)


def night(judge: str, flip: float, tells: float, k: int, runs: int, rng: np.random.Generator):
    right = rng.random(runs) < RIGHT_SHARE
    long = np.where(rng.random(runs) < tells, right, ~right)
    lengths = np.where(long, rng.integers(60, 120, runs), rng.integers(5, 50, runs))
    leaning = right if judge == "good" else long
    said = leaning[:, None] != (rng.random((runs, k)) < flip)
    passes = said.sum(axis=1)
    return _judged(
        ("s", "judge"),
        judge,
        lengths.astype(float),
        passes.astype(float),
        np.full(runs, float(k)),
    )


def part_trivial(args: argparse.Namespace, tables: object) -> None:
    rng = np.random.default_rng(args.seed + 4)
    nights = args.trivial_nights
    print(
        f"\nLength-rule flag: share of {nights} A/A nights (both sides pooled) that name the "
        "judge, Wilson 95 %; right answers 70 %"
    )
    print("| judge | f | k | length tells right from wrong | N = 20 per side | N = 50 per side |")
    print("|---|---:|---:|---:|---|---|")
    for judge, flip in JUDGES:
        for k in (3, 5):
            for tells in LENGTH_TELLS:
                cells = []
                for n in (20, 50):
                    flagged = sum(
                        night(judge, flip, tells, k, 2 * n, rng).flagged for _ in range(nights)
                    )
                    low, high = wilson_interval(flagged, nights)
                    cells.append(f"{flagged / nights:.3f} ({low:.3f}–{high:.3f})")
                print(f"| {judge} | {flip:g} | {k} | {tells:.0%} | {cells[0]} | {cells[1]} |")
