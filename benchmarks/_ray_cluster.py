"""A real multi-node Ray cluster on this machine, for the Ray executor's tests and benchmark.

Every node is ``ray start --block``: its own raylet, object store and worker processes, joined
to the head with ``ray start --address``. Nodes get their own loopback addresses (head
127.B.C.2, workers 127.B.C.3, .4, …): Ray rewrites 127.0.0.1 to the machine's network address
for a node that joins a cluster, so traffic stays on this machine only this way. Each cluster
holds its block 127.B.C.0/24 (B ≥ 1) exclusively, by an ``flock`` on a file of its own in the
temporary directory, for as long as it runs: clusters of pytest-xdist workers, of a benchmark
and of other checkouts' sessions on the same machine never share a node address (two nodes of
different clusters at one address confuse both). The lock dies with its process. Nodes are
small (no dashboard, an 80 MB object store, 1 CPU per worker node, none on the head, which
therefore runs no run) and children of this process that die with it
(``PR_SET_PDEATHSIG``); :meth:`LocalRayCluster.stop` sends each ``ray start`` process SIGTERM,
which stops its node's processes. Nothing is stopped by name (no ``ray stop``): only the
processes started here.

The tests load this file by path (pytest imports test modules in importlib mode).
"""

from __future__ import annotations

import ctypes
import fcntl
import json
import os
import select
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

READY = b"Ray runtime started"
START_TIMEOUT_S = 180.0
STOP_TIMEOUT_S = 60.0
OBJECT_STORE_BYTES = 80_000_000
RAY = str(Path(sys.executable).with_name("ray"))
BLOCK_SECOND_OCTETS = 8  # blocks 127.1-8.*.0/24


def _die_with_parent() -> None:
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def _claim_block() -> tuple[int, int]:
    """A loopback block 127.B.C.0/24 no other cluster on this machine holds, and the open
    file whose ``flock`` holds it (close it to release the block). The search starts at a
    block derived from this process's id, so concurrent sessions rarely contend."""
    locks = Path(tempfile.gettempdir()) / "trajguard-ray-blocks"
    locks.mkdir(exist_ok=True)
    blocks = BLOCK_SECOND_OCTETS * 256
    first = os.getpid() % blocks
    for offset in range(blocks):
        index = (first + offset) % blocks
        block = (1 + index // 256, index % 256)
        fd = os.open(locks / f"127.{block[0]}.{block[1]}.lock", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue
        return block, fd
    raise RuntimeError(f"every loopback block for a Ray cluster is held ({locks})")


def _free_port(host: str) -> int:
    with socket.socket() as probe:
        probe.bind((host, 0))
        return int(probe.getsockname()[1])


@dataclass
class Node:
    """One ``ray start --block`` process: a node of the cluster."""

    ip: str
    process: subprocess.Popen[bytes]
    output: list[bytes] = field(default_factory=list)
    drain: threading.Thread | None = None

    def raylet_pid(self) -> int:
        """The node's raylet (a child of its ``ray start`` process)."""
        children = Path(f"/proc/{self.process.pid}/task/{self.process.pid}/children")
        for pid in children.read_text().split():
            try:
                if Path(f"/proc/{pid}/comm").read_text().strip() == "raylet":
                    return int(pid)
            except OSError:
                continue
        raise LookupError(f"node {self.ip} has no raylet")

    @property
    def alive(self) -> bool:
        return self.process.poll() is None

    def stop(self) -> None:
        """SIGTERM (its ``ray start`` stops the node's processes), SIGKILL if that hangs."""
        if self.alive:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.drain is not None:
            self.drain.join(STOP_TIMEOUT_S)  # its output ends when its processes have
        if self.process.stdout is not None:
            self.process.stdout.close()


class LocalRayCluster:
    """A head node and worker nodes on this machine (see the module doc)."""

    def __init__(self, temp_dir: Path) -> None:
        self.temp_dir = Path(temp_dir)
        self.head: Node | None = None
        self.workers: list[Node] = []
        self._block: tuple[int, int] | None = None
        self._block_lock: int | None = None
        self._next_ip = 2
        self.port = 0
        self.started_s: dict[str, float] = {}

    @property
    def address(self) -> str:
        assert self.head is not None
        return f"{self.head.ip}:{self.port}"

    def _ip(self) -> str:
        if self._block is None:
            self._block, self._block_lock = _claim_block()
        ip = f"127.{self._block[0]}.{self._block[1]}.{self._next_ip}"
        self._next_ip += 1
        return ip

    def start(self, workers: int = 2) -> LocalRayCluster:
        ip = self._ip()
        self.port = _free_port(ip)
        clock = time.monotonic()
        self.head = self._start(
            ip,
            "--head",
            "--port",
            str(self.port),
            "--num-cpus",
            "0",
            "--include-dashboard=false",
            "--dashboard-port",  # the head still runs a minimal dashboard process
            str(_free_port("127.0.0.1")),
            "--temp-dir",
            str(self.temp_dir),
        )
        self.started_s["head"] = time.monotonic() - clock
        for _ in range(workers):
            self.add_node()
        return self

    def add_node(self, *, num_cpus: int = 1, resources: dict[str, float] | None = None) -> Node:
        """Start a worker node (one after the other: Ray's joins race otherwise)."""
        clock = time.monotonic()
        extra = ["--resources", json.dumps(resources)] if resources else []
        node = self._start(
            self._ip(), "--address", self.address, "--num-cpus", str(num_cpus), *extra
        )
        self.workers.append(node)
        self.started_s[node.ip] = time.monotonic() - clock
        return node

    def _start(self, ip: str, *args: str) -> Node:
        env = {key: value for key, value in os.environ.items() if key != "RAY_ADDRESS"}
        argv = [RAY, "start", "--block", "--node-ip-address", ip, *args]
        argv += ["--object-store-memory", str(OBJECT_STORE_BYTES), "--disable-usage-stats"]
        process = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            # RAY_AUTH_MODE set: a head would turn token auth on by itself when the user's
            # ~/.ray/auth_token exists (any local ray.init() writes one), and the workers not.
            env={**env, "RAY_USAGE_STATS_ENABLED": "0", "RAY_AUTH_MODE": "disabled"},
            preexec_fn=_die_with_parent,  # a prctl: no Python state in the child
        )
        node = Node(ip=ip, process=process)
        assert process.stdout is not None
        poller = select.poll()
        poller.register(process.stdout, select.POLLIN)
        deadline = time.monotonic() + START_TIMEOUT_S
        while READY not in b"".join(node.output):
            left_ms = (deadline - time.monotonic()) * 1000
            if left_ms <= 0 or not poller.poll(left_ms):
                node.stop()
                raise RuntimeError(
                    f"ray node {ip} did not start: {b''.join(node.output)[-3000:]!r}"
                )
            chunk = os.read(process.stdout.fileno(), 65536)
            if not chunk:
                raise RuntimeError(f"ray node {ip} exited: {b''.join(node.output)[-3000:]!r}")
            node.output.append(chunk)
        node.drain = threading.Thread(target=self._drain, args=(node,), daemon=True)
        node.drain.start()
        return node

    @staticmethod
    def _drain(node: Node) -> None:
        assert node.process.stdout is not None
        while chunk := os.read(node.process.stdout.fileno(), 65536):
            node.output.append(chunk)

    def stop(self) -> None:
        """Stop the worker nodes, then the head (each by its own process)."""
        for node in reversed(self.workers):
            node.stop()
        if self.head is not None:
            self.head.stop()
        if self._block_lock is not None:
            os.close(self._block_lock)  # releases the block
            self._block, self._block_lock = None, None
