"""The Ray executor on the batch's side: a Ray driver process (:mod:`._ray_driver`) started
for the batch, each run sent to it as JSON, its row awaited.

This module does not import Ray, and neither does the process running the batch: the driver
process does. Everything a run needs is checked before the batch writes anything: the cluster
answers, some node can hold a run's resources, every import path and command resolves and
every model answers on every node that can run it (exit 3 for the cluster and the models, 2 for
imports, as for a local batch).
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import json
import os
import shutil
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from trajguard.errors import (
    InfrastructureError,
    MissingExtra,
    ModelUnavailable,
    SuiteError,
    TrajguardError,
)
from trajguard.local_model import is_local_model, running_local_server
from trajguard.runner._executors._base import LOST, harness_row
from trajguard.runner._executors._jobs import decode_row, encode_job
from trajguard.runner._judging import JudgingProgress
from trajguard.runner._models import make_models, preflight, uses_model
from trajguard.runner._plan import Plan, RunSpec
from trajguard.runner._startup import NO_STEPS, StartupSteps
from trajguard.suite import RayExecutorSettings, ResolvedScenario

__all__ = ["INSTALL_HINT", "RayExecutor", "open_ray"]

INSTALL_HINT = "pip install 'trajguard[ray]'"
OPEN_TIMEOUT_S = 600.0
"""Connecting, starting every node's model server and checking every node (workers start
cold: each imports trajguard and litellm)."""
CLOSE_TIMEOUT_S = 30.0
_READ_LIMIT = 1 << 28  # a row carries its whole trajectory
_LOG_TAIL_CHARS = 1500


class RayExecutor:
    """Each run a Ray task; rows come back as each run finishes."""

    def __init__(
        self,
        process: asyncio.subprocess.Process,
        settings: RayExecutorSettings,
        batch: Mapping[str, Any],
        log_path: Path,
    ) -> None:
        self._process = process
        self._settings = settings
        self._batch = batch
        self._log_path = log_path
        self._opened: dict[str, Any] = {}
        self._waiting: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._fatal: TrajguardError | None = None
        self._reader: asyncio.Task[None] | None = None
        self._writing = asyncio.Lock()
        self.judging = JudgingProgress()
        """The judgements in flight on the cluster (the driver relays their total)."""

    @property
    def record(self) -> Mapping[str, Any]:
        return {
            "kind": "ray",
            "settings": self._settings.model_dump(mode="json"),
            "cluster": self._opened.get("cluster"),
        }

    @property
    def slots(self) -> int | None:
        slots = self._opened.get("slots")
        return int(slots) if slots else None

    async def open(self, request: Mapping[str, Any]) -> None:
        """Connect and check (see the module doc); raises as a local batch's start would."""
        await self._send({"op": "open", **request})
        try:
            reply = await asyncio.wait_for(self._next(), OPEN_TIMEOUT_S)
        except TimeoutError:
            raise InfrastructureError(
                f"the Ray cluster was not ready to run within {OPEN_TIMEOUT_S:.0f} s",
                hint="check the cluster (`ray status`); nothing was written",
            ) from None
        if reply is None:
            raise InfrastructureError(
                f"the Ray driver process exited while connecting{await self._exit_detail()}"
            )
        if reply["op"] == "failed":
            raise _refused(reply)
        self._opened = reply
        self._reader = asyncio.create_task(self._read())

    def keep_server_log(
        self, runset: Path, plan: Plan, rows: Sequence[Mapping[str, Any]]
    ) -> Path | None:
        return None  # the embedded servers run on the cluster's nodes, their logs there

    async def run(self, spec: RunSpec, arm: ResolvedScenario) -> dict[str, Any]:
        """Run ``spec`` as a Ray task and return its row; a run whose worker died is a
        ``harness_error`` with ``error_type`` ``RunLost`` (``--resume`` redoes it).

        Raises:
            InfrastructureError: the cluster can no longer run anything (the batch stops;
                the runs in flight are redone on resume).
        """
        if self._fatal is not None:
            raise self._fatal
        started_at, clock = datetime.now(UTC), time.monotonic()
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._waiting[spec.run_id] = future
        try:
            job = encode_job(spec, arm, self._batch)
            try:
                await self._send({"op": "run", "id": spec.run_id, "job": job})
            except (ConnectionError, RuntimeError):  # the driver process is gone
                raise self._fatal or InfrastructureError(
                    "the batch stopped: the Ray driver process exited",
                    hint="the finished runs are saved; finish the batch with --resume RUNSET",
                ) from None
            reply = await future
        finally:
            self._waiting.pop(spec.run_id, None)
        if reply["op"] == "done":
            return decode_row(reply["row"])
        lost = reply["op"] == "lost"
        return harness_row(
            spec,
            arm,
            self._batch,
            started_at=started_at,
            duration_s=time.monotonic() - clock,
            error_type=LOST if lost else reply["error_type"],
            message=(
                f"the Ray worker running this run died ({reply['error_type']}): "
                if lost
                else "the Ray task failed: "
            )
            + reply["message"],
        )

    async def close(self) -> None:
        """Stop the driver process: in-flight tasks are cancelled, the driver disconnects."""
        if self._process.returncode is None:
            with contextlib.suppress(ConnectionError, RuntimeError):
                await self._send({"op": "close"})
                assert self._process.stdin is not None
                self._process.stdin.close()
            try:
                await asyncio.wait_for(self._process.wait(), CLOSE_TIMEOUT_S)
            except TimeoutError:
                self._process.kill()
                await self._process.wait()
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reader

    async def _send(self, message: Mapping[str, Any]) -> None:
        stdin = self._process.stdin
        assert stdin is not None
        async with self._writing:
            stdin.write((json.dumps(message) + "\n").encode())
            await stdin.drain()

    async def _next(self) -> dict[str, Any] | None:
        stdout = self._process.stdout
        assert stdout is not None
        line = await stdout.readline()
        if not line:
            return None
        reply: dict[str, Any] = json.loads(line)
        return reply

    async def _read(self) -> None:
        while (reply := await self._next()) is not None:
            if reply["op"] == "fatal":
                self._fail(
                    InfrastructureError(
                        f"the batch stopped: {reply['message']}",
                        hint="the finished runs are saved; when the cluster can run again, "
                        "finish the batch with --resume RUNSET (or resume it with "
                        "--executor local)",
                    )
                )
                return
            if reply["op"] == "judging":
                self.judging.set(int(reply["active"]))
                continue
            future = self._waiting.get(reply["id"])
            if future is not None and not future.done():
                future.set_result(reply)
        self._fail(
            InfrastructureError(
                f"the batch stopped: the Ray driver process exited{await self._exit_detail()}",
                hint="the finished runs are saved; finish the batch with --resume RUNSET",
            )
        )

    def _fail(self, error: TrajguardError) -> None:
        self._fatal = error
        for future in self._waiting.values():
            if not future.done():
                future.set_exception(error)

    async def _exit_detail(self) -> str:
        code = await self._process.wait()
        tail = ""
        with contextlib.suppress(OSError):
            tail = self._log_path.read_text(encoding="utf-8", errors="replace")[-_LOG_TAIL_CHARS:]
        return f" (code {code})" + (f"; its log ends with:\n{tail}" if tail.strip() else "")


