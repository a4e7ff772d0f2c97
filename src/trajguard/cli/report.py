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
        "--out",
        type=Path,
        metavar="PATH",
        help="write here (default: beside COMPARISON_JSON); with --format pr-comment, the file "
        "to write the comment to (default: print it)",
    )
    parser.add_argument(
        "--format",
        choices=("markdown", "pr-comment"),
        default="markdown",
        help="markdown: the report files; pr-comment: the pull-request comment (a hidden "
        "marker, the answer, the per-scenario table, the failing runs), for any CI",
    )
    parser.add_argument(
        "--page-url",
        metavar="URL",
        help="with --format pr-comment: where report.html is published; the comment links its "
        "failing runs into the page's run explorer",
    )
    parser.add_argument(
        "--key",
        default="trajguard",
        help="with --format pr-comment: the comment's key in its hidden marker (one comment per "
        "key and pull request)",
    )
    parser.add_argument("--junit", type=Path, metavar="PATH", help="also write JUnit XML here")
    parser.add_argument("--no-plots", action="store_true", help="skip the PNG plots")
    parser.add_argument(
        "--redraw",
        action="store_true",
        help="draw the PNG plots again (default: keep the ones beside COMPARISON_JSON, copied "
        "to --out; drawn only when one is missing)",
    )
    parser.add_argument(
        "--html",
        action="store_true",
        help="also write report.html, without its run explorer (that needs the run sets)",
    )
    parser.set_defaults(handler=main)


def main(args: argparse.Namespace) -> int:
    from trajguard import pipeline

    if args.format == "pr-comment":
        if args.junit or args.html or args.no_plots or args.redraw:
            from trajguard.errors import UsageError

            raise UsageError(
                "--junit, --html, --no-plots and --redraw render the report files, not the comment",
                hint="run `trajguard report` once per format",
            )
        text = pipeline.pr_comment_text(args.source, page_url=args.page_url, key=args.key)
        if args.out is None:
            print(text, end="")
        else:
            from trajguard._files import atomic_write_text
            from trajguard.errors import StoreError

            try:
                atomic_write_text(args.out, text)
            except OSError as error:
                raise StoreError(f"cannot write: {error.strerror}", file=args.out) from None
            print(f"wrote the pull-request comment to {args.out}")
        return 0
    if args.redraw and args.no_plots:
        from trajguard.errors import UsageError

        raise UsageError("--redraw draws the plots --no-plots skips", hint="pass one of them")
    done = pipeline.rerender(
        args.source,
        out=args.out,
        junit=args.junit,
        plots=not args.no_plots,
        html=args.html,
        redraw=args.redraw,
    )
    print(f"verdict: {done.document.comparison.verdict.value} → {done.report}")
    return 0
