"""What several commands share: their options, and turning those options into library values."""

from __future__ import annotations

import argparse
import os
import shlex
import sys
import time
from collections.abc import Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trajguard._catalog import SUITE_SHARE, TOLERANCE_NAMES, TOLERANCES
from trajguard._metric_table import DEFAULT_GATING, METRIC_NAMES
from trajguard._text import printable
from trajguard.cli._executor_options import add_executor_arguments, executor_choice
from trajguard.errors import UsageError

if TYPE_CHECKING:  # the modules behind these import pandas: each command imports them when it runs
    from trajguard.cli._startup import StartupLog
    from trajguard.comparison import CompareConfig, SettingProblem
    from trajguard.pipeline import ReportOptions
    from trajguard.runner import BatchObserver, BatchOptions, ObserverFactory

__all__ = [
    "add_batch_arguments",
    "add_compare_arguments",
    "add_family_arguments",
    "add_history_argument",
    "add_max_runs_argument",
    "add_report_arguments",
    "add_require_power_argument",
    "batch_options",
    "command_line",
    "compare_config",
    "observer_factory",
    "prepare_imports",
    "quiet_litellm",
    "report_options",
    "startup_log",
]


def add_batch_arguments(parser: argparse.ArgumentParser) -> None:
    """Options shared by run, nightly and ab."""
    parser.add_argument("suite", type=Path, metavar="SUITE", help="suite YAML file")
    parser.add_argument("--runs", type=int, metavar="N", help="runs per scenario (default: suite)")
    parser.add_argument("--model", metavar="M", help="litellm model string (default: suite)")
    parser.add_argument("--api-base", metavar="URL", help="endpoint for --model (e.g. Ollama)")
    parser.add_argument(
        "--scenario", action="append", default=[], metavar="ID", help="only this scenario (repeat)"
    )
    parser.add_argument("--seed", type=int, help="batch seed, to reproduce a batch")
    parser.add_argument("--concurrency", type=int, metavar="K", help="runs in flight at once")
    parser.add_argument("--timeout", type=float, metavar="S", help="per-run timeout in seconds")
    parser.add_argument("--no-progress", action="store_true", help="no progress display")
    parser.add_argument(
        "--max-cost",
        type=float,
        metavar="USD",
        help="stop before a run that would bring the runs' cost past USD (a run's cost estimated "
        "from the batch's finished runs, else the baseline's); a run whose cost is unknown stops "
        "the batch; exit 6, --resume finishes it",
    )
    parser.add_argument(
        "--max-minutes",
        type=float,
        metavar="M",
        help="stop before a run that would end more than M minutes after the batch began "
        "(its start-up included; runs in flight finish); exit 6, --resume finishes it",
    )
    add_executor_arguments(parser)


def add_compare_arguments(parser: argparse.ArgumentParser) -> None:
    """Comparison options shared by compare and nightly."""
    parser.add_argument(
        "--alpha", type=float, default=0.05, help="family-wise level of the gating family"
    )
    parser.add_argument("--q", type=float, default=0.10, help="diagnostic false discovery rate")
    parser.add_argument(
        "--tolerance",
        action="append",
        default=[],
        metavar="METRIC=VALUE",
        help="tolerance band: "
        + ", ".join(f"{t.name}={t.default:g} ({t.meaning})" for t in TOLERANCES),
    )
    parser.add_argument(
        "--gate",
        action="append",
        default=[],
        metavar="METRIC",
        help=f"gating metric (repeat; one of {', '.join(METRIC_NAMES)}; default "
        f"{', '.join(m for m in METRIC_NAMES if m in DEFAULT_GATING)})",
    )
    parser.add_argument(
        "--judge-unstable",
        choices=("warn", "fail"),
        default="warn",
        help="a judge whose verdicts on one run disagree above the limit with 95%% confidence: "
        "warn (default: a headline line) or fail the night (exit 1)",
    )
    add_family_arguments(parser)
    parser.add_argument("--junit", type=Path, metavar="PATH", help="also write JUnit XML")
    add_report_arguments(parser)
    parser.add_argument(
        "--all-plots",
        action="store_true",
        help="plot every scenario (default: all up to 20 scenarios, else the changed ones)",
    )


