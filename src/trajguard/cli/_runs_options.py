"""The options ``runs`` and ``export`` share: which runs of a run set to take."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from trajguard.runs import RunFilter

__all__ = ["add_filter_arguments", "run_filter"]


def add_filter_arguments(parser: argparse.ArgumentParser) -> None:
    """RUNSET and the filters: scenario, variant, status, outcome, criterion, sequence, limit."""
    parser.add_argument("runset", type=Path, metavar="RUNSET", help="a run set directory")
    parser.add_argument("--scenario", metavar="ID", help="only this scenario")
    parser.add_argument("--variant", metavar="V", help="only this variant")
    parser.add_argument(
        "--status",
        metavar="S",
        help="only runs of this status (ok, crash, agent_error, timeout, harness_error)",
    )
    outcome = parser.add_mutually_exclusive_group()
    outcome.add_argument("--passed", action="store_true", help="only runs that passed")
    outcome.add_argument(
        "--failed", action="store_true", help="only judged runs that failed (crashes included)"
    )
    parser.add_argument(
        "--criterion",
        metavar="NAME",
        help="only runs that failed this criterion, by label ('tool_not_called: get_weather') "
        "or kind ('tool_not_called'; 'no crash' for runs that did not end normally)",
    )
    parser.add_argument(
        "--sequence",
        metavar='"A > B"',
        help="only runs whose tool sequence is exactly this ('' for no tool call)",
    )
    parser.add_argument("--limit", type=int, metavar="N", help="at most N runs")


def run_filter(args: argparse.Namespace) -> RunFilter:
    """The :class:`~trajguard.runs.RunFilter` the options describe."""
    from trajguard.runs import RunFilter, parse_sequence

    return RunFilter(
        scenario=args.scenario,
        variant=args.variant,
        status=args.status,
        passed=True if args.passed else False if args.failed else None,
        criterion=args.criterion,
        sequence=None if args.sequence is None else parse_sequence(args.sequence),
        limit=args.limit,
    )
