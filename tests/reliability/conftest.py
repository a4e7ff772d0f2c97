"""The reliability harness's fixtures: the fault-injecting provider stub."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

_spec = importlib.util.spec_from_file_location(
    "trajguard_provider_stub", Path(__file__).with_name("provider_stub.py")
)
assert _spec is not None and _spec.loader is not None
provider_stub: Any = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = provider_stub  # dataclasses look their module up there
_spec.loader.exec_module(provider_stub)


@pytest.fixture
def provider() -> Iterator[Any]:
    """A fault-injecting OpenAI-compatible server on 127.0.0.1 (``provider_stub.py``)."""
    with provider_stub.faulty_provider() as state:
        yield state


@pytest.fixture
def fault() -> Any:
    """``fault(kind, **details)``: one scripted answer of the stub."""
    return provider_stub.Fault
