"""What Ray runs on the cluster's workers: a run, a node's checks, a node's embedded model.

Imported only by the Ray driver process and, by Ray, on the workers: trajguard's own process
never imports Ray (``pyproject.toml`` holds the import-linter contract). The functions and the
class are wrapped with ``ray.remote`` by the driver; Ray finds them on a worker by their import
path, so trajguard must be installed on every node.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import ray

from trajguard.local_model import LocalModelServer
from trajguard.run._executors import _remote

__all__ = ["NodeModelServer", "check_imports", "check_models", "run_job"]


def _node_id() -> str:
    return str(ray.get_runtime_context().get_node_id())


def run_job(job: str, urls: Mapping[str, str]) -> str:
    """One run (a Ray task): the job's JSON in, its row's JSON out."""
    return _remote.run_job(job, urls, _node_id())


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
