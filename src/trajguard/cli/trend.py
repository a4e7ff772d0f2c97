"""``trajguard trend STORE``: a suite's nights from the store of nights, scenario by scenario."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from trajguard._text import printable
from trajguard.cli._common import print_warnings

NAME = "trend"
HELP = "a suite's nights from the store of nights: pass rates, alarms, flaky, drift"


def register(commands: Any) -> None:
    parser = commands.add_parser(
        NAME,
        help=HELP,
        description="Read the nights `nightly --store` and `compare --store` kept in STORE (a "
        "directory or s3://BUCKET/PREFIX) and print, per scenario, its pass rate (crash rate, "
        "tool-mix distance from the baseline, tokens) night by night with 95% Wilson "
        "intervals; the alarms of a CUSUM per scenario and metric with one threshold for the "
        "suite (an unchanged suite false-alarms about once per 365 nights), each dated and "
        "worded (a step or a drift, a drop or a rise); scenarios flaky beyond binomial noise; "
        "the baseline's age and drift. "
        "The method: `trajguard docs nights`.",
    )
    parser.add_argument("store", metavar="STORE", help="the store of nights")
    parser.add_argument("--suite", help="the suite (default: the store's only suite)")
    parser.add_argument("--scenario", metavar="ID", help="only this scenario")
    parser.add_argument("--last", type=int, metavar="N", help="only the newest N nights")
    parser.add_argument(
        "--alpha",
        type=float,
        default=0.05,
        help="level of the flaky test (default %(default)s)",
    )
    parser.add_argument(
        "--fail-on-change",
        action="store_true",
        help="exit 5 when the newest night raised a harmful alarm (pass rate down, "
        "crash rate up); an alarm gates once, on the night it is raised",
    )
    parser.add_argument(
        "--json", action="store_true", help="print the trend as JSON (every night, every field)"
    )
    parser.add_argument(
        "--html",
        metavar="PATH",
        type=Path,
        help="also write the trend as one self-contained HTML page at PATH (every scenario's "
        "pass rate, crash rate, tool mix and tokens over the nights with intervals, the alarms, "
        "flaky scenarios, the baseline's promotions; each night linked to its report where that "
        "exists; no network requests)",
    )
    parser.add_argument(
        "--webhook",
        metavar="URL",
        help="POST the newest night's harmful alarms as JSON to this http(s) URL (nothing is "
        "sent without one; a failed POST is a warning, the exit code stays)",
    )
    parser.set_defaults(handler=main)


def main(args: argparse.Namespace) -> int:
    import sys

    from trajguard.nights import check_webhook, post_alarms, trend

    if args.webhook is not None:
        check_webhook(args.webhook)
    facts = trend(
        args.store, suite=args.suite, scenario=args.scenario, last=args.last, alpha=args.alpha
    )
    print_warnings([skipped.warning for skipped in facts.skipped])
    if args.html is not None:  # before the text: a page that cannot be written prints nothing
        from trajguard.pipeline import write_trend_page

        print(f"wrote {write_trend_page(facts, args.html)}", file=sys.stderr)
    if args.json:
        from trajguard.results import dumps

        print(dumps(facts), end="")
    else:
        from trajguard.report import render_trend

        print(printable(render_trend(facts), keep="\n"), end="")
    if args.webhook is not None:
        problem = post_alarms(args.webhook, facts)
        if problem is not None:
            print(f"warning: {problem}; the alarm was not delivered", file=sys.stderr)
    if args.fail_on_change and facts.alarmed_tonight:
        from trajguard.results import EXIT_ALARM

        return EXIT_ALARM
    return 0