def add_family_arguments(parser: argparse.ArgumentParser) -> None:
    """How the gating family is adjusted (compare, nightly, ab, plan)."""
    parser.add_argument(
        "--multiplicity",
        choices=("omnibus", "holm"),
        default="omnibus",
        help="omnibus (default): one combined test of the gating metrics per scenario, "
        "step-down over scenarios, plus suite-level tests; holm: one test per metric, Holm "
        "(docs/explanation/statistics.md §3)",
    )
    parser.add_argument(
        "--suite-share",
        type=float,
        default=SUITE_SHARE,
        metavar="S",
        help="share of --alpha for the suite-level tests (0 turns them off; default %(default)s)",
    )


def add_max_runs_argument(parser: argparse.ArgumentParser) -> None:
    """``--max-runs``: escalate the scenarios that lean towards a change (nightly, ab)."""
    parser.add_argument(
        "--max-runs",
        type=int,
        metavar="M",
        help="after the first N runs, give the scenarios that are inconclusive but lean towards "
        "a change more runs, in looks with alpha spending, up to M per scenario "
        "(docs/explanation/statistics.md §4)",
    )


def add_history_argument(parser: argparse.ArgumentParser) -> None:
    """``--history``: how many of a baseline's kept batches to pool (compare, nightly)."""
    parser.add_argument(
        "--history",
        type=int,
        metavar="K",
        help="pool at most the K newest batches of the baseline's history (default: every "
        "kept batch; 1: the latest only)",
    )


def print_warnings(warnings: Sequence[str]) -> None:
    """Each warning on stderr as ``trajguard: warning: ...`` (control characters escaped)."""
    for warning in warnings:
        print(f"trajguard: warning: {printable(warning)}", file=sys.stderr)


def add_store_argument(parser: argparse.ArgumentParser) -> None:
    """``--store``: keep the night in a store of nights (compare, nightly)."""
    parser.add_argument(
        "--store",
        default=os.environ.get("TRAJGUARD_STORE") or None,
        metavar="STORE",
        help="append the night to this store of nights (a directory, or s3://BUCKET/PREFIX) "
        "and add the suite's trend to the report (default: $TRAJGUARD_STORE; "
        "`trajguard docs nights`)",
    )


def add_require_power_argument(parser: argparse.ArgumentParser, *, suite: bool) -> None:
    """``--require-power``: a blind comparison exits 4 (compare, nightly)."""
    default = " (default: the suite's defaults.require_power)" if suite else ""
    parser.add_argument(
        "--require-power",
        action="store_true",
        default=None if suite else False,
        help="exit 4 instead of 0 when some scenario's gating tests could not see a pass-rate "
        f"drop of its band (a blind night; exit 1 still wins){default}",
    )


def add_report_arguments(parser: argparse.ArgumentParser) -> None:
    """The plots switch and the explanations of every command that writes a report."""
    parser.add_argument("--no-plots", action="store_true", help="skip the PNG plots")
    parser.add_argument(
        "--no-html",
        action="store_true",
        help="skip report.html (the self-contained page with the forest plot and run explorer)",
    )
    parser.add_argument(
        "--explain",
        choices=("changed", "all", "none"),
        default="changed",
        help="scenarios the report explains (which criteria broke, exemplar runs and their "
        "diff, where the runs went): changed (default: regressed, improved or changed), all, "
        "or none",
    )


def prepare_imports(suite_path: Path) -> None:
    """Let suites name modules next to them or in the working directory. This changes
    ``sys.path`` of the command line's own process only; the library never does."""
    for directory in (str(Path.cwd()), str(suite_path.resolve().parent)):
        if directory not in sys.path:
            sys.path.insert(0, directory)


def quiet_litellm() -> None:
    """Turn off litellm's "Give Feedback / Get Help" banner, printed on every provider error and
    retry (errors are recorded in the rows), once litellm is imported. This is the command
    line's own process, so the setting is ours to choose; the library itself never touches
    litellm's globals. It does not import litellm (seconds): a batch imports it in its first
    start-up step, while the embedded model's server starts, and :func:`startup_log` calls this
    at every step, so the banner is off before the first call."""
    litellm: Any = sys.modules.get("litellm")
    if litellm is not None:
        litellm.suppress_debug_info = True


def startup_log(args: argparse.Namespace) -> StartupLog:
    """The start-up steps of a batch command, timed from when :func:`trajguard.cli.main` began
    (or from now, for a handler called without it)."""
    from trajguard.cli._startup import StartupLog

    started = getattr(args, "command_started", None)
    return StartupLog(
        started=time.monotonic() if started is None else started, on_step=quiet_litellm
    )


