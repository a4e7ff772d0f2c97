"""A run set read whole: where it is, its manifest and its runs."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from trajguard.store._manifest import read_manifest
from trajguard.store._runset import read_runs

__all__ = ["RunSet", "load_runset"]


@dataclass(frozen=True, kw_only=True)
class RunSet:
    """One run set: its path (as given), manifest and runs (one row per run)."""

    path: str
    manifest: Mapping[str, Any]
    runs: pd.DataFrame = field(repr=False)

    @property
    def suite(self) -> str:
        """The suite the run set belongs to (``"suite"`` when the manifest does not say)."""
        return str(self.manifest.get("suite") or "suite")


def load_runset(path: Path) -> RunSet:
    """Read a run set's manifest and runs.

    Raises:
        StoreError: the directory is not a run set, or a file in it cannot be read.
    """
    return RunSet(path=str(path), manifest=read_manifest(path), runs=read_runs(path))
