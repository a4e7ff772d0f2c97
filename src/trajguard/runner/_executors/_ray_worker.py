"""What Ray runs on the cluster's workers: a run, a node's checks, a node's embedded model.

Imported only by the Ray driver process and, by Ray, on the workers: trajguard's own process
never imports Ray (``pyproject.toml`` holds the import-linter contract). The functions and the
class are wrapped with ``ray.remote`` by the driver; Ray finds them on a worker by their import
path, so trajguard must be installed on every node.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import ray

from trajguard.local_model import LocalModelServer
from trajguard.runner._executors import _remote

__all__ = ["JudgingCounter", "NodeModelServer", "check_imports", "check_models", "run_job"]


def _node_id() -> str:
    return str(ray.get_runtime_context().get_node_id())


def run_job(job: str, urls: Mapping[str, str], judging: Any = None) -> str:
    """One run (a Ray task): the job's JSON in, its row's JSON out; its judgements in flight
    told to ``judging`` (a :class:`JudgingCounter` actor's handle), without waiting."""

    def tell(run_id: str, active: int) -> None:
        judging.change.remote(run_id, active)

    return _remote.run_job(job, urls, _node_id(), tell if judging is not None else None)


class JudgingCounter:
    """The judgements in flight on the cluster, by run (a Ray actor of the driver's): the
    workers tell it each run's count, the driver reads the total for the progress line and
    forgets a run when its task ends (a worker that died mid-judgement told no zero)."""

    def __init__(self) -> None:
        self._active: dict[str, int] = {}

    def change(self, run_id: str, active: int) -> None:
        if active:
            self._active[run_id] = active
        else:
            self._active.pop(run_id, None)

    def done(self, run_id: str) -> None:
        self._active.pop(run_id, None)

    def total(self) -> int:
        return sum(self._active.values())


def check_imports(arms: Sequence[str]) -> list[str]:
    """A node's import paths and commands, checked before a batch (a task pinned to it)."""
    return _remote.import_problems(arms)


def check_models(arms: Sequence[str], urls: Mapping[str, str]) -> list[str]:
    """A node's models, called once before a batch (a task pinned to it)."""
    return _remote.model_problems(arms, urls, _node_id())


class NodeModelServer:
    """The embedded model of one node (a Ray actor pinned to the node): one llama.cpp server
    on the node's 127.0.0.1, shared by every run there, stopped with the actor (the server dies
    with its parent process even when that is killed)."""

    def __init__(self) -> None:
        self._server = LocalModelServer()

    def start(self) -> str:
        """Start the server (once) and return its OpenAI-compatible base URL."""
        return self._server.start().base_url
