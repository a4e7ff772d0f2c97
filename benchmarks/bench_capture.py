"""Benchmark: capture + normalize + shape overhead as a share of run wall time (target <= 2 %).

Runs the reference agent (json mode, the demo suite's multiply scenario) on the embedded model.
Every public method of the recorder is timed (a subclass that accumulates the time spent inside
it), then the finished trajectory is normalised and shaped; the overhead is that time over the
run's wall time (the agent's whole run, model calls included).

Run: python benchmarks/bench_capture.py [--runs 20]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import time
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from trajguard.agent import AgentConfig, ReferenceAgent
from trajguard.capture import LiteLLMModel, TrajectoryRecorder
from trajguard.core.normalize import normalize
from trajguard.core.shape import shape
from trajguard.examples.demo_tools import calculator, get_weather
from trajguard.local_model import get_local_server, stop_local_server

TIMED = ("system", "user", "agent_step", "observe", "agent_error", "finish", "new_call_id")


class TimedRecorder(TrajectoryRecorder):
    """A recorder that adds up the time spent in its own methods."""

    spent = 0.0

    def __getattribute__(self, name: str) -> Any:
        value = super().__getattribute__(name)
        if name in TIMED and callable(value):

            def timed(*args: Any, **kwargs: Any) -> Any:
                start = time.perf_counter()
                try:
                    return value(*args, **kwargs)
                finally:
                    TimedRecorder.spent += time.perf_counter() - start

            return timed
        return value


async def one_run(agent: ReferenceAgent, model: LiteLLMModel, seed: int) -> tuple[float, float]:
    recorder = agent.new_recorder(model)
    recorder.__class__ = TimedRecorder
    TimedRecorder.spent = 0.0
    start = time.perf_counter()
    result = await agent.run(model, "What is 17 * 23?", seed=seed, recorder=recorder)
    wall = time.perf_counter() - start
    core_start = time.perf_counter()
    shape(normalize(result.trajectory))
    overhead = TimedRecorder.spent + time.perf_counter() - core_start
    return wall, overhead


async def main_async(runs: int) -> None:
    agent = ReferenceAgent(
        AgentConfig(
            system_prompt="You are a careful assistant. Use the calculator for arithmetic.",
            tools=[calculator, get_weather],
            mode="json",
            tool_budget=2,
            max_steps=6,
            temperature=0.7,
            max_tokens=128,
        )
    )
    model = LiteLLMModel("local/smollm2")
    await one_run(agent, model, 0)  # warm-up: server start, first prompt processing
    shares, walls, overheads = [], [], []
    for seed in range(1, runs + 1):
        wall, overhead = await one_run(agent, model, seed)
        walls.append(wall)
        overheads.append(overhead)
        shares.append(overhead / wall)
    print(f"{runs} runs of the reference agent (json mode) on local/smollm2")
    print(f"run wall time: median {statistics.median(walls):.2f} s")
    print(f"capture + normalize + shape: median {1000 * statistics.median(overheads):.2f} ms")
    print(
        f"overhead share: median {100 * statistics.median(shares):.3f} %, "
        f"max {100 * max(shares):.3f} %"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    get_local_server()
    try:
        asyncio.run(main_async(args.runs))
    finally:
        stop_local_server()


if __name__ == "__main__":
    main()
