"""What an importer reads out of another tool's eval log: runs, and what the log lacks."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from trajguard.atif import Trajectory
from trajguard.outcome import Status

__all__ = ["ImportOptions", "ImportedBatch", "ImportedCriterion", "ImportedRun"]


DEFAULT_VARIANT = "base"
"""The variant of an imported run when the import names none (a suite's base variant)."""


@dataclass(frozen=True, kw_only=True)
class ImportedCriterion:
    """One score or assertion of a run, as the source judged it.

    Attributes:
        name: the scorer's or assertion's name (the ``criteria`` column's label).
        held: whether it held by the importer's pass rule (``None``: the source did not decide).
        value: the source's own value, as text (``"C"``, ``"0.75"``, ``"true"``).
        reason: why, as the source says (its explanation or failure reason; may be empty).
    """

    name: str
    held: bool | None
    value: str = ""
    reason: str = ""


@dataclass(frozen=True, kw_only=True)
class ImportedRun:
    """One run of an imported log: one sample and epoch, test case and repeat, or trial.

    Attributes:
        scenario: the scenario it is a run of (task and sample id, test case, task).
        run_index: its index within the scenario (epoch, repeat, attempt), from 0.
        variant: its variant (``base`` unless the import names one).
        model: the model it used, as the source names it (``unknown`` when it does not).
        status: how it ended (:data:`trajguard.outcome.Status`).
        passed: whether it passed, by the stated pass rule (``None``: not judged).
        crashed: it raised or hit a limit (``None``: unknown or a harness error).
        criteria: its scores or assertions, in the source's order.
        trajectory: what happened, as ATIF (``None`` when the source keeps no messages).
        prompt_tokens: tokens used, when the source has usage but no trajectory carries it.
        completion_tokens: likewise.
        cost_usd: the cost the source recorded, if any.
        final_output: the answer, when there is no trajectory to take it from.
        started_at: when it started (``None`` when the source does not say).
        duration_s: how long it took, in seconds (``None`` when the source does not say).
        error_type: the kind of error or limit that ended it (``None``: none).
        error_message: the source's message for it.
        source_ref: where in the source it came from (file and position), for a person.
        config_hash: a hash of what defined the run in the source (prompt, task config),
            equal across runs of one definition; ``None`` when the source does not say.
    """

    scenario: str
    run_index: int
    variant: str = DEFAULT_VARIANT
    model: str = "unknown"
    status: Status = "ok"
    passed: bool | None = None
    crashed: bool | None = False
    criteria: tuple[ImportedCriterion, ...] = ()
    trajectory: Trajectory | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cost_usd: float | None = None
    final_output: str | None = None
    started_at: datetime | None = None
    duration_s: float | None = None
    error_type: str | None = None
    error_message: str | None = None
    source_ref: str = ""
    config_hash: str | None = None


@dataclass(frozen=True, kw_only=True)
class ImportedBatch:
    """Everything an importer read from one or more logs of one source.

    Attributes:
        source: the source kind (``inspect``, ``promptfoo``, ``harbor``).
        suite: the suite name the run set gets (the task or eval's name, unless given).
        runs: every run, in the source's order.
        files: the files read (as given, for the manifest).
        provenance: what the source says of itself: its version, the task, the eval's id,
            the command or config that made the log (JSON-safe values only).
        lacks: what the source does not record, each a short phrase ("trajectories", "token
            usage", "timings"): missing in the rows, said in the report, never invented.
        pass_rule: the rule that turned scores into ``passed``, as a sentence for the report.
        descriptions: scenario → a one-line description (the sample's input), if any.
        started_at: when the source's run started (``None`` when it does not say).
        finished_at: when it finished.
    """

    source: str
    suite: str
    runs: tuple[ImportedRun, ...]
    files: tuple[str, ...]
    provenance: Mapping[str, Any] = field(default_factory=dict)
    lacks: tuple[str, ...] = ()
    pass_rule: str = ""
    descriptions: Mapping[str, str] = field(default_factory=dict)
    started_at: datetime | None = None
    finished_at: datetime | None = None


@dataclass(frozen=True, kw_only=True)
class ImportOptions:
    """What the user can set on an import.

    Attributes:
        suite: the suite name (default: the source's task or eval name).
        variant: the variant every run gets (``None``: ``base``); of a promptfoo eval of
            several prompt columns, the one column to import (``None``: each column is a
            variant of its own).
        pass_rule: a pass rule overriding the source's default (:func:`parse_pass_rule`).
        scorer: the one scorer (Inspect) or assertion that decides ``passed``; default: all.
    """

    suite: str | None = None
    variant: str | None = None
    pass_rule: str | None = None
    scorer: str | None = None

    @property
    def variant_name(self) -> str:
        """The variant every run gets: ``variant``, else ``base``."""
        return self.variant or DEFAULT_VARIANT