def _refused(reply: Mapping[str, Any]) -> TrajguardError:
    kind, message, details = reply["kind"], reply["message"], reply.get("details", [])
    if kind == "import":
        return SuiteError(
            f"the suite's agents cannot run on the Ray workers: {message}",
            details=details,
            hint="callable agents, tools and predicates must be importable on every node "
            "(install their package there, or keep them next to the suite or in the working "
            "directory on a file system the nodes share); commands must exist on every node",
        )
    if kind == "model":
        return ModelUnavailable(
            f"a model does not answer on the Ray workers: {message}", details=details
        )
    hint = {
        "unreachable": "start a cluster (`ray start --head`) or pass --ray-address HOST:PORT",
        "infeasible": "start nodes offering these resources (`ray start --num-cpus … "
        "--resources …`), or lower --ray-cpus / --ray-resource",
    }.get(kind, "check the cluster (`ray status`); nothing was written")
    return InfrastructureError(message, details=details, hint=hint)


@contextlib.asynccontextmanager
async def open_ray(
    settings: RayExecutorSettings,
    plan: Plan,
    batch: Mapping[str, Any],
    *,
    steps: StartupSteps = NO_STEPS,
) -> AsyncIterator[RayExecutor]:
    """A Ray driver process for the batch, connected and checked; stopped on exit.

    Raises:
        MissingExtra: Ray is not installed.
        InfrastructureError: the cluster cannot be reached or cannot hold a run (exit 3).
        ModelUnavailable: a model does not answer (here, or on a node).
        SuiteError: an agent's import path or command does not resolve on a node.
    """
    if importlib.util.find_spec("ray") is None:
        raise MissingExtra("--executor ray needs Ray, which is not installed", hint=INSTALL_HINT)
    request = await _open_request(settings, plan, steps)
    log_dir = Path(tempfile.mkdtemp(prefix="trajguard-ray-"))
    log_path = log_dir / "driver.log"
    with log_path.open("wb") as log:
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "trajguard.runner._executors._ray_driver",
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=log,
            start_new_session=True,  # Ctrl-C reaches the batch, which then stops the driver
            limit=_READ_LIMIT,
        )
    executor = RayExecutor(process, settings, batch, log_path)
    try:
        cluster = settings.address or os.environ.get("RAY_ADDRESS") or "on this machine"
        with steps.step(f"starting the Ray driver and connecting to the cluster ({cluster})"):
            await executor.open(request)
        yield executor
    finally:
        await executor.close()
        shutil.rmtree(log_dir, ignore_errors=True)


async def _open_request(
    settings: RayExecutorSettings, plan: Plan, steps: StartupSteps
) -> dict[str, Any]:
    arms = {(arm.scenario, arm.variant): arm for _, arm in plan}.values()
    embedded = [(spec, arm) for spec, arm in plan if is_local_model(arm.model) and uses_model(arm)]
    where: str | None = None
    if embedded and settings.embedded_model == "driver":
        # starts this process's server
        await preflight(make_models(embedded, None), embedded, steps=steps)
        server = running_local_server()
        assert server is not None
        where = server.base_url
    elif embedded:
        where = "node"
    # Workers import suite modules as the command line does: from the working directory and
    # the suite's directory (on the nodes' file system), then their own path.
    directories = dict.fromkeys([str(Path.cwd()), *(str(Path(a.base_dir).resolve()) for a in arms)])
    return {
        "address": settings.address,
        "pythonpath": os.pathsep.join([*directories, "${PYTHONPATH}"]),
        "task": {
            "num_cpus": settings.num_cpus,
            "resources": dict(settings.resources),
            "max_retries": settings.max_retries,
        },
        "embedded_model": where,
        "arms": [arm.model_dump_json(by_alias=True) for arm in arms],
    }