def batch_options(args: argparse.Namespace, variants: list[str]) -> BatchOptions:
    """The batch options of run, nightly and ab (checked by :class:`BatchOptions`)."""
    from trajguard.runner import BatchOptions, Budget

    return BatchOptions(
        runs=args.runs,
        model=args.model,
        api_base=args.api_base,
        scenarios=tuple(args.scenario),
        variants=tuple(variants),
        seed=args.seed,
        concurrency=args.concurrency,
        timeout_s=args.timeout,
        executor=executor_choice(args),
        budget=Budget(max_cost_usd=args.max_cost, max_minutes=args.max_minutes),
    )


def _tolerance(item: str) -> tuple[str, float]:
    """``--tolerance METRIC=VALUE`` read (the library checks the band's name and range)."""
    name, sep, value = item.partition("=")
    if not sep:
        raise UsageError(f"--tolerance {item!r}: {_TOLERANCE_SYNTAX}")
    try:
        return name, float(value)
    except ValueError:
        raise UsageError(f"--tolerance {item!r}: {value!r} is not a number") from None


_TOLERANCE_SYNTAX = f"expected METRIC=VALUE with METRIC one of {', '.join(TOLERANCE_NAMES)}"


def compare_config(args: argparse.Namespace) -> CompareConfig:
    """The comparison settings of ``--alpha``, ``--q``, ``--tolerance`` and ``--gate``; a
    problem the library finds with an option's value is stated as that option's."""
    from trajguard.comparison import CompareConfig, InvalidSettings

    given = {item: _tolerance(item) for item in getattr(args, "tolerance", [])}
    updates: dict[str, Any] = {
        "alpha": args.alpha,
        "q": getattr(args, "q", 0.10),
        "multiplicity": getattr(args, "multiplicity", "omnibus"),
        "suite_share": getattr(args, "suite_share", SUITE_SHARE),
        "judge_unstable": getattr(args, "judge_unstable", "warn"),
    }
    if given:
        updates["tolerances"] = dict(given.values())
    if getattr(args, "gate", []):
        updates["gating"] = frozenset(args.gate)
    try:
        return CompareConfig(**updates)
    except InvalidSettings as error:
        items = {name: item for item, (name, _) in given.items()}
        as_options = [_as_option(p, items) for p in error.problems]
        stated = [s for s in as_options if s is not None]
        if not stated:  # alpha, q: the library's own words name them
            raise
        bands = any(p.setting == "tolerances" for p in error.problems)
        hint = "expected METRIC=VALUE, a band's name and a value in its range" if bands else None
        raise UsageError("; ".join(stated), hint=hint) from None


def _as_option(problem: SettingProblem, tolerances: dict[str, str]) -> str | None:
    """A problem of the comparison settings as the option that set it says it (``None``: the
    library's words already name it)."""
    if problem.setting == "suite_share":
        return f"--suite-share {problem.detail}"
    if problem.setting == "tolerances" and problem.name in tolerances:
        return f"--tolerance {tolerances[problem.name]!r}: {problem.detail}"
    if problem.setting == "gating":
        return f"--gate: {problem.detail}; known: {', '.join(METRIC_NAMES)}"
    return None


def command_line() -> str:
    """The command that is running, as the report's "reproduce" line."""
    return shlex.join(["trajguard", *sys.argv[1:]])


def report_options(args: argparse.Namespace, *, step_summary: bool = False) -> ReportOptions:
    """The report options of ``--no-plots``, ``--all-plots`` and ``--junit``."""
    from trajguard.pipeline import ReportOptions

    return ReportOptions(
        plots=not args.no_plots,
        html=not getattr(args, "no_html", False),
        all_plots=getattr(args, "all_plots", False),
        explain=args.explain,
        junit=getattr(args, "junit", None),
        command=command_line(),
        step_summary=step_summary,
    )


def observer_factory(args: argparse.Namespace, startup: StartupLog) -> ObserverFactory:
    """A progress display per batch (a bar on a terminal, lines elsewhere, none with
    ``--no-progress``), its start-up steps printed by ``startup``. A batch's observer is made
    just before the batch starts, which ends the steps the command began itself."""
    from trajguard.cli._progress import BatchProgress

    enabled = not args.no_progress

    def observe(label: str) -> AbstractContextManager[BatchObserver]:
        startup.end()
        return BatchProgress(enabled=enabled, label=label, startup=startup)

    return observe
