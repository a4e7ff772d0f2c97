"""A real multi-node Ray cluster on this machine for the Ray executor's tests: a head and two
worker nodes, each ``ray start`` with its own raylet (``benchmarks/_ray_cluster.py``), started
once per session and stopped at its end; tests that kill a node add their own."""

from __future__ import annotations

import importlib.util
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

_HELPER = Path(__file__).resolve().parents[2] / "benchmarks" / "_ray_cluster.py"


def _load_helper() -> Any:
    spec = importlib.util.spec_from_file_location("trajguard_test_ray_cluster", _HELPER)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def ray_cluster() -> Iterator[Any]:
    """A ``LocalRayCluster``: head (no CPUs) plus two 1-CPU worker nodes, on 127.B.C.2-4, a
    loopback block this cluster holds alone (pytest-xdist workers each start their own).

    Its temporary directory is a short one of its own, not under pytest's base directory:
    Ray puts Unix sockets in it, whose paths may not exceed 107 bytes, and a pytest-xdist
    worker's directory (``…/pytest-N/popen-gwK/ray0/session_…/sockets/plasma_store.1``) is
    longer than that."""
    temp_dir = Path(tempfile.mkdtemp(prefix="tg-ray-"))
    cluster = _load_helper().LocalRayCluster(temp_dir)
    try:
        yield cluster.start(workers=2)
    finally:
        cluster.stop()
        shutil.rmtree(temp_dir, ignore_errors=True)


@pytest.fixture
def spare_nodes(ray_cluster: Any) -> Iterator[list[Any]]:
    """Worker nodes a test adds to the session's cluster (to kill them); stopped after it and
    taken off the cluster's list, which then holds the session's two worker nodes again."""
    nodes: list[Any] = []
    yield nodes
    for node in nodes:
        node.stop()
        ray_cluster.workers.remove(node)
