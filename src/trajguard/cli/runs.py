"""``trajguard runs RUNSET``: one line per run, selected by the filters."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from trajguard._text import counted, json_safe, printable
from trajguard.cli._runs_options import add_filter_arguments, run_filter

if TYPE_CHECKING:
    from trajguard.runs import RunLine

NAME = "runs"
HELP = "list the runs of a run set (filter by scenario, outcome, failed criterion, sequence)"


def register(commands: Any) -> None:
    parser = commands.add_parser(
        NAME,
        help=HELP,
        description="One line per run: run id, index, status, passed, the criteria that "
        "failed, steps, tool sequence, tokens, duration. Open one with "
        "`trajguard show RUNSET --run ID`.",
    )
    add_filter_arguments(parser)
    parser.add_argument("--json", action="store_true", help="one JSON object per line")
    parser.set_defaults(handler=main)


def _cell(value: object) -> str:
    return "—" if value is None else str(value)


def main(args: argparse.Namespace) -> int:
    from trajguard.runs import list_runs

    lines = list_runs(args.runset, run_filter(args))
    try:
        return _print(args, lines)
    except BrokenPipeError:  # `trajguard runs RUNSET | head`: the reader has all it wants
        return 0


def _print(args: argparse.Namespace, lines: Sequence[RunLine]) -> int:
    out = sys.stdout
    if args.json:
        for line in lines:
            out.write(json_safe(json.dumps(asdict(line), ensure_ascii=False)) + "\n")
        return 0
    if not lines:
        from trajguard.runs import list_runs

        empty = not list_runs(args.runset)
        print("the run set holds no runs" if empty else "no run matches", file=sys.stderr)
        return 0
    for line in lines:
        passed = {True: "passed", False: "failed", None: "not judged"}[line.passed]
        failed = "; ".join(line.failed) if line.failed else "-"
        sequence = " > ".join(line.tool_sequence) if line.tool_sequence else "(no tools)"
        duration = "—" if line.duration_s is None else f"{line.duration_s:.1f}s"
        text = (
            f"{line.run_id}  #{line.run_index}  {line.status}  {passed}  failed: {failed}  "
            f"{_cell(line.steps)} steps  {sequence}  {_cell(line.total_tokens)} tokens  {duration}"
        )
        out.write(printable(text) + "\n")
    print(counted(len(lines), "run"), file=sys.stderr)
    return 0
