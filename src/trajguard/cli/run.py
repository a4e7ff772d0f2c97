"""``trajguard run SUITE``: run every scenario N times and write a run set."""

from __future__ import annotations

import argparse
import asyncio
import math
import sys
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from trajguard.cli.progress import BatchProgress
from trajguard.errors import TrajguardError
from trajguard.live.runner import BatchOptions, BatchResult, plan_batch, run_batch
from trajguard.live.store import check_new_runset
from trajguard.live.suite import BASE_VARIANT, Suite, load_suite


def register(commands: Any) -> None:
    parser = commands.add_parser(
        "run",
        help="run every scenario of a suite N times against a model; write a run set",
        description="Run a suite: scenarios x N runs, one Parquet row per run.",
    )
    add_batch_arguments(parser)
    parser.add_argument(
        "--variant",
        action="append",
        default=[],
        metavar="NAME",
        help="run this variant (repeat to interleave several; default: base)",
    )
    parser.add_argument("--out", type=Path, help="run set directory (default runs/<suite>-<time>)")
    parser.add_argument(
        "--resume",
        type=Path,
        metavar="DIR",
        help="finish an interrupted batch (with the options it was started with)",
    )
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="validate the suite and print the plan (scenarios x variants x runs, models); "
        "no model call, nothing written",
    )
    parser.set_defaults(handler=run)


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


def prepare_imports(suite_path: Path) -> None:
    """Let suites name modules next to them or in the working directory (the CLI's own process)."""
    for directory in (str(Path.cwd()), str(suite_path.resolve().parent)):
        if directory not in sys.path:
            sys.path.insert(0, directory)


def default_out(suite: Suite, root: Path = Path("runs")) -> Path:
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    return root / f"{suite.name}-{stamp}"


def execute(
    suite: Suite, out: Path, options: BatchOptions, *, resume: bool, progress: bool, label: str
) -> BatchResult:
    """Run a batch with a progress display; explains how to resume when interrupted."""
    _quiet_litellm()
    with BatchProgress(enabled=progress, label=label) as bar:
        try:
            return asyncio.run(
                run_batch(suite, out, options, resume=resume, on_run=bar.update, on_start=bar.start)
            )
        except KeyboardInterrupt:
            print(
                f"\ninterrupted: finished runs are saved in {out}\n"
                f"resume with: trajguard run {suite.path} --resume {out}",
                file=sys.stderr,
            )
            raise


def _quiet_litellm() -> None:
    """Turn off litellm's "Give Feedback / Get Help" banner, printed on every provider error and
    retry (errors are recorded in the rows). This is the command line's own process, so the
    setting is ours to choose; the library itself never touches litellm's globals."""
    import os

    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    litellm.suppress_debug_info = True


def batch_options(args: argparse.Namespace, variants: list[str]) -> BatchOptions:
    """The batch options of run, nightly and ab, checked (``TrajguardError``, exit 2)."""
    from trajguard.capture.llm import model_problem

    for name, value in (("--runs", args.runs), ("--concurrency", args.concurrency)):
        if value is not None and value < 1:
            raise TrajguardError(f"{name} must be at least 1, got {value}")
    if args.timeout is not None and not (math.isfinite(args.timeout) and args.timeout > 0):
        raise TrajguardError(f"--timeout must be a number of seconds above 0, got {args.timeout}")
    if args.api_base is not None and args.model is None:
        raise TrajguardError(
            "--api-base is the endpoint of the model given with --model, and there is none",
            hint="pass --model too, or set api_base in the suite's defaults",
        )
    problem = model_problem(args.model, args.api_base) if args.model is not None else None
    if problem is not None:
        raise TrajguardError(f"--model {args.model!r}: {problem}")
    return BatchOptions(
        runs=args.runs,
        model=args.model,
        api_base=args.api_base,
        scenarios=tuple(dict.fromkeys(args.scenario)),
        variants=tuple(dict.fromkeys(variants)),
        seed=args.seed,
        concurrency=args.concurrency,
        timeout_s=args.timeout,
    )


def summary(result: BatchResult) -> str:
    counts = ", ".join(f"{n} {status}" for status, n in sorted(result.counts.items()))
    return (
        f"{result.planned - result.skipped} runs in {result.elapsed_s:.0f} s ({counts or 'none'}); "
        f"{result.passed} passed, {result.crashed} crashed → {result.runset}"
    )


def dry_run(suite: Suite, options: BatchOptions, out: Path | None) -> str:
    """The plan of a batch, without calling a model or writing anything."""
    plan = plan_batch(suite, options, batch_seed=options.seed or 0)
    runs = Counter((spec.scenario, spec.variant) for spec, _ in plan)
    arms = {(spec.scenario, spec.variant): arm for spec, arm in plan}
    scenarios = {scenario for scenario, _ in arms}
    lines = [
        f"suite {suite.name} ({suite.path}): {len(scenarios)} scenario(s) x "
        f"{len(options.variants)} variant(s) → {len(plan)} runs, "
        f"{options.concurrency or suite.defaults.concurrency} at a time",
        f"models: {', '.join(sorted({arm.model for arm in arms.values()}))}",
    ]
    for (scenario, variant), arm in arms.items():
        lines.append(
            f"  {scenario} / {variant}: {runs[scenario, variant]} runs, {arm.agent.kind} agent, "
            f"model {arm.model}, "
            f"timeout {arm.timeout_s:g} s, config {arm.config_hash()}"
        )
    if out is not None:
        check_new_runset(out)
        lines.append(f"run set: {out}")
    lines.append("dry run: no model was called and nothing was written")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    prepare_imports(args.suite)
    suite = load_suite(args.suite)
    variants = getattr(args, "variant", None) or [BASE_VARIANT]
    options = batch_options(args, variants)
    for scenario in options.scenarios or [s.id for s in suite.scenarios]:
        for variant in options.variants:
            suite.resolve(scenario, variant)
    if args.dry_run:
        if args.resume is not None:
            raise TrajguardError("--dry-run plans a new batch; it does not combine with --resume")
        print(dry_run(suite, options, args.out))
        return 0
    out = args.resume or args.out or default_out(suite)
    result = execute(
        suite,
        out,
        options,
        resume=args.resume is not None,
        progress=not args.no_progress,
        label=suite.name,
    )
    print(summary(result))
    return 0
