"""Benchmark: one json-mode agent run on the embedded model, idle or beside a CPU-bound process.

An open question (see RESULTS.md): beside one CPU-saturating process on a 2-core machine, a run
that takes seconds idle takes minutes. This times the reference agent (json mode, the calculator
and weather tools, "What is 17 * 23?") against a fresh embedded server with the given number of
llama threads, with or without a busy-looping neighbour process.

Run: python benchmarks/bench_contention.py [--threads 2] [--runs 2] [--neighbour] [--limit 300]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import time

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from trajguard.agent import AgentConfig, ReferenceAgent
from trajguard.capture.llm import LiteLLMModel
from trajguard.examples.demo_tools import calculator, get_weather
from trajguard.local_model import LocalModelServer

BUSY_LOOP = "while True: pass"


async def _runs(model: LiteLLMModel, runs: int, limit_s: float) -> None:
    agent = ReferenceAgent(
        AgentConfig(
            system_prompt="You are a helpful assistant.",
            tools=[calculator, get_weather],
            mode="json",
            temperature=0.7,
            max_tokens=96,
        )
    )
    for index in range(runs):
        started = time.monotonic()
        try:
            result = await asyncio.wait_for(agent.run(model, "What is 17 * 23?"), limit_s)
            outcome = f"{result.status}, {len(result.trajectory.steps)} steps"
        except TimeoutError:
            outcome = f"not finished within {limit_s:.0f} s"
        print(f"run {index}: {time.monotonic() - started:.2f} s ({outcome})", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=2, help="llama threads of the server")
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--neighbour", action="store_true", help="run a busy loop beside it")
    parser.add_argument("--limit", type=float, default=300.0, help="seconds per run at most")
    args = parser.parse_args()
    server = LocalModelServer(n_threads=args.threads).start()
    neighbour = subprocess.Popen([sys.executable, "-c", BUSY_LOOP]) if args.neighbour else None
    try:
        # The server speaks the OpenAI API and ignores the key; litellm insists on one.
        model = LiteLLMModel("openai/smollm2", api_base=server.base_url, api_key="unused")
        print(f"threads {args.threads}, neighbour {'yes' if neighbour else 'no'}", flush=True)
        asyncio.run(_runs(model, args.runs, args.limit))
    finally:
        if neighbour is not None:
            neighbour.kill()
            neighbour.wait()
        server.stop()


if __name__ == "__main__":
    main()
