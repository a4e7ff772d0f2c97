"""The Ray driver: a child process of a batch on ``--executor ray``, talking JSON lines.

Ray runs in a process of its own because importing it changes process-wide state (it replaces
``sys.excepthook``, enables ``faulthandler``, configures its loggers) and its driver prints
cluster events to stdout; the process that runs the batch, which may be a user's program
calling the library, stays as it was. This process only relays: it submits each run the batch
sends as a Ray task and sends back the row or why the run was lost. The batch keeps the plan,
the seeds, the journal and the run set.

Protocol (one JSON object per line; stdin from the batch, replies on the stdout it was
started with — Ray's own output goes to stderr, a log file the batch names):

* ``open`` → ``opened`` (cluster, slots) or ``failed`` (kind: ``unreachable``, ``infeasible``,
  ``import``, ``model``; message; details);
* ``run`` (id, job) → ``done`` (id, row), ``lost`` (id, error_type, message: the worker died)
  or ``error`` (id, error_type, message: the task raised);
* ``fatal`` (message) when no node can hold a run any more or the cluster stops answering;
* ``close`` or the end of stdin: in-flight tasks are cancelled, the driver disconnects.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import os
import socket
import sys
import threading
from collections.abc import Mapping
from typing import IO, Any

import ray
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

from trajguard.runner._executors import _ray_worker
from trajguard.store import MESSAGE_CHARS

__all__ = ["main"]

PROBE_TIMEOUT_S = 10.0
WATCH_INTERVAL_S = 2.0
LOST_CLUSTER_GRACE_S = 10.0
"""How long no node may be able to hold a run before the batch stops (resumably)."""
JUDGING_INTERVAL_S = 0.5
"""How often the judgements in flight on the cluster are read for the progress line."""


class _Refused(Exception):
    """A reason not to start the batch: becomes a ``failed`` reply."""

    def __init__(self, kind: str, message: str, details: list[str] | None = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.details = details or []


def main() -> int:
    channel = os.fdopen(os.dup(sys.stdout.fileno()), "w", encoding="utf-8", buffering=1)
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # Ray prints to both, C++ and Python
    return asyncio.run(_Driver(channel).serve())


def _send(channel: IO[str], message: Mapping[str, Any]) -> None:
    channel.write(json.dumps(message) + "\n")


class _Driver:
    def __init__(self, channel: IO[str]) -> None:
        self._channel = channel
        self._inbox: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
        self._in_flight: dict[str, Any] = {}
        self._demand: dict[str, float] = {}
        self._urls: dict[str, str] = {}
        self._keep: list[Any] = []  # node model actors: alive while referenced
        self._task: Any = None
        self._judging: Any = None

    def send(self, message: Mapping[str, Any]) -> None:
        _send(self._channel, message)

    async def serve(self) -> int:
        loop = asyncio.get_running_loop()
        threading.Thread(target=self._read, args=(loop,), daemon=True).start()
        request = await self._inbox.get()
        if request is None or request.get("op") != "open":
            return 0
        try:  # in this thread: ray.init sets up signal handlers only in the main thread
            self.send({"op": "opened", **self._open(request)})
        except Exception as exc:
            refused = exc if isinstance(exc, _Refused) else _Refused("cluster", _text(exc))
            self.send(
                {
                    "op": "failed",
                    "kind": refused.kind,
                    "message": refused.message,
                    "details": refused.details,
                }
            )
            return 0
        watcher = asyncio.create_task(self._watch())
        relay = asyncio.create_task(self._relay_judging())
        runs: set[asyncio.Task[None]] = set()
        while (request := await self._inbox.get()) is not None and request["op"] == "run":
            task = asyncio.create_task(self._run(request["id"], request["job"]))
            runs.add(task)
            task.add_done_callback(runs.discard)
        watcher.cancel()
        relay.cancel()
        self._close()
        return 0

    def _read(self, loop: asyncio.AbstractEventLoop) -> None:
        for line in sys.stdin:
            if line.strip():
                loop.call_soon_threadsafe(self._inbox.put_nowait, json.loads(line))
        loop.call_soon_threadsafe(self._inbox.put_nowait, None)

    def _open(self, request: Mapping[str, Any]) -> dict[str, Any]:
        """Connect, find the nodes that can hold a run, check them (imports first: they fail
        fast), start the embedded model where it runs, and call every model from every node."""
        address = _probe(request["address"] or os.environ.get("RAY_ADDRESS") or "auto")
        try:
            ray.init(
                address=address,
                namespace="trajguard",
                runtime_env={"env_vars": {"PYTHONPATH": request["pythonpath"]}},
                log_to_driver=False,
                configure_logging=False,
            )
        except Exception as exc:
            message = f"cannot connect to the Ray cluster at {address}: {exc}"
            raise _Refused("unreachable", message) from None
        task = request["task"]
        self._demand = {"CPU": float(task["num_cpus"]), **task["resources"]}
        nodes = [node for node in _nodes() if node["Alive"]]
        able = [node for node in nodes if _fits(node["Resources"], self._demand)]
        if not able:
            raise _Refused(
                "infeasible",
                f"no node of the Ray cluster at {address} can hold a run needing "
                f"{_resources(self._demand)}",
                [f"node {n['NodeManagerAddress']}: {_resources(n['Resources'])}" for n in nodes],
            )
        arms = request["arms"]
        able = _on_every(able, "import", _ray_worker.check_imports, arms)
        embedded = request["embedded_model"]
        if embedded == "node":
            able = self._start_node_models(able)
        elif embedded is not None:
            self._urls = {"*": embedded}
        able = _on_every(able, "model", _ray_worker.check_models, arms, self._urls)
        if not able:
            raise _Refused(
                "infeasible",
                f"every node of the Ray cluster at {address} that "
                "could hold a run left it while the batch was starting",
            )
        self._judging = ray.remote(_ray_worker.JudgingCounter).options(num_cpus=0).remote()
        self._task = ray.remote(_ray_worker.run_job).options(
            num_cpus=task["num_cpus"],
            resources=task["resources"] or None,
            max_retries=task["max_retries"],
            retry_exceptions=False,
            scheduling_strategy="SPREAD",
        )
        return {
            "slots": sum(_slots(node["Resources"], self._demand) for node in able),
            "cluster": {
                "address": address,
                "ray_version": ray.__version__,
                "nodes": [
                    {
                        "node_id": node["NodeID"],
                        "address": node["NodeManagerAddress"],
                        "resources": _resources(node["Resources"]),
                        "runs_here": node in able,
                        "embedded_model": self._urls.get(node["NodeID"]),
                    }
                    for node in nodes
                ],
            },
        }

    def _start_node_models(self, nodes: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """One embedded model server per node (an actor pinned there); the nodes that have
        one (a node that is gone is left out)."""
        actor: Any = ray.remote(_ray_worker.NodeModelServer)
        servers = [actor.options(num_cpus=0, scheduling_strategy=_on(n)).remote() for n in nodes]
        started = []
        for node, server in zip(nodes, servers, strict=True):
            try:
                self._urls[node["NodeID"]] = ray.get(server.start.remote())
            except ray.exceptions.RayTaskError as exc:
                message = f"the embedded model did not start on node {node['NodeManagerAddress']}"
                raise _Refused("model", f"{message}: {exc}") from None
            except ray.exceptions.RayError:
                continue
            started.append(node)
            self._keep.append(server)
        return started

    async def _run(self, run_id: str, job: str) -> None:

        ref = self._task.remote(job, self._urls, self._judging)
        self._in_flight[run_id] = ref
        try:
            row = await ref
        except ray.exceptions.RayTaskError as exc:  # the task raised: trajguard's own bug
            self.send({"op": "error", "id": run_id, **_described(exc)})
        except ray.exceptions.RayError as exc:  # the worker died: node lost, OOM, killed
            self.send({"op": "lost", "id": run_id, **_described(exc)})
        else:
            self.send({"op": "done", "id": run_id, "row": row})
        finally:
            del self._in_flight[run_id]
            with contextlib.suppress(ray.exceptions.RayError):  # the counter is gone: no count
                self._judging.done.remote(run_id)

    async def _relay_judging(self) -> None:
        """Tell the batch the judgements in flight on the cluster whenever their total
        changes (read every :data:`JUDGING_INTERVAL_S`)."""
        told = 0
        while True:
            await asyncio.sleep(JUDGING_INTERVAL_S)
            try:
                active = int(await self._judging.total.remote())
            except ray.exceptions.RayError:  # the counter's node is gone: no count to show
                continue
            if active != told:
                told = active
                self.send({"op": "judging", "active": active})

    async def _watch(self) -> None:
        """Stop the batch when no node can hold a run any more (Ray would wait for one
        forever) or the cluster stops answering; runs in flight are then redone on resume."""

        trouble_since: float | None = None
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(WATCH_INTERVAL_S)
            try:
                nodes = await asyncio.wait_for(asyncio.to_thread(_nodes), PROBE_TIMEOUT_S)
                able = [n for n in nodes if n["Alive"] and _fits(n["Resources"], self._demand)]
                problem = None if able else "no node of the Ray cluster can hold a run any more"
            except Exception as exc:
                problem = f"the Ray cluster stopped answering: {type(exc).__name__}: {exc}"
            if problem is None or not self._in_flight:
                trouble_since = None
                continue
            trouble_since = trouble_since or loop.time()
            if loop.time() - trouble_since >= LOST_CLUSTER_GRACE_S:
                self.send({"op": "fatal", "message": problem})
                return

    def _close(self) -> None:

        for ref in list(self._in_flight.values()):
            try:
                ray.cancel(ref, force=True)
            except Exception:  # noqa: S112 - already finished or lost: nothing to cancel
                continue
        ray.shutdown()


def _on(node: Mapping[str, Any]) -> NodeAffinitySchedulingStrategy:
    return NodeAffinitySchedulingStrategy(node_id=node["NodeID"], soft=False)


def _on_every(
    nodes: list[dict[str, Any]], kind: str, check: Any, *args: Any
) -> list[dict[str, Any]]:
    """Run a check on every node (a task pinned to it, holding no CPU) and return the nodes
    that answered; refuse the batch with every problem found. A node that is gone (Ray's table
    lists a node as alive for a few seconds after its raylet died) is left out."""
    remote: Any = ray.remote(check)
    refs = [remote.options(num_cpus=0, scheduling_strategy=_on(n)).remote(*args) for n in nodes]
    answered, details = [], []
    for node, ref in zip(nodes, refs, strict=True):
        try:
            problems = ray.get(ref)
        except ray.exceptions.RayTaskError:
            raise
        except ray.exceptions.RayError:
            continue
        answered.append(node)
        details += [f"on node {node['NodeManagerAddress']}: {problem}" for problem in problems]
    if details:
        what = "cannot be imported or started" if kind == "import" else "does not answer"
        raise _Refused(kind, f"{len(details)} thing(s) the runs need {what} there", details)
    return answered


def _nodes() -> list[dict[str, Any]]:
    """Ray's table of the cluster's nodes (``NodeID``, ``Alive``, ``NodeManagerAddress``,
    ``Resources``)."""
    table: Any = ray.nodes()  # type: ignore[no-untyped-call] # Ray leaves it untyped
    return list(table)


def _probe(address: str) -> str:
    """The cluster's ``host:port`` (``auto``: the cluster started on this machine), checked to
    accept connections: ``ray.init`` would wait minutes for a cluster that is not there."""
    if address.startswith("ray://"):
        return address  # Ray Client: its own handshake
    found: str | None = address
    if address == "auto":
        try:
            from ray._private.services import canonicalize_bootstrap_address

            found = canonicalize_bootstrap_address(address)
        except Exception as exc:
            raise _Refused("unreachable", f"no Ray cluster found on this machine: {exc}") from None
        if found is None:
            raise _Refused("unreachable", "no Ray cluster is running on this machine")
    host, _, port = str(found).rpartition(":")
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=PROBE_TIMEOUT_S):
            pass
    except (OSError, ValueError) as exc:
        raise _Refused("unreachable", f"cannot reach the Ray cluster at {found}: {exc}") from None
    return str(found)


def _fits(offered: Mapping[str, float], demand: Mapping[str, float]) -> bool:
    return all(offered.get(name, 0.0) >= amount for name, amount in demand.items())


def _slots(offered: Mapping[str, float], demand: Mapping[str, float]) -> int:
    return min(math.floor(offered.get(name, 0.0) / need + 1e-9) for name, need in demand.items())


def _resources(resources: Mapping[str, float]) -> dict[str, float]:
    """The resources worth showing: CPUs and custom ones (not memory, not node markers)."""
    return {
        name: amount
        for name, amount in resources.items()
        if not name.startswith("node:") and name not in ("memory", "object_store_memory")
    }


def _text(error: BaseException) -> str:
    return f"{type(error).__name__}: {str(error).strip()[:MESSAGE_CHARS]}"


def _described(error: BaseException) -> dict[str, str]:
    return {"error_type": type(error).__name__, "message": str(error).strip()[:MESSAGE_CHARS]}


if __name__ == "__main__":
    sys.exit(main())
