"""Compare two run sets on disk and write the report: ``trajguard compare`` and a night's end."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from trajguard.comparison import (
    CompareConfig,
    Comparison,
    DesignRecord,
    PooledBaseline,
    compare_runsets,
    judge_probes,
    pool_history,
)
from trajguard.errors import StoreError
from trajguard.pipeline._floors import floors_of
from trajguard.pipeline._imported import resolve_sides
from trajguard.pipeline._nights import StoreRequest, keep_night, night_of, with_trend
from trajguard.pipeline._outputs import (
    ReportOptions,
    check_targets,
    plotted_scenarios,
    run_payload,
    write_outputs,
)
from trajguard.report import build_document, floors_summary
from trajguard.results import ReportDocument, ReportKind
from trajguard.store import (
    RunSet,
    check_comparable_sides,
    check_finished,
    load_history,
    load_runset,
)

__all__ = [
    "CompareOutcome",
    "compare",
    "compare_loaded",
    "load_baseline",
    "with_suite_gates",
    "with_suite_tolerances",
]


@dataclass(frozen=True, kw_only=True)
class CompareOutcome:
    """What a comparison on disk produced."""

    comparison: Comparison
    document: ReportDocument
    """Everything the report says (written beside it as ``comparison.json``)."""
    report: Path
    junit: Path | None = None
    runset: Path | None = None
    """The candidate run set (when the pipeline ran it)."""
    history: PooledBaseline | None = None
    """The batches pooled from the baseline's history (``None``: one batch)."""
    warnings: tuple[str, ...] = ()
    """What the user should know that did not stop the comparison (files of the store of
    nights skipped, a store whose trend could not be read)."""

    @property
    def regressed(self) -> bool:
        """The night failed: some gating metric or suite-level test regressed."""
        return self.comparison.regressed

    @property
    def exit_code(self) -> int:
        """0, 1 (the night failed) or 4 (blind, with ``--require-power``)."""
        return self.document.exit_code

    @property
    def headline(self) -> str:
        """One line: the verdict, the count of each scenario verdict, the report's path."""
        counts: dict[str, int] = {}
        for scenario in self.comparison.scenarios:
            counts[scenario.verdict.value] = counts.get(scenario.verdict.value, 0) + 1
        parts = ", ".join(f"{n} {v}" for v, n in sorted(counts.items()))
        blind = len(self.comparison.blind)
        seen = f"; blind in {blind} of {len(self.comparison.scenarios)}" if blind else ""
        line = f"verdict: {self.comparison.verdict.value} ({parts}{seen}) → {self.report}"
        floors = self.document.floors
        return line if floors is None else f"{line}\n{floors_summary(floors)}"


def with_suite_tolerances(
    config: CompareConfig, tolerances: Mapping[str, Mapping[str, float]]
) -> CompareConfig:
    """The settings with each scenario's own tolerance bands (from the suite or its manifest)."""
    own = {scenario: dict(t) for scenario, t in tolerances.items() if t}
    return replace(config, scenario_tolerances=own) if own else config


def with_suite_gates(config: CompareConfig, gates: object) -> CompareConfig:
    """The settings with the suite's own gating metrics (``defaults.gate``, or a manifest's
    ``gate``) added to the gating family; ``gates`` that name none leave them as they are."""
    named = frozenset(str(g) for g in gates) if isinstance(gates, list | tuple) else frozenset()
    return replace(config, gating=config.gating | named) if named - config.gating else config


def load_baseline(
    path: Path, candidate: RunSet, *, history: int | None = None
) -> tuple[RunSet, PooledBaseline | None]:
    """The baseline to compare with: one batch, or the batches of its history pooled per
    scenario (those with the candidate's definitions; :func:`trajguard.comparison.pool_history`).

    Args:
        path: the baseline run set (``baselines/<suite>/`` keeps a history of promoted batches).
        candidate: the candidate run set (its config hashes choose the batches).
        history: use at most this many of the newest batches (``None``: all that are kept).
    """
    batches = load_history(path)
    if history is not None:
        batches = batches[: max(history, 1)]
    if len(batches) == 1:
        return batches[0], None
    for side in batches:
        _single_variant(side)
    labels = [str(b.manifest.get("batch_id") or f"batch{i}") for i, b in enumerate(batches)]
    pooled = pool_history(
        [(label, b.runs) for label, b in zip(labels, batches, strict=True)], candidate.runs
    )
    latest = batches[0]
    # where each kept batch lives, for the commands that open one of its runs
    where = {label: str(b.path) for label, b in zip(labels, batches, strict=True)}
    manifest = {**latest.manifest, "history_batches": labels, "history_paths": where}
    return RunSet(path=latest.path, manifest=manifest, runs=pooled.runs), pooled


def _single_variant(side: RunSet) -> None:
    variants = sorted(str(v) for v in side.runs["variant"].dropna().unique())
    if len(variants) > 1:
        raise StoreError(
            f"run set holds several variants ({', '.join(variants)}); compare would pool them",
            file=side.path,
            hint="compare variants with `trajguard ab`, or make one run set per variant (a "
            "promptfoo eval of several prompt columns: `trajguard import promptfoo FILE "
            "--variant NAME --out DIR` for each column)",
        )


