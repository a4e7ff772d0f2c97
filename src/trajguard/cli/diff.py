"""``trajguard diff A B``: two runs compared after normalisation; exit 1 when they differ."""

from __future__ import annotations

import argparse
from typing import Any

from trajguard._text import printable

NAME = "diff"
HELP = "compare two runs (ATIF files or RUNSET:RUN): shape deltas, steps aligned, text diff"


def register(commands: Any) -> None:
    parser = commands.add_parser(
        NAME,
        help=HELP,
        description="Normalise both runs (ids, timestamps, costs removed) and compare them as "
        "the frozen core does: shape deltas first (structure, tokens, content), then the steps "
        "aligned, then the unified diff of the normalised JSON. Exit 0 when they do not "
        "differ, 1 when they do, 2 for a bad argument.",
    )
    parser.add_argument("first", metavar="A", help="an ATIF file, or RUNSET:RUN")
    parser.add_argument("second", metavar="B", help="an ATIF file, or RUNSET:RUN")
    parser.add_argument(
        "--max-lines", type=int, default=120, metavar="N", help="text diff lines shown"
    )
    parser.set_defaults(handler=main)


def main(args: argparse.Namespace) -> int:
    from trajguard.runs import diff_runs

    result = diff_runs(args.first, args.second, max_lines=args.max_lines)
    if result.same:
        print("no difference after normalisation")
        return 0
    print("shape deltas:" if result.deltas else "shape deltas: none")
    for delta in result.deltas:
        print(f"  [{delta.kind}] {printable(delta)}")
    print(
        '\nsteps (A B): "  " both runs · "-" only A · "+" only B · "~" both, changed '
        "(A: and B: each run's version)"
    )
    for line in result.aligned:
        print(f"  {line}")
    if result.text:
        print("\nnormalised diff:")
        print(result.text, end="" if result.text.endswith("\n") else "\n")
    return 1
