"""Read-only commands: ``trajguard show`` (what a batch or a run did) and ``trajguard plan``."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trajguard.errors import StoreError, UsageError
from trajguard.outcome import ErrorCount
from trajguard.report import ArmSummary, summarize
from trajguard.runs import error_summaries
from trajguard.store import MANIFEST_FILE, RunSet, load_runset

if TYPE_CHECKING:
    from trajguard.comparison import CompareConfig, ScenarioPlan
    from trajguard.core.shape import Shape

__all__ = ["RunSetView", "plan", "show"]


@dataclass(frozen=True, kw_only=True)
class RunSetView:
    """A run set with its per-scenario summaries."""

    runset: RunSet
    arms: tuple[ArmSummary, ...]
    errors: dict[tuple[str, str], tuple[ErrorCount, ...]]
    """The most common errors per (scenario, variant), each naming a run that shows it whole."""


def _runset_of_parquet(path: Path) -> Path:
    """The run set a Parquet file belongs to (``RUNSET/runs.parquet``, ``RUNSET/parts/x``)."""
    for folder in (path.parent, path.parent.parent):
        if (folder / MANIFEST_FILE).is_file():
            return folder
    raise StoreError(
        "a Parquet file outside a run set",
        file=path,
        hint="pass the run set directory (the one holding manifest.json), or read the file "
        "with pandas: pd.read_parquet(PATH)",
    )


def show(target: Path, *, top: int = 3) -> RunSetView | Shape:
    """A run set (directory, or its Parquet file) summarised per scenario and variant, or the
    shape of one ATIF file."""
    if top < 0:
        raise UsageError(f"--top must be at least 0, got {top}")
    if target.is_file() and target.suffix == ".parquet":
        target = _runset_of_parquet(target)
    elif target.is_file():
        from trajguard.atif import load_trajectory  # a trajectory, not a run set: its models
        from trajguard.core.shape import shape

        return shape(load_trajectory(target))
    runset = load_runset(target)
    columns = ["run_id", "scenario", "variant", "error_type", "error_message"]
    records: list[Any] = runset.runs[columns].to_dict("records")
    rows: list[dict[str, Any]] = records
    return RunSetView(
        runset=runset,
        arms=tuple(summarize(runset.runs, top=top)),
        errors=error_summaries(rows, top=top),
    )


def plan(
    baseline: Path | None = None,
    *,
    runs: int = 20,
    pass_rate: float | None = None,
    crash_rate: float = 0.0,
    token_cv: float = 0.3,
    scenarios: int = 1,
    config: CompareConfig | None = None,
) -> tuple[ScenarioPlan, ...]:
    """What ``runs`` runs per side can detect, per scenario of a baseline run set or for
    assumed values, and the runs each tolerance edge needs.

    Raises:
        UsageError: neither a baseline nor an assumed pass rate, or a value out of range.
    """
    from trajguard.comparison import CompareConfig, plan_assumed, plan_runset

    config = config or CompareConfig()
    if runs < 2:
        raise UsageError(f"--runs must be at least 2, got {runs}")
    for name, value in (("--pass-rate", pass_rate), ("--crash-rate", crash_rate)):
        if value is not None and not 0 <= value <= 1:
            raise UsageError(f"{name} is a rate between 0 and 1, got {value}")
    if not (token_cv > 0 and token_cv < float("inf")):
        raise UsageError(f"--token-cv must be a number above 0, got {token_cv}")
    if scenarios < 1:
        raise UsageError(f"--scenarios must be at least 1, got {scenarios}")
    if baseline is not None:
        return plan_runset(load_runset(baseline).runs, runs, config=config)
    if pass_rate is None:
        raise UsageError(
            "give a BASELINE run set or --pass-rate to assume one",
            hint="e.g. trajguard plan --pass-rate 0.9 --runs 20 --scenarios 4",
        )
    return (
        plan_assumed(
            n=runs,
            n_scenarios=scenarios,
            pass_rate=pass_rate,
            crash_rate=crash_rate,
            token_cv=token_cv,
            config=config,
        ),
    )
