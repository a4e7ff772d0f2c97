"""The report document of a comparison, computed from its run sets (the only place a report
reads run tables and manifests; the renderers read the document alone).

Each figure is computed as the renderers computed it when they read the run sets themselves, so
a report rendered from the document is the report rendered from the run sets, byte for byte.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
import pandas as pd

from trajguard._metric_table import metric_description
from trajguard.comparison import (
    ABResult,
    Comparison,
    DesignRecord,
    FixedRecord,
    PooledBaseline,
    Verdict,
)
from trajguard.outcome import HARNESS_ERROR, Tally, classify
from trajguard.report.builders._conversation_facts import conversation_facts
from trajguard.report.builders._explanation_facts import explanation
from trajguard.report.builders._plots import plot_path
from trajguard.report.builders._resilience_facts import resilience_groups
from trajguard.report.builders._side_facts import side_facts
from trajguard.report.builders._tool_digest import tool_digest
from trajguard.results import (
    ABOverall,
    Explanation,
    HistoryFacts,
    PlotSample,
    ReportDocument,
    ReportKind,
    ScenarioFacts,
    Side,
    SideFacts,
    ToolUse,
)
from trajguard.store import RunSet

__all__ = ["build_ab_document", "build_document"]

_PLOTTED = ("step_count", "prompt_tokens", "latency")

Explain = Literal["changed", "all", "none"]
"""Which scenarios the document explains: those that regressed, improved or changed
(the default), every one, or none."""

_CHANGED = frozenset({Verdict.REGRESSED, Verdict.IMPROVED, Verdict.CHANGED})


def _finite(values: npt.NDArray[np.float64]) -> tuple[float, ...]:
    return tuple(float(v) for v in values[np.isfinite(values)])


def _plot_samples(frame: pd.DataFrame, scenarios: Sequence[str]) -> dict[str, PlotSample]:
    """Each scenario's behavioural runs as its plot draws them: rates counted as every table
    counts them (:func:`trajguard.outcome.tally`), the step counts, prompt tokens and latencies."""
    behavioural = frame[frame["status"] != HARNESS_ERROR]
    outcomes = classify(behavioural)
    rows = {str(k): v for k, v in behavioural.groupby("scenario", sort=False).indices.items()}
    columns = {
        name: (
            pd.to_numeric(behavioural[metric_description(name).column], errors="coerce").to_numpy(
                dtype=float
            )
            if metric_description(name).column in behavioural.columns
            else np.full(len(behavioural), np.nan)
        )
        for name in _PLOTTED
    }
    samples = {}
    for scenario in scenarios:
        index = rows.get(scenario)
        if index is None:
            samples[scenario] = PlotSample()
            continue
        counts = Tally(
            runs=len(index),
            harness_errors=int((~outcomes.behavioural[index]).sum()),
            judged=int(outcomes.judged[index].sum()),
            passed=int(outcomes.passed[index].sum()),
            crashed=int(outcomes.crashed[index].sum()),
        )
        samples[scenario] = PlotSample(
            pass_rate=counts.pass_rate,
            crash_rate=counts.crash_rate,
            judged=counts.judged,
            steps=_finite(columns["step_count"][index]),
            prompt_tokens=_finite(columns["prompt_tokens"][index]),
            latency=_finite(columns["latency"][index]),
        )
    return samples


def run_paths(runset: RunSet, path: Path | None = None) -> dict[str, str]:
    """Batch id → the run set that holds its runs, ``""`` → the run set itself (a baseline
    pooled from its history names each kept batch's directory in ``history_paths``)."""
    paths = {"": str(path or runset.path)}
    kept = runset.manifest.get("history_paths")
    if isinstance(kept, Mapping):
        paths.update({str(batch): str(where) for batch, where in kept.items()})
    return paths


def _explained(
    comparison: Comparison,
    baseline: pd.DataFrame,
    candidate: pd.DataFrame,
    *,
    explain: Explain,
    paths: tuple[Mapping[str, str], Mapping[str, str]],
) -> dict[str, Explanation]:
    config = comparison.config
    chosen = [
        s
        for s in comparison.scenarios
        if explain == "all" or (explain == "changed" and s.verdict in _CHANGED)
    ]
    if not chosen:
        return {}
    empty = baseline.iloc[:0]
    sides = [
        {str(name): rows for name, rows in side.groupby("scenario", sort=False)}
        for side in (baseline, candidate)
    ]
    return {
        s.scenario: explanation(
            sides[0].get(s.scenario, empty),
            sides[1].get(s.scenario, empty),
            alpha=config.alpha,
            crash_statuses=config.crash_statuses,
            paths=paths,
            changed=s.verdict in _CHANGED,
        )
        for s in chosen
    }


def _scenario_facts(
    comparison: Comparison,
    baseline: pd.DataFrame,
    candidate: pd.DataFrame,
    explained: Mapping[str, Explanation],
    descriptions: Mapping[str, str],
) -> dict[str, ScenarioFacts]:
    names = [s.scenario for s in comparison.scenarios]
    sides = []
    for runs in (baseline, candidate):
        digest = tool_digest(runs)
        plots = _plot_samples(runs, names)
        sides.append(
            {
                name: SideFacts(
                    tools=ToolUse(calls=dict(digest.calls.get(name, {})), top=digest.top.get(name)),
                    plot=plots[name],
                )
                for name in names
            }
        )
    return {
        name: ScenarioFacts(
            baseline=sides[0][name],
            candidate=sides[1][name],
            explanation=explained.get(name),
            description=descriptions.get(name, ""),
        )
        for name in names
    }


def _descriptions(manifest: Mapping[str, Any]) -> dict[str, str]:
    """The scenarios' descriptions a run set's manifest records (none in older run sets)."""
    found = manifest.get("descriptions")
    if not isinstance(found, Mapping):
        return {}
    return {str(name): text for name, text in found.items() if isinstance(text, str)}


def _history(pooled: PooledBaseline | None) -> HistoryFacts | None:
    if pooled is None:
        return None
    return HistoryFacts(
        batches={str(s): tuple(map(str, b)) for s, b in pooled.batches.items()},
        changed=tuple(map(str, pooled.changed)),
        available=int(pooled.available),
    )


def build_document(
    comparison: Comparison,
    *,
    kind: ReportKind,
    baseline: RunSet,
    candidate: RunSet,
    plots: Iterable[str] = (),
    command: str | None = None,
    design: DesignRecord | None = None,
    require_power: bool = False,
    history: PooledBaseline | None = None,
    ab: ABOverall | None = None,
    explain: Explain = "changed",
    paths: tuple[Path, Path] | None = None,
) -> ReportDocument:
    """The document every report of ``comparison`` is rendered from.

    Args:
        comparison: the result of :func:`trajguard.comparison.compare_runsets`.
        kind: the job that made it.
        baseline: the baseline run set (path, manifest, runs).
        candidate: the candidate run set.
        plots: the scenarios that get a distribution plot (:func:`write_plots` draws them).
        command: the command that reproduces the report.
        design: the design the runs were made under (default: fixed).
        require_power: a blind night exits 4.
        history: the batches pooled from the baseline's history, if any.
        ab: the A/B answer and overall tests (A/B documents only).
        explain: the scenarios explained (criteria, exemplar runs, paths).
        paths: the run sets the commands that open a run name (default: each side's path).
    """
    sides = (side_facts("baseline", baseline), side_facts("candidate", candidate))
    opened = (
        run_paths(baseline, paths[0] if paths else None),
        run_paths(candidate, paths[1] if paths else None),
    )
    explained = _explained(comparison, baseline.runs, candidate.runs, explain=explain, paths=opened)
    tables = ((sides[0].label, baseline.runs), (sides[1].label, candidate.runs))
    return ReportDocument(
        kind=kind,
        comparison=comparison,
        ab=ab,
        baseline=sides[0],
        candidate=sides[1],
        scenarios=_scenario_facts(
            comparison,
            baseline.runs,
            candidate.runs,
            explained,
            _descriptions(candidate.manifest) or _descriptions(baseline.manifest),
        ),
        resilience=resilience_groups(tables, comparison.config.alpha),
        history=_history(history),
        plots={name: plot_path(name) for name in plots},
        command=command,
        design=design or FixedRecord(),
        require_power=require_power,
        conversations=conversation_facts(
            baseline.runs,
            candidate.runs,
            alpha=comparison.config.alpha,
            seed=comparison.config.seed,
        ),
    )


def build_ab_document(
    result: ABResult,
    *,
    runs: RunSet,
    plots: Iterable[str] = (),
    command: str | None = None,
    design: DesignRecord | None = None,
    explain: Explain = "changed",
) -> ReportDocument:
    """The document of an A/B report: variant A's runs play the baseline, B's the candidate."""
    a, b = result.variant_a, result.variant_b
    frame = runs.runs
    document = build_document(
        result.per_scenario,
        kind=ReportKind.AB,
        baseline=replace(
            runs, path=f"{runs.path} (variant {a})", runs=frame[frame["variant"] == a]
        ),
        candidate=replace(
            runs, path=f"{runs.path} (variant {b})", runs=frame[frame["variant"] == b]
        ),
        plots=plots,
        command=command,
        design=design,
        explain=explain,
        paths=(Path(runs.path), Path(runs.path)),
        ab=ABOverall(
            variant_a=a,
            variant_b=b,
            answer=result.answer,
            summary=result.summary,
            detectable_difference=result.detectable_difference,
            overall=result.overall,
            pairwise=result.pairwise,
        ),
    )
    # Both sides are one batch: each side's definitions are its own variant's, by scenario, so
    # the provenance compares variant A's definition of a scenario with variant B's.
    return replace(
        document,
        baseline=replace(document.baseline, config_hashes=_variant_hashes(document.baseline, a)),
        candidate=replace(document.candidate, config_hashes=_variant_hashes(document.candidate, b)),
    )


def _variant_hashes(side: Side, variant: str) -> dict[str, str]:
    """``scenario`` → the config hash of ``variant``'s definition of it."""
    suffix = f"/{variant}"
    return {
        key.removesuffix(suffix): value
        for key, value in side.config_hashes.items()
        if key.endswith(suffix)
    }
