"""Judged criteria whose noise the verdict knows: A/A nights and power with noisy judges (issue 35).

Run: python benchmarks/bench_judge_calibration.py [--only PART] [--nights 1000]
       [--power-nights 500] [--http-nights 20] [--trivial-nights 500] [--both-orders 0.5]
       [--seed 35]

One scenario, N runs per side (N = 20 and 50), a pass criterion that is a ``judge`` with
``samples`` k in 1, 3, 5 (``pass_if: majority``). The agent repeats answers: one of four texts
(two right, two wrong), 70 % right on both sides of an A/A night, 50 % right in the candidate of
a power night (a 20-point drop in the agent's true pass rate). The judges (_scripted_judge.py):
consistent, biased (always PASS on one wrong answer), random with 10 / 30 / 50 % flips.

Parts (each prints a table; benchmarks/RESULTS.md has the figures and the commands):

* ``aa``: share of A/A nights the real comparison fails (``Comparison.regressed``, the default
  gating metrics, alpha = 0.05), with its Wilson 95 % interval, for every judge and k, with
  judgements per run (today) and shared by the runs of a batch that gave the same answer (the
  cache before issue 35); with the mean width of the pass-rate difference's 95 % interval.
* ``power``: share of nights failed on the 20-point drop, per judge, k and N (judgements per
  run), and the judged drop the comparison saw (the judge's attenuation of the true 20 points).
* ``stability``: the judge-consistency figures of ``compare`` (``judge_consistency``) on one
  side of ``--stability-nights`` nights per judge, k and N: the mean pair disagreement and its
  interval's coverage of the truth, the noise share (unbiased) beside the naive within-run
  variance's (biased low by (k - 1) / k), and the share of nights that flag the judge unstable
  (what ``judge_unstable: fail`` would fail).
* ``http``: the same A/A nights through real batches (``run_batch``: a callable agent, the
  judge criterion on a scripted judge server on 127.0.0.1, through litellm) for a few judges,
  beside the in-process figure of the same condition, and the batches' pass-count variance over
  the binomial one (1 when runs are independent; far above with shared judgements).
  ``PYTHONPATH=<an older checkout>/src`` runs it against that code.
* ``trivial``: how often a judge is named as one that a rule on answer length explains better
  than it explains itself, for good judges on answers whose length tells right from wrong in
  50-95 % of runs (false flags) and judges that score length (power): _length_rule_bench.py.
* ``pairwise``: the pairwise judge of ``trajguard ab`` (_pairwise_nights.py): A/A nights and the
  power to find B's answers better on 70 % of inputs, with judges that are consistent, biased
  for the first-shown answer (30 % / 60 %) and noisy; and its position-bias figure.
  ``pairwise-http``: ``--http-nights`` nights of each of two conditions through ``trajguard ab``
  itself (litellm to the scripted pairwise judge on 127.0.0.1).

How a night is decided in process: with one scenario whose runs differ only in ``passed``,
the comparison's outcome depends only on the two pass counts (its permutations are seeded),
so ``compare_runsets`` is called once per count pair on the boundary (for each baseline count,
a bisection on the candidate count: a night fails for every candidate count at or below a
threshold, checked on both sides of it) and the nights are looked up.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _length_rule_bench import part_trivial
from _pairwise_nights import part_pairwise, part_pairwise_http
from _scripted_judge import (
    AGENT,
    BASELINE_MIX,
    DROPPED_MIX,
    JUDGES,
    RIGHT,
    judge_server,
    verdicts,
)

from trajguard.comparison import compare_runsets
from trajguard.stats import newcombe_interval, wilson_interval

SAMPLES = (1, 3, 5)


def _frame(passes: int, n: int, batch: str) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "run_id": [f"{batch}-{i}" for i in range(n)],
            "batch_id": batch,
            "scenario": "capital",
            "variant": "base",
            "status": "ok",
            "passed": [i < passes for i in range(n)],
            "crashed": False,
            "step_count": 2,
            "tool_sequence": [[] for _ in range(n)],
            "tool_counts": [{} for _ in range(n)],
            "prompt_tokens": 40,
            "completion_tokens": 8,
            "duration_s": 1.0,
        }
    )


@dataclass
class Decisions:
    """Whether the real comparison fails a night with ``x_b`` and ``x_c`` passes of ``n``."""

    n: int
    fails: np.ndarray  # [x_b, x_c] -> bool
    width: np.ndarray  # [x_b, x_c] -> the 95 % interval's width of the difference
    compares: int


def decisions(n: int) -> Decisions:
    calls = 0

    def fails(x_b: int, x_c: int) -> bool:
        nonlocal calls
        calls += 1
        return compare_runsets(_frame(x_b, n, "b"), _frame(x_c, n, "c")).regressed

    table = np.zeros((n + 1, n + 1), dtype=bool)
    for x_b in range(n + 1):
        low, high = -1, x_b  # fails(low) holds (or low = -1); fails(high) does not
        if fails(x_b, x_b):
            raise AssertionError(f"a night with equal counts fails ({x_b}/{n})")
        while high - low > 1:
            mid = (low + high) // 2
            low, high = (mid, high) if fails(x_b, mid) else (low, mid)
        # the bisection's monotonicity, checked on both sides of the threshold
        if low >= 1 and not fails(x_b, low - 1):
            raise AssertionError(f"not monotone below {low} at {x_b}/{n}")
        if high + 1 <= x_b and fails(x_b, high + 1):
            raise AssertionError(f"not monotone above {high} at {x_b}/{n}")
        table[x_b, : low + 1] = True
    width = np.array(
        [
            [np.subtract(*newcombe_interval(x_c, n, x_b, n)[::-1]) for x_c in range(n + 1)]
            for x_b in range(n + 1)
        ]
    )
    return Decisions(n=n, fails=table, width=width, compares=calls)


def pass_counts(
    judge: str,
    samples: int,
    mix: tuple[float, ...],
    n: int,
    nights: int,
    rng: np.random.Generator,
    *,
    shared: bool = False,
) -> np.ndarray:
    """Each night's count of runs passed (majority of k verdicts) in a batch of ``n`` runs.

    ``shared``: the runs of a batch with the same answer share one judgement (the cache of
    judgements by text, before issue 35); else each run is judged on its own."""
    answers = rng.choice(len(mix), size=(nights, n), p=mix)
    if shared:
        per_text = verdicts(judge, np.tile(np.arange(len(mix)), (nights, 1)), samples, rng)
        said = np.take_along_axis(per_text, answers[..., None].repeat(samples, -1), axis=1)
    else:
        said = verdicts(judge, answers, samples, rng)
    return (said.sum(-1) * 2 > samples).sum(-1)


def _share(hits: int, total: int) -> str:
    low, high = wilson_interval(hits, total)
    return f"{hits / total:.3f} ({low:.3f}–{high:.3f})"


def part_aa(args: argparse.Namespace, tables: dict[int, Decisions]) -> None:
    rng = np.random.default_rng(args.seed)
    print(f"\nA/A: share of {args.nights} nights failed (Wilson 95 %), alpha = 0.05")
    print("| N | judge | k | judged per run | mean CI width | shared by answer (before) |")
    print("|---:|---|---:|---|---:|---|")
    for n in (20, 50):
        table = tables[n]
        for judge in JUDGES:
            for k in SAMPLES:
                b = pass_counts(judge, k, BASELINE_MIX, n, args.nights, rng)
                c = pass_counts(judge, k, BASELINE_MIX, n, args.nights, rng)
                own = int(table.fails[b, c].sum())
                sb = pass_counts(judge, k, BASELINE_MIX, n, args.nights, rng, shared=True)
                sc = pass_counts(judge, k, BASELINE_MIX, n, args.nights, rng, shared=True)
                shared = int(table.fails[sb, sc].sum())
                print(
                    f"| {n} | {judge} | {k} | {_share(own, args.nights)} | "
                    f"{table.width[b, c].mean():.3f} | {_share(shared, args.nights)} |"
                )


def part_power(args: argparse.Namespace, tables: dict[int, Decisions]) -> None:
    rng = np.random.default_rng(args.seed + 1)
    print(f"\nPower: a 20-point drop (70 % -> 50 % right), {args.power_nights} nights")
    print("| judge | k | judged drop | N = 20 | N = 50 |")
    print("|---|---:|---:|---|---|")
    for judge in JUDGES:
        for k in SAMPLES:
            cells, drops = [], []
            for n in (20, 50):
                b = pass_counts(judge, k, BASELINE_MIX, n, args.power_nights, rng)
                c = pass_counts(judge, k, DROPPED_MIX, n, args.power_nights, rng)
                cells.append(_share(int(tables[n].fails[b, c].sum()), args.power_nights))
                drops.append(float((b - c).mean()) / n)
            print(f"| {judge} | {k} | {100 * np.mean(drops):.1f} pts | {cells[0]} | {cells[1]} |")


def _stability_rows(said: np.ndarray) -> pd.DataFrame:
    import json

    records = [
        json.dumps(
            [
                {
                    "criterion": "judge",
                    "model": "scripted",
                    "samples_wanted": len(v),
                    "held": None,
                    "error": None,
                    "samples": [{"verdict": "PASS" if x else "FAIL"} for x in v],
                }
            ]
        )
        for v in said
    ]
    return pd.DataFrame({"scenario": "capital", "judge_calls": records})


def part_stability(args: argparse.Namespace, tables: dict[int, Decisions]) -> None:
    from trajguard.comparison._judges import judge_consistency

    rng = np.random.default_rng(args.seed + 3)
    nights = args.stability_nights
    print(f"\nStability figures, {nights} batches per cell (one side), 70 % right answers")
    print(
        "| judge | k | N | pair disagreement: true | mean | interval covers | noise share: "
        "true | mean (unbiased) | mean (naive, before) | flagged unstable |"
    )
    print("|---|---:|---:|---:|---:|---|---:|---:|---:|---|")
    mix = np.array(BASELINE_MIX)
    for judge in JUDGES:
        f = float(judge.split("-")[1]) if judge.startswith("random-") else 0.0
        true_pair = 2 * f * (1 - f)
        right = float(mix @ RIGHT)
        p_verdict = right * (1 - f) + (1 - right) * f
        if judge == "biased":
            p_verdict = right + mix[2]
        true_share = f * (1 - f) / (p_verdict * (1 - p_verdict))
        for k in (3, 5):
            for n in (20, 50):
                pairs, covers, shares, naive, flagged = [], 0, [], [], 0
                for _ in range(nights):
                    answers = rng.choice(len(mix), size=n, p=mix)
                    said = verdicts(judge, answers, k, rng)
                    (found,) = judge_consistency(_stability_rows(said), "candidate")
                    pairs.append(found.pair_disagreement)
                    covers += (
                        found.pair_disagreement_low <= true_pair <= (found.pair_disagreement_high)
                    )
                    flagged += found.unstable
                    if found.noise_share is not None:
                        shares.append(found.noise_share)
                        q = said.mean(-1)
                        p = said.mean()
                        naive.append(min(1.0, float((q * (1 - q)).mean() / (p * (1 - p)))))
                print(
                    f"| {judge} | {k} | {n} | {true_pair:.3f} | {np.mean(pairs):.3f} | "
                    f"{_share(covers, nights)} | {true_share:.2f} | "
                    f"{np.mean(shares) if shares else float('nan'):.2f} | "
                    f"{np.mean(naive) if naive else float('nan'):.2f} | {_share(flagged, nights)} |"
                )


def _suite(path: Path, api_base: str, samples: int, runs: int) -> Any:
    from trajguard.suite import load_suite

    mix = ",".join(str(w) for w in BASELINE_MIX)
    path.write_text(
        f"name: judged\ndefaults: {{runs: {runs}, concurrency: 4}}\nscenarios:\n"
        "  - id: capital\n"
        f"    agent: {{kind: callable, function: repeats_agent:answer, params: {{mix: '{mix}'}}}}\n"
        "    input: What is the capital of France?\n    pass:\n"
        f"      - judge: {{rubric: 'The answer names Paris.', model: openai/judge, "
        f"api_base: '{api_base}', samples: {samples}, temperature: 0.7}}\n"
    )
    return load_suite(path)


async def _http_night(suite: Any, where: Path, night: int, seed: int) -> tuple[int, int, bool]:
    from trajguard_testkit.scripted import Scripted

    from trajguard import store
    from trajguard.runner import BatchOptions, run_batch

    sides = []
    for side in ("b", "c"):
        runset = where / f"{night}-{side}"
        options = BatchOptions(seed=seed * 100_000 + night * 2 + (side == "c"))
        await run_batch(suite, runset, options, make_model=lambda _: Scripted(lambda m, o: "ok"))
        sides.append(store.read_runs(runset))
    passes = [int(s["passed"].fillna(False).sum()) for s in sides]
    return passes[0], passes[1], compare_runsets(sides[0], sides[1]).regressed


def part_http(args: argparse.Namespace, tables: dict[int, Decisions]) -> None:
    import os

    os.environ.setdefault("OPENAI_API_KEY", "sk-scripted-judge-0000")  # litellm wants one
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "support"))
    rng = np.random.default_rng(args.seed + 2)
    n, conditions = 20, [("random-0.3", 3), ("random-0.5", 1), ("consistent", 3)]
    print(f"\nHTTP: {args.http_nights} A/A nights of real batches per condition, N = {n}")
    print(
        "| judge | k | HTTP nights failed | in process (same nights' law) | "
        "HTTP count variance / binomial | in process |"
    )
    print("|---|---:|---|---|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        where = Path(tmp)
        (where / "repeats_agent.py").write_text(AGENT)
        sys.path.insert(0, str(where))
        for judge, k in conditions:
            counts, failed = [], 0
            with judge_server(judge, seed=args.seed) as server:
                suite = _suite(where / f"{judge}-{k}.yaml", server["api_base"], k, n)
                for night in range(args.http_nights):
                    x_b, x_c, regressed = asyncio.run(
                        _http_night(suite, where / f"{judge}-{k}", night, args.seed)
                    )
                    counts += [x_b, x_c]
                    failed += regressed
            b = pass_counts(judge, k, BASELINE_MIX, n, args.nights, rng)
            c = pass_counts(judge, k, BASELINE_MIX, n, args.nights, rng)
            sim = int(tables[n].fails[b, c].sum())
            print(
                f"| {judge} | {k} | {_share(failed, args.http_nights)} | "
                f"{_share(sim, args.nights)} | {_dispersion(np.array(counts), n):.2f} | "
                f"{_dispersion(np.concatenate([b, c]), n):.2f} |"
            )


def _dispersion(counts: np.ndarray, n: int) -> float:
    p = counts.mean() / n
    return float(counts.var(ddof=1) / max(n * p * (1 - p), 1e-9))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--only",
        choices=("aa", "power", "stability", "http", "trivial", "pairwise", "pairwise-http"),
    )
    parser.add_argument("--nights", type=int, default=1000)
    parser.add_argument("--power-nights", type=int, default=500)
    parser.add_argument("--stability-nights", type=int, default=300)
    parser.add_argument("--http-nights", type=int, default=20)
    parser.add_argument("--trivial-nights", type=int, default=500)
    parser.add_argument("--both-orders", type=float, default=0.5, help="pairwise part")
    parser.add_argument("--pairwise-cell", help="pairwise part: one A/A cell, JUDGE:SxN")
    parser.add_argument("--seed", type=int, default=35)
    args = parser.parse_args()
    began = time.perf_counter()
    needs_tables = args.only not in ("stability", "trivial", "pairwise", "pairwise-http")
    tables = {n: decisions(n) for n in (20, 50)} if needs_tables else {}
    print(
        "decision tables: "
        + ", ".join(f"N = {n}: {t.compares} comparisons" for n, t in tables.items())
        + f" ({time.perf_counter() - began:.0f} s)"
    )
    assert RIGHT.sum() == 2
    parts = (("aa", part_aa), ("power", part_power), ("stability", part_stability))
    pairwise = (("pairwise", part_pairwise), ("pairwise-http", part_pairwise_http))
    for name, part in (*parts, ("http", part_http), ("trivial", part_trivial), *pairwise):
        if args.only in (None, name):
            part(args, tables)
    print(f"\n{time.perf_counter() - began:.0f} s")


if __name__ == "__main__":
    main()
