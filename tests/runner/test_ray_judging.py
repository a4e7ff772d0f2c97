"""The progress line's judging count for runs on Ray, on the batch's side: the executor relays
the driver's ``judging`` messages (the cluster's total of judgements in flight) to the batch's
observer. The driver here is a stand-in process speaking the driver's line protocol (its
replies scripted). The workers' side — a run on a worker telling its count, without Ray and
as a task of a real (single-node, local) Ray runtime whose counter actor the driver reads — is in
test_judged_runs.py. Not tested: the driver process's relay loop itself (``_relay_judging``
sending ``judging`` lines) on a multi-node cluster."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

from trajguard.runner._executors._ray import RayExecutor
from trajguard.suite import RayExecutorSettings

DRIVER = """
import json, sys
sys.stdin.readline()  # open
print(json.dumps({"op": "opened", "slots": 2, "cluster": None}), flush=True)
for active in (1, 2, 1, 0):
    print(json.dumps({"op": "judging", "active": active}), flush=True)
for line in sys.stdin:  # until the executor closes
    if json.loads(line)["op"] == "close":
        break
"""


async def test_the_ray_executor_tells_the_clusters_judgements_in_flight(tmp_path: Path) -> None:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        DRIVER,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
    )
    executor = RayExecutor(process, RayExecutorSettings(), {}, tmp_path / "driver.log")
    seen: list[int] = []
    done = asyncio.Event()

    def judging(active: int) -> None:
        seen.append(active)
        if len(seen) == 4:
            done.set()

    executor.judging.on_change = judging
    try:
        await executor.open({})
        await asyncio.wait_for(done.wait(), 60)
    finally:
        await executor.close()
    assert seen == [1, 2, 1, 0] and executor.judging.active == 0
    assert executor.slots == 2
    json.dumps(executor.record)  # the manifest's record still serialises
