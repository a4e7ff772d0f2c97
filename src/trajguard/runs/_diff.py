"""``trajguard diff A B``: two runs through the frozen core's normalisation and diff."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trajguard._text import printable
from trajguard.errors import UsageError
from trajguard.runs._reference import read_run
from trajguard.runs._render import fold
from trajguard.store import stored_trajectory

if TYPE_CHECKING:  # the ATIF model and the core load when a diff runs, not with the listing
    from trajguard.core import Alignment, Delta

__all__ = ["RunDiff", "diff_runs", "load_side"]


@dataclass(frozen=True, kw_only=True)
class RunDiff:
    """Two runs compared: shape deltas (structure first), the steps aligned, the text diff."""

    first: str
    second: str
    deltas: tuple[Delta, ...]
    alignment: Alignment
    """The steps of A and B paired by what they did (:func:`trajguard.core.align_steps`)."""
    aligned: tuple[str, ...]
    """The alignment as lines (:func:`trajguard.core.aligned_steps`: two spaces for a step
    both took, ``-`` only in A, ``+`` only in B, ``~`` both took differently with each
    side's version; the first divergence marked)."""
    text: str
    """The unified diff of the two normalised trajectories (empty when they are the same)."""

    @property
    def same(self) -> bool:
        """No difference after normalisation."""
        return not self.deltas and not self.text


def load_side(spec: str) -> dict[str, Any]:
    """A normalised trajectory from an ATIF file or ``RUNSET:RUN``.

    Raises:
        UsageError: neither an existing file nor ``RUNSET:RUN``, or the run stores no
            trajectory.
        InvalidTrajectory: the file is not valid ATIF.
        RunNotFound: no such run in the run set.
    """
    from trajguard.atif import load_trajectory
    from trajguard.core import normalize

    path = Path(spec)
    if path.is_file():
        return dict(normalize(load_trajectory(path)))
    for index, char in enumerate(spec):
        if char != ":" or not Path(spec[:index]).is_dir():
            continue
        runset, reference = Path(spec[:index]), spec[index + 1 :]
        row = read_run(runset, reference)
        if not row.get("trajectory"):
            raise UsageError(
                f"run {printable(row['run_id'])!r} has no stored trajectory (a harness error, "
                "or an imported run): there is nothing to diff",
                file=runset,
            )
        stored = stored_trajectory(row["trajectory"], run_id=row["run_id"], runset=runset)
        return dict(normalize(stored))
    raise UsageError(
        f"{printable(spec)!r} is neither an ATIF file nor RUNSET:RUN",
        hint="e.g. trajguard diff runs/night-1:capital/base/3 runs/night-2:capital/base/3",
    )


def diff_runs(first: str, second: str, *, max_lines: int = 120) -> RunDiff:
    """Compare two runs (ATIF files or ``RUNSET:RUN``) as the frozen core does: normalise
    both (ids, timestamps and costs removed), shape deltas first, then the text diff.

    Raises:
        UsageError, InvalidTrajectory, RunNotFound: as :func:`load_side`.
    """
    from trajguard.core import align_steps, aligned_steps, diff, render_diff

    if max_lines < 1:
        raise UsageError(f"--max-lines must be at least 1, got {max_lines}")
    a, b = load_side(first), load_side(second)
    text = render_diff(a, b, golden_name=first, actual_name=second, max_lines=max_lines)
    text = "\n".join(fold(text, lines=text.count("\n") + 1))  # a line of a huge result, cut
    return RunDiff(
        first=first,
        second=second,
        deltas=tuple(diff(a, b)),
        alignment=align_steps(a, b),
        aligned=tuple(printable(line) for line in aligned_steps(a, b, max_lines=max_lines)),
        text=text,
    )
