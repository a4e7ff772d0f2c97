"""The frozen-mode core: pure functions over trajectories, no I/O and no globals."""

from trajguard.core.diff import Delta, diff, render_diff
from trajguard.core.normalize import (
    DropKey,
    Normalized,
    Replace,
    Scrubber,
    canonical_json,
    normalize,
)
from trajguard.core.shape import Shape, content_hash, shape

__all__ = [
    "Delta",
    "DropKey",
    "Normalized",
    "Replace",
    "Scrubber",
    "Shape",
    "canonical_json",
    "content_hash",
    "diff",
    "normalize",
    "render_diff",
    "shape",
]
