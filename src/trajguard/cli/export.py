"""``trajguard export RUNSET --out DIR``: one ATIF file per run."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from trajguard._text import printable
from trajguard.cli._runs_options import add_filter_arguments, run_filter

NAME = "export"
HELP = "write runs of a run set as ATIF files, one per run"


def register(commands: Any) -> None:
    parser = commands.add_parser(
        NAME,
        help=HELP,
        description="One ATIF JSON file per selected run, named "
        "<scenario>__<variant>__<index>.json, written atomically inside --out only.",
    )
    add_filter_arguments(parser)
    parser.add_argument("--out", type=Path, required=True, metavar="DIR", help="where to write")
    parser.set_defaults(handler=main)


def main(args: argparse.Namespace) -> int:
    from trajguard.runs import export_runs

    result = export_runs(args.runset, args.out, run_filter(args))
    print(f"{len(result.written)} ATIF files written to {printable(result.out)}")
    if result.without_trajectory:
        shown = ", ".join(printable(r) for r in result.without_trajectory[:5])
        more = len(result.without_trajectory) - 5
        print(
            f"trajguard: warning: {len(result.without_trajectory)} selected runs store no "
            f"trajectory (harness errors, or imported runs), so no file: {shown}"
            + (f" and {more} more" if more > 0 else ""),
            file=sys.stderr,
        )
    return 0
