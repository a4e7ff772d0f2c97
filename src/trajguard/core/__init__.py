"""The frozen-mode core: pure functions over trajectories, no I/O and no globals."""

from trajguard.core._alignment import (
    CELL_LIMIT,
    COSTS,
    AlignedStep,
    Alignment,
    align_codes,
    align_steps,
    step_codes,
    steps_of,
)
from trajguard.core._calls import was_executed
from trajguard.core.align import FIRST_DIVERGENCE, aligned_steps, explain_difference, step_line
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
    "CELL_LIMIT",
    "COSTS",
    "FIRST_DIVERGENCE",
    "AlignedStep",
    "Alignment",
    "Delta",
    "DropKey",
    "Normalized",
    "Replace",
    "Scrubber",
    "Shape",
    "align_codes",
    "align_steps",
    "aligned_steps",
    "canonical_json",
    "content_hash",
    "diff",
    "explain_difference",
    "normalize",
    "render_diff",
    "shape",
    "step_codes",
    "step_line",
    "steps_of",
    "was_executed",
]
