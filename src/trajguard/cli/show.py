"""``trajguard show RUNSET|TRAJECTORY [--run RUN]``: what a batch (or one run) did."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trajguard._text import counted, printable

if TYPE_CHECKING:
    from trajguard.report import ArmSummary


NAME = "show"
HELP = "summarise a run set per scenario, or one trajectory file"


def register(commands: Any) -> None:
    parser = commands.add_parser(
        NAME,
        help=HELP,
        description="Per scenario: pass rate, crash rate, median steps, top tool sequences, "
        "median tokens, and the most common errors. With --run, one run as a person reads it. "
        "Given an ATIF file instead, print its shape.",
    )
    parser.add_argument(
        "target",
        type=Path,
        metavar="RUNSET|TRAJECTORY",
        help="a run set directory (or its runs.parquet), or an ATIF file",
    )
    parser.add_argument("--top", type=int, default=3, help="tool sequences to list per scenario")
    parser.add_argument(
        "--run",
        metavar="RUN",
        help="show this one run of the run set (its id, or scenario/variant/index): its steps, "
        "final output, criteria, faults and whole error",
    )
    parser.set_defaults(handler=main)


def _sequence(seq: tuple[str, ...]) -> str:
    return " → ".join(printable(tool) for tool in seq) if seq else "(no tools)"


def _percent(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.0f}%"


def _row(arm: ArmSummary) -> list[str]:
    from rich.markup import escape

    sequences = "\n".join(f"{n}× {_sequence(seq)}" for seq, n in arm.top_sequences)
    statuses = ", ".join(f"{n} {s}" for s, n in sorted(arm.statuses.items()))
    cells = [
        printable(arm.scenario),
        printable(arm.variant),
        f"{arm.runs} ({statuses})",
        f"{_percent(arm.pass_rate)} ({arm.passed}/{arm.judged})",
        _percent(arm.crash_rate),
        "—" if arm.median_steps is None else f"{arm.median_steps:g}",
        f"{sequences}\n({arm.distinct_sequences} distinct)",
        "—" if arm.median_tokens is None else f"{arm.median_tokens:.0f}",
    ]
    # tool names come from a model, names from a run set: never markup, never a raw control
    return [escape(cell) for cell in cells]


def _shown(value: object) -> str:
    """A manifest value as text: a list joined, control characters escaped, never markup."""
    from rich.markup import escape

    if isinstance(value, list | tuple):
        return escape(", ".join(printable(item) for item in value))
    return escape(printable(value))


def _show_run(args: argparse.Namespace) -> int:
    from trajguard.errors import UsageError
    from trajguard.runs import read_run, render_run

    if args.target.is_file():
        raise UsageError(
            "--run names a run of a run set, but the target is a file",
            file=args.target,
            hint="pass the run set directory: trajguard show RUNSET --run ID",
        )
    sys.stdout.write(render_run(read_run(args.target, args.run)) + "\n")
    return 0


def main(args: argparse.Namespace) -> int:
    if args.run is not None:
        return _show_run(args)
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    from trajguard import pipeline

    console = Console(width=max(Console().width, 140))
    view = pipeline.show(args.target, top=args.top)
    if not isinstance(view, pipeline.RunSetView):
        console.print(view)  # a Shape, pretty-printed (markup applies only to strings)
        return 0
    manifest = view.runset.manifest
    console.print(
        f"[bold]{_shown(manifest.get('suite'))}[/bold] · {counted(len(view.runset.runs), 'run')} · "
        f"models {_shown(manifest.get('models', []))} · started "
        f"{_shown(manifest.get('started_at'))} · {_shown(manifest.get('status'))}"
    )
    if view.runset.runs.empty:
        print(
            f"trajguard: warning: {printable(args.target)} holds no runs (its manifest says "
            f"status '{printable(manifest.get('status'))}'): nothing to summarise",
            file=sys.stderr,
        )
        return 0
    table = Table(show_lines=True)
    for column in (
        "scenario",
        "variant",
        "runs",
        "pass",
        "crash",
        "median steps",
        "top tool sequences",
        "median tokens",
    ):
        table.add_column(column)
    for arm in view.arms:
        table.add_row(*_row(arm))
    console.print(table)
    if view.errors:
        console.print("[bold]most common errors[/bold]")
    for (scenario, variant), errors in view.errors.items():
        for error in errors:
            line = f"  {scenario} / {variant}: {error.runs}× {error.summary(args.target)}"
            console.print(escape(printable(line)), soft_wrap=True)
    return 0