def _comparable(baseline: RunSet, candidate: RunSet) -> None:
    """Refuse a pair whose comparison would mean nothing: an empty side, or two suites."""
    for role, side in (("baseline", baseline), ("candidate", candidate)):
        if side.runs.empty:
            raise StoreError(
                f"the {role} run set holds no runs, so there is nothing to compare",
                file=side.path,
                hint="pass a run set written by `trajguard run` that finished some runs",
            )
    suites = (baseline.manifest.get("suite"), candidate.manifest.get("suite"))
    if None not in suites and suites[0] != suites[1]:
        raise StoreError(
            f"the run sets belong to different suites ({suites[0]!r} and {suites[1]!r})",
            file=candidate.path,
            hint="compare a candidate with a baseline of its own suite",
        )
    check_comparable_sides(baseline, candidate)


def compare_loaded(
    baseline: RunSet,
    candidate: RunSet,
    report: Path,
    *,
    config: CompareConfig,
    options: ReportOptions,
    design: DesignRecord | None = None,
    require_power: bool = False,
    adjust: Callable[[Comparison], Comparison] | None = None,
    history: PooledBaseline | None = None,
    kind: ReportKind = ReportKind.COMPARE,
    store: StoreRequest | None = None,
) -> CompareOutcome:
    """Compare two loaded run sets; write the report (plots beside it) and optional JUnit.

    With ``store``, the report carries the suite's trend from the store of nights (this night
    the newest), and the night is appended to the store once the report is written.

    ``adjust`` transforms the comparison before anything is written (the sequential gate sets
    the verdicts in sequential mode), so report, JUnit and the returned comparison agree. The
    report document is built once from the run sets; report, plots, JUnit and the job summary
    are rendered from it.
    """
    _comparable(baseline, candidate)
    for side in (baseline, candidate):
        _single_variant(side)
    check_targets(report, options.junit)
    comparison = compare_runsets(
        baseline.runs, candidate.runs, config=config, tags=_manifest_tags(candidate.manifest)
    )
    probes = judge_probes(baseline.manifest, "baseline") + judge_probes(
        candidate.manifest, "candidate"
    )
    comparison = replace(comparison, judge_probes=probes)
    if adjust is not None:
        comparison = adjust(comparison)
    plotted = plotted_scenarios(comparison, all_plots=options.all_plots) if options.plots else []
    document = build_document(
        comparison,
        kind=kind,
        baseline=baseline,
        candidate=candidate,
        plots=plotted,
        command=options.command,
        design=design,
        require_power=require_power,
        history=history,
        explain=options.explain,
    )
    document = replace(document, floors=floors_of(candidate))
    night = None
    warnings: tuple[str, ...] = ()
    if store is not None:
        night = night_of(document, baseline, candidate, report=report, date=store.date)
        document, warnings = with_trend(document, night, store)
    runs = run_payload(document, baseline, candidate) if options.html else None
    write_outputs(document, report, options=options, runs=runs)
    if store is not None and night is not None:
        keep_night(document, night, store, report=report)
    return CompareOutcome(
        comparison=comparison,
        document=document,
        report=report,
        junit=options.junit,
        history=history,
        warnings=warnings,
    )


def compare(
    baseline: Path,
    candidate: Path,
    *,
    config: CompareConfig | None = None,
    report: Path | None = None,
    reports: Path = Path("reports"),
    options: ReportOptions | None = None,
    history: int | None = None,
    require_power: bool = False,
    allow_unfinished: bool = False,
    store: StoreRequest | None = None,
) -> CompareOutcome:
    """``trajguard compare``: two run sets on disk → report (and JUnit) → the outcome.

    The scenarios' own tolerance bands, recorded in the candidate's manifest from its suite
    file, replace the given ones for those scenarios. A baseline with a history of promoted
    batches is pooled per scenario (:func:`load_baseline`).

    Args:
        baseline: the baseline run set directory, or an eval log of Inspect AI, promptfoo or
            Harbor (imported into the report's folder first: :mod:`._imported`).
        candidate: the candidate run set directory, or such a log.
        config: comparison settings (default :class:`CompareConfig`).
        report: the report's path (default ``reports/<suite>-<time>/report.md``).
        reports: the root of the default report path.
        options: plots, JUnit, the command shown in the report.
        history: pool at most this many of the baseline's newest batches (default: all kept).
        require_power: a blind comparison (some scenario could not see its pass-rate band)
            exits 4 (:attr:`CompareOutcome.exit_code`).
        allow_unfinished: compare a run set whose batch has not finished (the report says so
            under its headline; refused otherwise).
        store: append the night to this store of nights and show the suite's trend.

    Raises:
        StoreError: a run set cannot be read, holds several variants, or a target cannot be
            written.
    """
    sides = resolve_sides(baseline, candidate, report=report, reports=reports)
    candidate_set = load_runset(sides.candidate)
    baseline_set, pooled = load_baseline(sides.baseline, candidate_set, history=history)
    for role, side in (("candidate", candidate_set), ("baseline", baseline_set)):
        check_finished(side, role=role, allow=allow_unfinished)  # the report says so if allowed
    tolerances: Any = candidate_set.manifest.get("tolerances") or {}
    config = with_suite_tolerances(config or CompareConfig(), tolerances)
    config = with_suite_gates(config, candidate_set.manifest.get("gate"))
    target = sides.report
    return compare_loaded(
        baseline_set,
        candidate_set,
        target,
        config=config,
        options=options or ReportOptions(),
        history=pooled,
        require_power=require_power,
        store=store,
    )


def _manifest_tags(manifest: Mapping[str, Any]) -> dict[str, list[str]]:
    """The scenarios' tags a run set's manifest records (none in run sets without tags)."""
    tags = manifest.get("tags")
    if not isinstance(tags, Mapping):
        return {}
    return {
        str(scenario): [str(t) for t in names]
        for scenario, names in tags.items()
        if isinstance(names, list)
    }
