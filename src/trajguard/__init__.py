"""trajguard: did your agent's behaviour change, not just its answer?

The public API is importable from here. Names load lazily so that ``import trajguard`` (which
pytest does for the plugin in every session) costs nothing until a name is used. The main job
is here with flat keyword arguments: :func:`nightly`, :func:`ab`, :func:`compare` and
:func:`run` (docs/how-to/python.md).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

_EXPORTS = {
    "Trajectory": "trajguard.atif",
    "load_trajectory": "trajguard.atif",
    "dump_trajectory": "trajguard.atif",
    "trajectory_to_dict": "trajguard.atif",
    "unknown_fields": "trajguard.atif",
    "check_normative": "trajguard.atif",
    "Violation": "trajguard.atif",
    "validate": "trajguard.atif",
    "ValidationReport": "trajguard.atif",
    "normalize": "trajguard.core.normalize",
    "canonical_json": "trajguard.core.normalize",
    "DropKey": "trajguard.core.normalize",
    "Replace": "trajguard.core.normalize",
    "shape": "trajguard.core.shape",
    "Shape": "trajguard.core.shape",
    "diff": "trajguard.core.diff",
    "render_diff": "trajguard.core.diff",
    "Delta": "trajguard.core.diff",
    "TrajguardError": "trajguard.errors",
    "nightly": "trajguard._main_job",
    "ab": "trajguard._main_job",
    "compare": "trajguard._main_job",
    "run": "trajguard._main_job",
}

__all__ = [
    "Delta",
    "DropKey",
    "Replace",
    "Shape",
    "Trajectory",
    "TrajguardError",
    "ValidationReport",
    "Violation",
    "__version__",
    "ab",
    "canonical_json",
    "check_normative",
    "compare",
    "diff",
    "dump_trajectory",
    "load_trajectory",
    "nightly",
    "normalize",
    "render_diff",
    "run",
    "shape",
    "trajectory_to_dict",
    "unknown_fields",
    "validate",
]

if TYPE_CHECKING:
    from trajguard._main_job import ab, compare, nightly, run
    from trajguard.atif import (
        Trajectory,
        ValidationReport,
        Violation,
        check_normative,
        dump_trajectory,
        load_trajectory,
        trajectory_to_dict,
        unknown_fields,
        validate,
    )
    from trajguard.core.diff import Delta, diff, render_diff
    from trajguard.core.normalize import DropKey, Replace, canonical_json, normalize
    from trajguard.core.shape import Shape, shape
    from trajguard.errors import TrajguardError


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'trajguard' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
