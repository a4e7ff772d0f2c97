"""Benchmark: normalize + shape on a 1,000-step trajectory with subagents (target <= 50 ms).

Run: python benchmarks/bench_core.py [--repeat 30]
Prints the median and spread of wall time over repeated runs of load -> normalize -> shape,
and of normalize + shape alone (the figure the target applies to).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from typing import Any

from trajguard import load_trajectory, normalize, shape


def build(
    steps: int = 1000, subagents: int = 5, sub_steps: int = 40, seed: int = 1
) -> dict[str, Any]:
    rng = random.Random(seed)

    def trajectory(n: int, tid: str | None) -> dict[str, Any]:
        out: list[dict[str, Any]] = []
        for i in range(1, n + 1):
            step: dict[str, Any] = {
                "step_id": i,
                "timestamp": f"2026-11-29T10:{i % 60:02d}:00Z",
                "source": "agent" if i % 3 else "user",
                "message": f"step {i}: <function tool_{i} at 0x7f{rng.getrandbits(40):010x}> "
                + "lorem ipsum " * 8,
            }
            if step["source"] == "agent":
                cid = f"call_{rng.getrandbits(48):012x}"
                step["tool_calls"] = [
                    {
                        "tool_call_id": cid,
                        "function_name": f"tool_{i % 7}",
                        "arguments": {"x": i, "q": "abc"},
                    }
                ]
                step["observation"] = {
                    "results": [{"source_call_id": cid, "content": f"result {i} " * 5}]
                }
                step["metrics"] = {
                    "prompt_tokens": 100 + i,
                    "completion_tokens": 20,
                    "cost_usd": 0.001,
                }
                step["extra"] = {"generation_id": f"gen-{rng.getrandbits(64):x}"}
            out.append(step)
        doc: dict[str, Any] = {
            "schema_version": "ATIF-v1.7",
            "session_id": f"s-{rng.getrandbits(32)}",
            "agent": {"name": "bench", "version": "1", "model_name": "m"},
            "steps": out,
        }
        if tid:
            doc["trajectory_id"] = tid
        return doc

    root = trajectory(steps, None)
    root["subagent_trajectories"] = [trajectory(sub_steps, f"child-{k}") for k in range(subagents)]
    return root


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=30)
    args = parser.parse_args()
    doc = build()
    traj = load_trajectory(doc)
    core, total = [], []
    for _ in range(args.repeat):
        start = time.perf_counter()
        t = load_trajectory(doc)
        mid = time.perf_counter()
        shape(normalize(t))
        end = time.perf_counter()
        core.append((end - mid) * 1000)
        total.append((end - start) * 1000)
    steps = len(traj.steps) + sum(len(c.steps) for c in traj.subagent_trajectories or [])
    print(
        f"trajectory: {len(traj.steps)} root steps + "
        f"{len(traj.subagent_trajectories or [])} subagents ({steps} steps in all)"
    )
    print(
        f"normalize + shape: median {statistics.median(core):.1f} ms "
        f"(min {min(core):.1f}, max {max(core):.1f}) over {args.repeat} runs"
    )
    print(f"load (pydantic) + normalize + shape: median {statistics.median(total):.1f} ms")


if __name__ == "__main__":
    main()
