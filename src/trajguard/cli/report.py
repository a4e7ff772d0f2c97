"""``trajguard report COMPARISON_JSON``: render a comparison's report again from its document."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

NAME = "report"
HELP = "render a report again from its comparison.json (no run sets needed)"


def register(commands: Any) -> None:
    parser = commands.add_parser(
        NAME,
        help=HELP,
        description="Render the report of a comparison.json again — report.md (ab.md for an "
        "A/B), its plots and, with --junit, JUnit XML — byte for byte what the comparison "
        "wrote, from the document alone. Its schema: comparison.schema.json in the package "
        "(`trajguard docs comparison-json`).",
    )
    parser.add_argument("source", type=Path, metavar="COMPARISON_JSON", help="comparison.json")
    parser.add_argument(
        "--out", type=Path, metavar="DIR", help="write here (default: beside COMPARISON_JSON)"
    )
    parser.add_argument("--junit", type=Path, metavar="PATH", help="also write JUnit XML here")
    parser.add_argument("--no-plots", action="store_true", help="skip the PNG plots")
    parser.add_argument(
        "--html",
        action="store_true",
        help="also write report.html, without its run explorer (that needs the run sets)",
    )
    parser.set_defaults(handler=main)


def main(args: argparse.Namespace) -> int:
    from trajguard import pipeline

    done = pipeline.rerender(
        args.source, out=args.out, junit=args.junit, plots=not args.no_plots, html=args.html
    )
    print(f"verdict: {done.document.comparison.verdict.value} → {done.report}")
    return 0
