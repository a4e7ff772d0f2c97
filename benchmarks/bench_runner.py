"""Benchmark: runner throughput against raw litellm calls at the same concurrency (target >= 0.9x).

Both sides make the same model calls on the embedded model (same prompts, max_tokens, seeds):
the raw side with ``litellm.acompletion`` under an asyncio semaphore, the runner side as a suite
whose callable agent makes those calls through ``ctx.model``, so the runner's work (planning,
capture, normalisation, criteria, one Parquet part per run, compaction) is all included.

Run: python benchmarks/bench_runner.py [--runs 24] [--calls 2] [--concurrency 2] [--repeat 3]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

PROMPTS = ["Name a colour.", "Name an animal.", "Name a city.", "Name a fruit."]

AGENT = """
from trajguard.capture import LLMResponse

CALLS = {calls}
PROMPTS = {prompts!r}

async def agent(ctx):
    ctx.recorder.user(ctx.input)
    for index in range(CALLS):
        prompt = PROMPTS[(ctx.seed + index) % len(PROMPTS)]
        response = await ctx.model.complete(
            [{{"role": "user", "content": prompt}}], max_tokens=16, temperature=0.0,
            seed=index,
        )
        ctx.recorder.agent_step(response)
    return None
"""

SUITE = """
name: bench
defaults: {{runs: {runs}, concurrency: {concurrency}, timeout_s: 600}}
scenarios:
  - id: calls
    agent: {{kind: callable, function: "bench_agent:agent"}}
    input: go
    pass:
      - max_steps: 100
"""


async def raw(runs: int, calls: int, concurrency: int, base_url: str) -> float:
    import litellm

    semaphore = asyncio.Semaphore(concurrency)

    async def one(run: int) -> None:
        async with semaphore:
            for index in range(calls):
                await litellm.acompletion(
                    model="openai/smollm2",
                    api_base=base_url,
                    api_key="sk-no-key",
                    messages=[{"role": "user", "content": PROMPTS[(run + index) % len(PROMPTS)]}],
                    max_tokens=16,
                    temperature=0.0,
                    seed=index,
                    drop_params=True,
                )

    start = time.perf_counter()
    await asyncio.gather(*(one(run) for run in range(runs)))
    return time.perf_counter() - start


def through_runner(runs: int, calls: int, concurrency: int, workdir: Path) -> float:
    from trajguard.runner import BatchOptions, run_batch
    from trajguard.suite import load_suite

    (workdir / "bench_agent.py").write_text(AGENT.format(calls=calls, prompts=PROMPTS))
    (workdir / "suite.yaml").write_text(SUITE.format(runs=runs, concurrency=concurrency))
    if str(workdir) not in sys.path:
        sys.path.insert(0, str(workdir))
    suite = load_suite(workdir / "suite.yaml")
    out = Path(tempfile.mkdtemp(dir=workdir)) / "rs"
    start = time.perf_counter()
    result = asyncio.run(run_batch(suite, out, BatchOptions(seed=1)))
    elapsed = time.perf_counter() - start
    assert result.counts == {"ok": runs}, result.counts
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=24)
    parser.add_argument("--calls", type=int, default=2)
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    from trajguard.local_model import get_local_server, stop_local_server

    server = get_local_server()
    try:
        asyncio.run(raw(2, 1, 1, server.base_url))  # warm the server
        raws, runners = [], []
        with tempfile.TemporaryDirectory() as tmp:
            for _ in range(args.repeat):
                raws.append(
                    asyncio.run(raw(args.runs, args.calls, args.concurrency, server.base_url))
                )
                runners.append(through_runner(args.runs, args.calls, args.concurrency, Path(tmp)))
        ratio = statistics.median(raws) / statistics.median(runners)
        print(
            f"{args.runs} runs x {args.calls} calls, concurrency {args.concurrency}, "
            f"{args.repeat} repeats"
        )
        print(
            f"raw litellm:    median {statistics.median(raws):.2f} s  {[round(x, 2) for x in raws]}"
        )
        print(
            f"trajguard run:  median {statistics.median(runners):.2f} s  "
            f"{[round(x, 2) for x in runners]}"
        )
        print(f"runner throughput / raw throughput = {ratio:.3f}")
    finally:
        stop_local_server()


if __name__ == "__main__":
    main()
