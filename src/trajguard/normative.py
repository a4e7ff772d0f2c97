"""The ATIF normative rules N1 to N9 that the structural schema cannot express.

:func:`check_normative` returns every violation with the JSON path where it occurs; an empty list
means the trajectory is valid. The rules, from the ATIF RFC:

N1 step ids sequential from 1 · N2 every observation source_call_id joins a tool_call_id of the
same step · N3 embedded subagent trajectory_ids present and unique per array · N4 before a
context-replacing compaction boundary every step has is_copied_context = true · N5
llm_call_count = 0 on an agent step implies no metrics and no reasoning_content · N6 timestamps
parse as ISO 8601 · N7 message present on every step · N8 final_metrics token totals equal the sum
of step metrics unless notes say otherwise · N9 every subagent ref's trajectory_id resolves to an
embedded trajectory of an ancestor.

ATIF does not fix how a compaction boundary is marked; trajguard recognises a system step whose
``extra`` carries ``"context_compaction": "replace"`` (or ``true``).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime

from trajguard.atif import Step, Trajectory

__all__ = ["Violation", "check_normative"]


@dataclass(frozen=True)
class Violation:
    """One broken normative rule."""

    rule: str
    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.rule} {self.path}: {self.message}"


def check_normative(trajectory: Trajectory) -> list[Violation]:
    """Every N1 to N9 violation in the trajectory and its embedded subagents."""
    return list(_check(trajectory, "$", scopes=()))


def _check(traj: Trajectory, path: str, scopes: tuple[frozenset[str], ...]) -> Iterator[Violation]:
    children = traj.subagent_trajectories or []
    own_ids = frozenset(c.trajectory_id for c in children if c.trajectory_id is not None)
    visible = (*scopes, own_ids)
    yield from _step_ids(traj, path)
    yield from _compaction(traj, path)
    for index, step in enumerate(traj.steps):
        step_path = f"{path}.steps[{index}]"
        yield from _joins(step, step_path)
        yield from _dispatch_step(step, step_path)
        yield from _timestamp(step, step_path)
        if step.message is None:
            yield Violation(
                "N7", f"{step_path}.message", "every step needs a message ('' is allowed)"
            )
        yield from _refs_resolve(step, step_path, visible)
    yield from _totals(traj, path)
    yield from _subagent_ids(children, path)
    for index, child in enumerate(children):
        yield from _check(child, f"{path}.subagent_trajectories[{index}]", visible)


def _step_ids(traj: Trajectory, path: str) -> Iterator[Violation]:
    for index, step in enumerate(traj.steps):
        if step.step_id != index + 1:
            yield Violation(
                "N1",
                f"{path}.steps[{index}].step_id",
                f"expected step_id {index + 1} (sequential from 1), found {step.step_id}",
            )


def _joins(step: Step, path: str) -> Iterator[Violation]:
    if step.observation is None:
        return
    call_ids = {call.tool_call_id for call in step.tool_calls or ()}
    for index, result in enumerate(step.observation.results):
        if result.source_call_id is not None and result.source_call_id not in call_ids:
            yield Violation(
                "N2",
                f"{path}.observation.results[{index}].source_call_id",
                f"{result.source_call_id!r} joins no tool_call_id of this step",
            )


def _subagent_ids(children: list[Trajectory], path: str) -> Iterator[Violation]:
    seen: set[str] = set()
    for index, child in enumerate(children):
        where = f"{path}.subagent_trajectories[{index}].trajectory_id"
        if child.trajectory_id is None:
            yield Violation("N3", where, "an embedded subagent trajectory needs a trajectory_id")
        elif child.trajectory_id in seen:
            yield Violation("N3", where, f"duplicate trajectory_id {child.trajectory_id!r}")
        else:
            seen.add(child.trajectory_id)


def _is_boundary(step: Step) -> bool:
    marker = (step.extra or {}).get("context_compaction")
    return step.source == "system" and marker in ("replace", True)


def _compaction(traj: Trajectory, path: str) -> Iterator[Violation]:
    last_boundary = max((i for i, s in enumerate(traj.steps) if _is_boundary(s)), default=None)
    if last_boundary is None:
        return
    for index, step in enumerate(traj.steps[:last_boundary]):
        if step.is_copied_context is not True:
            yield Violation(
                "N4",
                f"{path}.steps[{index}].is_copied_context",
                f"steps before the compaction boundary at step {last_boundary + 1} "
                "must have is_copied_context = true",
            )


def _dispatch_step(step: Step, path: str) -> Iterator[Violation]:
    if step.source != "agent" or step.llm_call_count != 0:
        return
    for field in ("metrics", "reasoning_content"):
        if getattr(step, field) is not None:
            yield Violation(
                "N5", f"{path}.{field}", f"llm_call_count = 0 (no model call) forbids {field}"
            )


def _timestamp(step: Step, path: str) -> Iterator[Violation]:
    if step.timestamp is None:
        return
    try:
        datetime.fromisoformat(step.timestamp.replace("Z", "+00:00"))
    except ValueError:
        yield Violation("N6", f"{path}.timestamp", f"{step.timestamp!r} is not ISO 8601")


def _refs_resolve(step: Step, path: str, scopes: tuple[frozenset[str], ...]) -> Iterator[Violation]:
    if step.observation is None:
        return
    for r_index, result in enumerate(step.observation.results):
        for f_index, ref in enumerate(result.subagent_trajectory_ref or ()):
            if ref.trajectory_id is None or any(ref.trajectory_id in ids for ids in scopes):
                continue
            yield Violation(
                "N9",
                f"{path}.observation.results[{r_index}].subagent_trajectory_ref[{f_index}]"
                ".trajectory_id",
                f"{ref.trajectory_id!r} resolves to no embedded subagent trajectory",
            )


_TOTALS = (
    ("total_prompt_tokens", "prompt_tokens"),
    ("total_completion_tokens", "completion_tokens"),
    ("total_cached_tokens", "cached_tokens"),
)


def _totals(traj: Trajectory, path: str) -> Iterator[Violation]:
    if traj.final_metrics is None or (traj.notes and "total" in traj.notes.lower()):
        return
    for total_field, step_field in _TOTALS:
        total = getattr(traj.final_metrics, total_field)
        if total is None:
            continue
        summed = sum(getattr(s.metrics, step_field) or 0 for s in traj.steps if s.metrics)
        if total != summed:
            yield Violation(
                "N8",
                f"{path}.final_metrics.{total_field}",
                f"{total} differs from the sum of step metrics ({summed})",
            )
