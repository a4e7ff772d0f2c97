"""The ATIF rules the structural schema cannot express, each with its JSON path and severity.

A rule is an **error** where the ATIF spec says MUST (or REQUIRED) and Harbor's reference
validator refuses the document; it is a **warning** where the spec describes the field without a
MUST, or the convention is trajguard's own. :func:`check_normative` returns both; an empty list
means the trajectory follows every rule.

Errors:
N1 step ids sequential from 1 (only the first break is reported: later ids are shifted by it) ·
N2 every observation source_call_id joins a tool_call_id of the same step · N3 embedded subagent
trajectory_ids present and unique per array · N5 llm_call_count = 0 on an agent step implies no
metrics and no reasoning_content · N6 timestamps parse as ISO 8601 · N7 a message on every step ·
N10 at least one step · N11 model_name, reasoning_effort, reasoning_content, tool_calls and
metrics only on agent steps.

Warnings:
N4 before a context-replacing compaction boundary every step has is_copied_context = true (ATIF
does not fix how a boundary is marked; trajguard recognises a system step whose ``extra`` carries
``"context_compaction": "replace"`` or ``true``) · N8 final_metrics totals equal the sums of step
metrics and total_steps the number of steps, unless the notes mention totals (producers put
subagent totals, a continuation's whole-run totals or a call that became no step there) ·
N9 a ref that names only a trajectory_id resolves to an embedded trajectory of an ancestor (a ref
that also carries a trajectory_path resolves through the file: consumers may choose either).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from trajguard.atif._models import Step, Trajectory

__all__ = ["AGENT_ONLY_FIELDS", "Severity", "Violation", "check_normative"]

Severity = Literal["error", "warning"]
AGENT_ONLY_FIELDS = ("model_name", "reasoning_effort", "reasoning_content", "tool_calls", "metrics")


@dataclass(frozen=True, kw_only=True)
class Violation:
    """One broken rule.

    Attributes:
        rule: ``N1`` to ``N11`` (see :mod:`trajguard.atif`), ``unknown-field`` or ``media-file``.
        path: the JSON path where it occurs.
        message: what is wrong, as one sentence.
        severity: ``error`` (the document is not valid ATIF) or ``warning``.
    """

    rule: str
    path: str
    message: str
    severity: Severity = "error"

    def __str__(self) -> str:
        return f"{self.severity} {self.rule} {self.path}: {self.message}"


def check_normative(trajectory: Trajectory) -> list[Violation]:
    """Every rule violation (errors and warnings) in the trajectory and its embedded subagents."""
    return list(_check(trajectory, "$", scopes=()))


def _check(traj: Trajectory, path: str, scopes: tuple[frozenset[str], ...]) -> Iterator[Violation]:
    children = traj.subagent_trajectories or []
    own_ids = frozenset(c.trajectory_id for c in children if c.trajectory_id is not None)
    visible = (*scopes, own_ids)
    if not traj.steps:
        yield Violation(rule="N10", path=f"{path}.steps", message="a trajectory needs a step")
    yield from _step_ids(traj, path)
    yield from _compaction(traj, path)
    for index, step in enumerate(traj.steps):
        step_path = f"{path}.steps[{index}]"
        yield from _agent_only(step, step_path)
        yield from _joins(step, step_path)
        yield from _dispatch_step(step, step_path)
        yield from _timestamp(step, step_path)
        if step.message is None:
            yield Violation(
                rule="N7",
                path=f"{step_path}.message",
                message="every step needs a message ('' is allowed)",
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
                rule="N1",
                path=f"{path}.steps[{index}].step_id",
                message=f"expected step_id {index + 1} (sequential from 1), found {step.step_id}"
                " (later step ids are not checked: renumber from here)",
            )
            return


def _agent_only(step: Step, path: str) -> Iterator[Violation]:
    if step.source == "agent":
        return
    for field in AGENT_ONLY_FIELDS:
        if getattr(step, field) is not None:
            yield Violation(
                rule="N11",
                path=f"{path}.{field}",
                message=f"{field} belongs on agent steps only, this step's source is "
                f"{step.source!r}",
            )


def _joins(step: Step, path: str) -> Iterator[Violation]:
    if step.observation is None:
        return
    call_ids = {call.tool_call_id for call in step.tool_calls or ()}
    for index, result in enumerate(step.observation.results):
        if result.source_call_id is not None and result.source_call_id not in call_ids:
            yield Violation(
                rule="N2",
                path=f"{path}.observation.results[{index}].source_call_id",
                message=f"{result.source_call_id!r} joins no tool_call_id of this step",
            )


def _subagent_ids(children: list[Trajectory], path: str) -> Iterator[Violation]:
    seen: set[str] = set()
    for index, child in enumerate(children):
        where = f"{path}.subagent_trajectories[{index}].trajectory_id"
        if child.trajectory_id is None:
            yield Violation(
                rule="N3",
                path=where,
                message="an embedded subagent trajectory needs a trajectory_id",
            )
        elif child.trajectory_id in seen:
            yield Violation(
                rule="N3", path=where, message=f"duplicate trajectory_id {child.trajectory_id!r}"
            )
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
                rule="N4",
                path=f"{path}.steps[{index}].is_copied_context",
                message=f"steps before the compaction boundary at step {last_boundary + 1} "
                "should have is_copied_context = true",
                severity="warning",
            )


def _dispatch_step(step: Step, path: str) -> Iterator[Violation]:
    if step.source != "agent" or step.llm_call_count != 0:
        return
    for field in ("metrics", "reasoning_content"):
        if getattr(step, field) is not None:
            yield Violation(
                rule="N5",
                path=f"{path}.{field}",
                message=f"llm_call_count = 0 (no model call) forbids {field}",
            )


def _timestamp(step: Step, path: str) -> Iterator[Violation]:
    if step.timestamp is None:
        return
    try:
        datetime.fromisoformat(step.timestamp.replace("Z", "+00:00"))
    except ValueError:
        yield Violation(
            rule="N6", path=f"{path}.timestamp", message=f"{step.timestamp!r} is not ISO 8601"
        )


def _refs_resolve(step: Step, path: str, scopes: tuple[frozenset[str], ...]) -> Iterator[Violation]:
    if step.observation is None:
        return
    for r_index, result in enumerate(step.observation.results):
        for f_index, ref in enumerate(result.subagent_trajectory_ref or ()):
            if ref.trajectory_id is None or ref.trajectory_path is not None:
                continue
            if any(ref.trajectory_id in ids for ids in scopes):
                continue
            yield Violation(
                rule="N9",
                path=f"{path}.observation.results[{r_index}].subagent_trajectory_ref[{f_index}]"
                ".trajectory_id",
                message=f"{ref.trajectory_id!r} resolves to no embedded subagent trajectory "
                "(embed it, or add the trajectory_path of its file)",
                severity="warning",
            )


_TOTALS = (
    ("total_prompt_tokens", "prompt_tokens"),
    ("total_completion_tokens", "completion_tokens"),
    ("total_cached_tokens", "cached_tokens"),
)


def _totals(traj: Trajectory, path: str) -> Iterator[Violation]:
    final = traj.final_metrics
    if final is None or (traj.notes and "total" in traj.notes.lower()):
        return
    for total_field, step_field in _TOTALS:
        total = getattr(final, total_field)
        if total is None:
            continue
        summed = sum(getattr(s.metrics, step_field) or 0 for s in traj.steps if s.metrics)
        if total != summed:
            yield Violation(
                rule="N8",
                path=f"{path}.final_metrics.{total_field}",
                message=f"{total} differs from the sum of step metrics ({summed}); say why in "
                "the trajectory's notes",
                severity="warning",
            )
    if final.total_steps is not None and final.total_steps != len(traj.steps):
        yield Violation(
            rule="N8",
            path=f"{path}.final_metrics.total_steps",
            message=f"{final.total_steps} differs from the number of steps ({len(traj.steps)}); "
            "say why in the trajectory's notes",
            severity="warning",
        )
