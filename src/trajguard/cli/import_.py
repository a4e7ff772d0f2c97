"""``trajguard import SOURCE LOG… --out RUNSET``: another tool's eval logs as a run set."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from trajguard._catalog import IMPORT_SOURCES
from trajguard._text import printable

NAME = "import"
HELP = "read Inspect AI, promptfoo or Harbor eval logs as a run set (then compare them)"


def register(commands: Any) -> None:
    parser = commands.add_parser(
        NAME,
        help=HELP,
        description="Write an ordinary run set from another tool's eval logs: "
        + "; ".join(f"{kind}: {what}" for kind, what in IMPORT_SOURCES.items())
        + ". show, runs, compare, baseline promote and the store of nights read it unchanged; "
        "what the logs do not record stays missing and the report says so. Field by field: "
        "docs/reference/import-<source>.md.",
    )
    parser.add_argument("source", choices=sorted(IMPORT_SOURCES), help="which tool wrote the logs")
    parser.add_argument("logs", type=Path, nargs="+", metavar="LOG", help="log files or folders")
    parser.add_argument(
        "--out", type=Path, required=True, metavar="RUNSET", help="the run set to write (new)"
    )
    parser.add_argument("--suite", help="the run set's suite name (default: the task or eval's)")
    parser.add_argument(
        "--variant",
        help="the variant every run gets (default: base); of a promptfoo eval of several "
        "prompt columns, the one column to import (default: each column a variant of its own)",
    )
    parser.add_argument(
        "--pass-if",
        metavar="RULE",
        help="how a score becomes a pass, overriding the source's rule: OP VALUE with OP one of "
        ">= > <= < == != (e.g. '>=0.5', '==C'), or 'in V1,V2'",
    )
    parser.add_argument(
        "--scorer",
        metavar="NAME",
        help="decide passed by this scorer or assertion alone, or one key of an Inspect dict "
        "scorer as SCORER/KEY (default: every one must hold)",
    )
    parser.set_defaults(handler=main)


def main(args: argparse.Namespace) -> int:
    from trajguard.importers import ImportOptions, headlines, import_logs

    options = ImportOptions(
        suite=args.suite, variant=args.variant, pass_rule=args.pass_if, scorer=args.scorer
    )
    result = import_logs(args.source, args.logs, args.out, options)
    batch = result.batch
    print(
        f"{len(batch.runs)} runs of {result.scenarios} scenarios imported from "
        f"{len(batch.files)} {args.source} log(s) into {printable(result.out)}"
    )
    if batch.pass_rule:
        print(f"passed: {batch.pass_rule}")
    for headline in headlines(batch):
        for line in headline.lines():
            print(printable(line))
    if batch.lacks:
        print(
            f"trajguard: note: the {args.source} logs do not record {', '.join(batch.lacks)}: "
            "those columns are empty",
            file=sys.stderr,
        )
    return 0
