"""``trajguard ab SUITE --variant A --variant B``: did this change help?"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from trajguard.cli.compare import command_line
from trajguard.cli.nightly import append_step_summary, report_dir
from trajguard.cli.run import add_batch_arguments, batch_options, execute, prepare_imports
from trajguard.errors import TrajguardError
from trajguard.live.suite import load_suite


def register(commands: Any) -> None:
    parser = commands.add_parser(
        "ab",
        help="run two variants interleaved and answer: helped / hurt / no detectable difference",
        description="Run both variants of every scenario that has them, interleaved in one "
        "session, and compare them per scenario and overall (stratified by scenario), two-sided. "
        "Use `base` for a scenario without overrides. Exit code 0 whatever the answer.",
    )
    add_batch_arguments(parser)
    parser.add_argument(
        "--variant",
        action="append",
        default=[],
        metavar="NAME",
        required=True,
        help="give exactly twice: A (the reference) then B",
    )
    parser.add_argument("--reports", type=Path, default=Path("reports"), help="reports root")
    parser.add_argument("--alpha", type=float, default=0.05, help="level of the tests")
    parser.add_argument("--no-plots", action="store_true", help="skip the PNG plots")
    parser.add_argument(
        "--sequential",
        action="store_true",
        help="run in up to three looks and stop when the answer is clear",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from trajguard.live.ab import compare_ab
    from trajguard.live.ab_report import render_ab_report
    from trajguard.live.reporting import load_side, write_text
    from trajguard.live.results import CompareConfig

    if len(args.variant) != 2 or args.variant[0] == args.variant[1]:
        raise TrajguardError(
            "give --variant exactly twice, with two different names",
            hint="e.g. trajguard ab suites/demo.yaml --variant base --variant terse",
        )
    prepare_imports(args.suite)
    suite = load_suite(args.suite)
    a, b = args.variant
    scenarios = list(args.scenario) or [
        s.id for s in suite.scenarios if {a, b} <= {"base", *s.variants, *suite.variants}
    ]
    if not scenarios:
        raise TrajguardError(
            f"no scenario of suite {suite.name!r} has both variants {a!r} and {b!r}",
            hint="define the variants in the suite file",
        )
    args.scenario = scenarios
    options = batch_options(args, [a, b])
    folder = report_dir(args.reports, suffix=f"-ab-{a}-{b}")
    runset = folder / "runs"
    config = CompareConfig(alpha=args.alpha, two_sided=True)
    extra: tuple[str, ...] = ()
    if args.sequential:
        from trajguard.cli.sequential import run_sequential_ab

        extra = (
            run_sequential_ab(
                suite,
                runset,
                options,
                variants=(a, b),
                config=config,
                progress=not args.no_progress,
            ),
        )
    else:
        execute(
            suite,
            runset,
            options,
            resume=False,
            progress=not args.no_progress,
            label=f"{suite.name} {a} vs {b}",
        )
    side = load_side(runset)
    result = compare_ab(side.runs, a, b, config=config)
    links: dict[str, str] = {}
    if not args.no_plots:
        from trajguard.live.plots import write_plots

        frame = side.runs
        links = write_plots(
            folder, frame[frame["variant"] == a], frame[frame["variant"] == b], scenarios
        )
    report = folder / "ab.md"
    write_text(
        report,
        render_ab_report(
            result, runs=side, plots=links, command=command_line(), extra_sections=extra
        ),
    )
    append_step_summary(report.read_text(encoding="utf-8"))
    print(f"{b} {result.answer.value} compared with {a} → {report}")
    print(result.summary)
    return 0
