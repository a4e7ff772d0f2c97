"""One agent run on the embedded model, idle or beside a CPU-bound neighbour, per server setting.

On a 2-core machine a run that takes seconds idle took minutes beside one busy-looping process
(RESULTS.md). This runs the reference agent (json mode, the calculator and weather tools, "What
is 17 * 23?", a fixed seed) against a fresh server per setting, alternating idle / beside a
busy loop, and reports the median time per run, the ratio, and what the server process went
through: CPU seconds and involuntary context switches (preemptions) per run, from
/proc/PID/status and /proc/PID/stat.

Settings: ``before`` (2 threads for generation and for prompts, every prompt token's logits:
the server until 2026-12-01), ``before-passive`` (the same with OMP_WAIT_POLICY=PASSIVE: threads
that wait at a barrier sleep instead of spinning), ``after`` (1 thread, the default now).

    python benchmarks/bench_contention.py [--repeat 3] [--limit 300] [--settings before after]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from trajguard.agent import AgentConfig, ReferenceAgent
from trajguard.capture import LiteLLMModel
from trajguard.examples.demo_tools import calculator, get_weather
from trajguard.local_model import LocalModelServer

BUSY_LOOP = "while True: pass"
SETTINGS = {
    "before": {"n_threads": 2, "n_threads_batch": 2, "logits_all": True},
    "before-passive": {
        "n_threads": 2,
        "n_threads_batch": 2,
        "logits_all": True,
        "env": {"OMP_WAIT_POLICY": "PASSIVE"},
    },
    "after": {"n_threads": 1},
}


def _process_state(pid: int) -> tuple[float, int]:
    """CPU seconds (user + system, all threads) and involuntary context switches so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    switches = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        for line in (task / "status").read_text().splitlines():
            if line.startswith("nonvoluntary_ctxt_switches:"):
                switches += int(line.split()[1])
    return cpu, switches


async def _one_run(model: LiteLLMModel, limit_s: float) -> tuple[float | None, int, int]:
    """Seconds (``None``: over the limit), model calls and tokens of one run."""
    agent = ReferenceAgent(
        AgentConfig(
            system_prompt="You are a helpful assistant.",
            tools=[calculator, get_weather],
            mode="json",
            temperature=0.7,
            max_tokens=96,
        )
    )
    started = time.monotonic()
    try:
        result = await asyncio.wait_for(agent.run(model, "What is 17 * 23?", seed=7), limit_s)
    except TimeoutError:
        return None, 0, 0
    steps = [s for s in result.trajectory.steps if s.metrics is not None]
    tokens = sum(
        (s.metrics.prompt_tokens or 0) + (s.metrics.completion_tokens or 0)
        for s in steps
        if s.metrics
    )
    return time.monotonic() - started, len(steps), tokens


def measure(
    setting: str, neighbour: bool, limit_s: float
) -> tuple[float | None, int, int, float, int]:
    server = LocalModelServer(seed=1, **SETTINGS[setting]).start()  # type: ignore[arg-type]
    busy = subprocess.Popen([sys.executable, "-c", BUSY_LOOP]) if neighbour else None
    try:
        model = LiteLLMModel("openai/smollm2", api_base=server.base_url, api_key="unused")
        assert server.pid is not None
        cpu0, switches0 = _process_state(server.pid)
        seconds, calls, tokens = asyncio.run(_one_run(model, limit_s))
        cpu1, switches1 = _process_state(server.pid)
    finally:
        if busy is not None:
            busy.kill()
            busy.wait()
        server.stop()
    return seconds, calls, tokens, cpu1 - cpu0, switches1 - switches0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--limit", type=float, default=300.0, help="seconds per run at most")
    parser.add_argument("--settings", nargs="+", default=list(SETTINGS), choices=list(SETTINGS))
    args = parser.parse_args()
    times: dict[tuple[str, bool], list[float]] = {}
    for repeat in range(args.repeat):
        for setting in args.settings:
            for neighbour in (False, True):
                seconds, calls, tokens, cpu, switches = measure(setting, neighbour, args.limit)
                shown = "timed out" if seconds is None else f"{seconds:.2f} s"
                where = "beside busy loop" if neighbour else "idle"
                print(
                    f"repeat {repeat + 1} {setting:>14} {where:>16}: {shown} ({calls} model "
                    f"calls, {tokens} tokens), server CPU {cpu:.1f} s, {switches} preemptions "
                    f"(load {os.getloadavg()[0]:.1f})",
                    flush=True,
                )
                times.setdefault((setting, neighbour), []).append(
                    args.limit if seconds is None else seconds
                )
    for setting in args.settings:
        idle = statistics.median(times[setting, False])
        busy = statistics.median(times[setting, True])
        print(
            f"median {setting}: idle {idle:.2f} s, beside a busy loop {busy:.2f} s: "
            f"{busy / idle:.1f}x"
        )


if __name__ == "__main__":
    main()
