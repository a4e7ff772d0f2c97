"""``trajguard docs [NAME]``: print a document shipped with trajguard (its method, its design)."""

from __future__ import annotations

import argparse
from importlib import resources
from typing import Any

DOCS = {
    "statistics": "how trajguard decides that behaviour changed: tests, verdicts, calibration",
    "architecture": "the packages, their layers, the data flow, where each kind of change goes",
    "comparison-json": "what comparison.json holds, its schema and versions, how to read it",
    "runs": "the runs behind a verdict: runs, show --run, export, diff, the criteria column",
    "report-html": "report.html: the forest plot, the run explorer, what it is rendered from",
    "nights": "the store of nights: its schema, trend's tests, pinned or rolling baselines, CI",
}


NAME = "docs"
HELP = "print a document shipped with trajguard: its method, design, formats and stores"


def register(commands: Any) -> None:
    parser = commands.add_parser(
        NAME,
        help=HELP,
        description="Print docs/<NAME>.md as shipped with this installation. "
        + "; ".join(f"{name}: {what}" for name, what in DOCS.items())
        + ".",
    )
    parser.add_argument("name", nargs="?", choices=sorted(DOCS), help="which document")
    parser.set_defaults(handler=main)


def main(args: argparse.Namespace) -> int:
    if args.name is None:
        width = max(map(len, DOCS))
        for name, what in DOCS.items():
            print(f"trajguard docs {name:<{width}} {what}")
        return 0
    print(resources.files("trajguard").joinpath("docs", f"{args.name}.md").read_text("utf-8"))
    return 0
