"""The main job from Python with flat keyword arguments: :func:`nightly`, :func:`ab`,
:func:`compare` and :func:`run`.

Each builds the option objects the command line builds (:class:`trajguard.runner.BatchOptions`,
:class:`trajguard.comparison.CompareConfig`, :class:`trajguard.pipeline.ReportOptions`) and makes
the one library call the command makes (:mod:`trajguard.pipeline`); the option objects remain
for what these leave out (executors, progress display, the report's command line). The
objects check the values, as they do for the command line. The machinery lives in
``trajguard.comparison`` and ``trajguard.runner``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from trajguard.comparison import CompareConfig
    from trajguard.pipeline import ABOutcome, CompareOutcome, ReportOptions
    from trajguard.runner import BatchOptions, BatchResult

__all__ = ["ab", "compare", "nightly", "run"]

Explain = Literal["changed", "all", "none"]


def _batch(
    *,
    runs: int | None,
    model: str | None,
    api_base: str | None,
    scenarios: Sequence[str],
    variants: Sequence[str] | None,
    seed: int | None,
    concurrency: int | None,
    timeout_s: float | None,
    max_cost_usd: float | None,
    max_minutes: float | None,
) -> BatchOptions:
    from trajguard.runner import BatchOptions, Budget
    from trajguard.suite import BASE_VARIANT

    return BatchOptions(
        runs=runs,
        model=model,
        api_base=api_base,
        scenarios=tuple(scenarios),
        variants=tuple(variants or (BASE_VARIANT,)),
        seed=seed,
        concurrency=concurrency,
        timeout_s=timeout_s,
        budget=Budget(max_cost_usd=max_cost_usd, max_minutes=max_minutes),
    )


def _config(
    *, alpha: float, tolerances: Mapping[str, float] | None, gate: Iterable[str] | None
) -> CompareConfig:
    from trajguard.comparison import CompareConfig

    settings: dict[str, Any] = {"alpha": alpha, "tolerances": dict(tolerances or {})}
    if gate is not None:
        settings["gating"] = frozenset(gate)
    return CompareConfig(**settings)


def _report(
    *, plots: bool, html: bool, junit: str | Path | None, explain: Explain
) -> ReportOptions:
    from trajguard.pipeline import ReportOptions

    return ReportOptions(
        plots=plots, html=html, junit=None if junit is None else Path(junit), explain=explain
    )


def nightly(
    suite: str | Path,
    *,
    runs: int | None = None,
    model: str | None = None,
    api_base: str | None = None,
    scenarios: Sequence[str] = (),
    seed: int | None = None,
    concurrency: int | None = None,
    timeout_s: float | None = None,
    max_cost_usd: float | None = None,
    max_minutes: float | None = None,
    alpha: float = 0.05,
    tolerances: Mapping[str, float] | None = None,
    gate: Iterable[str] | None = None,
    baseline: str | Path | None = None,
    baselines: str | Path = "baselines",
    reports: str | Path = "reports",
    sequential: bool = False,
    max_runs: int | None = None,
    budgeted: bool = False,
    history: int | None = None,
    require_power: bool | None = None,
    store: str | None = None,
    plots: bool = True,
    html: bool = True,
    junit: str | Path | None = None,
    explain: Explain = "changed",
    resume: str | Path | None = None,
) -> CompareOutcome:
    """``trajguard nightly``: run the suite, compare it with its baseline, write the report.

    The arguments are the command's options (``--runs`` … ``--resume``; ``max_cost_usd`` is
    ``--max-cost``, ``gate`` the ``--gate`` metrics). Returns the outcome: ``.exit_code`` (the
    command's), ``.regressed``, ``.headline``, ``.comparison``, ``.report`` and ``.runset``.
    Advanced settings (executors, a progress display) take the option objects of
    :func:`trajguard.pipeline.nightly`.

    Raises:
        TrajguardError: bad settings, no baseline, a suite or run set that cannot be used, or a
            model that cannot be reached (nothing is written then).
    """
    from trajguard.pipeline import StoreRequest
    from trajguard.pipeline import nightly as run_nightly

    options = _batch(
        runs=runs,
        model=model,
        api_base=api_base,
        scenarios=scenarios,
        variants=None,
        seed=seed,
        concurrency=concurrency,
        timeout_s=timeout_s,
        max_cost_usd=max_cost_usd,
        max_minutes=max_minutes,
    )
    return run_nightly(
        Path(suite),
        options=options,
        config=_config(alpha=alpha, tolerances=tolerances, gate=gate),
        baseline=None if baseline is None else Path(baseline),
        baselines=Path(baselines),
        reports=Path(reports),
        sequential=sequential,
        max_runs=max_runs,
        history=history,
        report=_report(plots=plots, html=html, junit=junit, explain=explain),
        require_power=require_power,
        store=StoreRequest(location=store),
        resume=None if resume is None else Path(resume),
        budgeted=budgeted,
    )


def ab(
    suite: str | Path,
    a: str,
    b: str,
    *,
    runs: int | None = None,
    model: str | None = None,
    api_base: str | None = None,
    scenarios: Sequence[str] = (),
    seed: int | None = None,
    concurrency: int | None = None,
    timeout_s: float | None = None,
    max_cost_usd: float | None = None,
    max_minutes: float | None = None,
    alpha: float = 0.05,
    tolerances: Mapping[str, float] | None = None,
    reports: str | Path = "reports",
    sequential: bool = False,
    max_runs: int | None = None,
    plots: bool = True,
    html: bool = True,
    junit: str | Path | None = None,
    explain: Explain = "changed",
    resume: str | Path | None = None,
) -> ABOutcome:
    """``trajguard ab``: run variants ``a`` and ``b`` of every scenario, did ``b`` help?

    Returns the outcome: ``.result.answer`` (better, worse, no difference detected, …),
    ``.headline``, ``.report``, ``.runset`` and ``.exit_code``.

    Raises:
        TrajguardError: bad settings, an unknown variant, a suite that cannot be used, or a
            model that cannot be reached.
    """
    from trajguard.pipeline import ab as run_ab

    options = _batch(
        runs=runs,
        model=model,
        api_base=api_base,
        scenarios=scenarios,
        variants=(a, b),
        seed=seed,
        concurrency=concurrency,
        timeout_s=timeout_s,
        max_cost_usd=max_cost_usd,
        max_minutes=max_minutes,
    )
    return run_ab(
        Path(suite),
        variants=(a, b),
        options=options,
        config=_config(alpha=alpha, tolerances=tolerances, gate=None),
        reports=Path(reports),
        sequential=sequential,
        max_runs=max_runs,
        report=_report(plots=plots, html=html, junit=junit, explain=explain),
        resume=None if resume is None else Path(resume),
    )


def compare(
    baseline: str | Path,
    candidate: str | Path,
    *,
    alpha: float = 0.05,
    tolerances: Mapping[str, float] | None = None,
    gate: Iterable[str] | None = None,
    report: str | Path | None = None,
    reports: str | Path = "reports",
    history: int | None = None,
    require_power: bool = False,
    allow_unfinished: bool = False,
    store: str | None = None,
    plots: bool = True,
    html: bool = True,
    junit: str | Path | None = None,
    explain: Explain = "changed",
) -> CompareOutcome:
    """``trajguard compare``: two run sets (or eval logs) → report → the outcome
    (``.exit_code``, ``.regressed``, ``.headline``, ``.comparison``, ``.report``).

    Raises:
        TrajguardError: bad settings, or a run set that cannot be read or written beside.
    """
    from trajguard.pipeline import StoreRequest
    from trajguard.pipeline import compare as run_compare

    return run_compare(
        Path(baseline),
        Path(candidate),
        config=_config(alpha=alpha, tolerances=tolerances, gate=gate),
        report=None if report is None else Path(report),
        reports=Path(reports),
        options=_report(plots=plots, html=html, junit=junit, explain=explain),
        history=history,
        require_power=require_power,
        allow_unfinished=allow_unfinished,
        store=None if store is None else StoreRequest(location=store),
    )


def run(
    suite: str | Path,
    *,
    runs: int | None = None,
    model: str | None = None,
    api_base: str | None = None,
    scenarios: Sequence[str] = (),
    variants: Sequence[str] | None = None,
    seed: int | None = None,
    concurrency: int | None = None,
    timeout_s: float | None = None,
    max_cost_usd: float | None = None,
    max_minutes: float | None = None,
    out: str | Path | None = None,
    resume: str | Path | None = None,
    runs_root: str | Path = "runs",
) -> BatchResult:
    """``trajguard run``: a batch into a new run set (``out``, default
    ``runs/<suite>-<time>``), or the interrupted one in ``resume`` finished. Returns what the
    batch did (``.runset``, ``.passed``, ``.crashed``, ``.counts``).

    Raises:
        TrajguardError: bad settings, a suite, variant or run set that cannot be used, or a
            model that cannot be reached before the first run (nothing is written then).
    """
    from trajguard.pipeline import run as run_batch

    options = _batch(
        runs=runs,
        model=model,
        api_base=api_base,
        scenarios=scenarios,
        variants=variants,
        seed=seed,
        concurrency=concurrency,
        timeout_s=timeout_s,
        max_cost_usd=max_cost_usd,
        max_minutes=max_minutes,
    )
    return run_batch(
        Path(suite),
        options=options,
        out=None if out is None else Path(out),
        resume=None if resume is None else Path(resume),
        runs_root=Path(runs_root),
    )
