"""``trajguard baseline promote RUNSET``: make a run set the suite's committed baseline."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from trajguard._catalog import DEFAULT_KEEP
from trajguard._text import printable
from trajguard.errors import UsageError

NAME = "baseline"
HELP = "manage committed baselines"


def register(commands: Any) -> None:
    parser = commands.add_parser(NAME, help=HELP)
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    promote = actions.add_parser(
        "promote",
        help="copy a run set to baselines/<suite>/ with its provenance",
        description="Copy RUNSET's runs and manifest to baselines/<suite>/ (replacing the "
        "previous baseline atomically; the batches promoted before it are kept under "
        "baselines/<suite>/history/, up to --keep in all, and compare pools them); the manifest "
        "records where it came from.",
    )
    promote.add_argument(
        "runset", type=Path, metavar="RUNSET", nargs="?", help="the run set (or --from-store)"
    )
    promote.add_argument(
        "--from-store",
        metavar="STORE",
        help="promote a night kept in this store of nights (its run set must be on this "
        "machine); the baseline is pinned (an anchor for --promote-if-clean's guard)",
    )
    promote.add_argument("--night", metavar="DATE", help="with --from-store: the night's date")
    promote.add_argument(
        "--night-id", metavar="ID", help="with --from-store: the night's id (several on a date)"
    )
    promote.add_argument("--suite", help="with --from-store: the suite (several in the store)")
    promote.add_argument(
        "--baselines", type=Path, default=Path("baselines"), help="baselines root directory"
    )
    promote.add_argument(
        "--force",
        action="store_true",
        help="replace the baseline even with fewer scenarios, variants or runs than it has",
    )
    promote.add_argument(
        "--keep",
        type=int,
        default=DEFAULT_KEEP,
        metavar="K",
        help="promoted batches to keep, this one included (default %(default)s; 1 keeps no "
        "history)",
    )
    promote.set_defaults(handler=main_promote)


def main_promote(args: argparse.Namespace) -> int:
    if args.keep < 1:
        raise UsageError(f"--keep must be at least 1 (the new baseline itself), got {args.keep}")
    if (args.runset is None) == (args.from_store is None):
        raise UsageError("pass either RUNSET or --from-store STORE --night DATE")
    if args.from_store is not None and args.night is None:
        raise UsageError("--from-store needs --night DATE (the night's date, YYYY-MM-DD)")
    from trajguard import pipeline
    from trajguard.store import history_entries

    if args.from_store is not None:
        target, source = pipeline.promote_from_store(
            args.from_store,
            date=args.night,
            night_id=args.night_id,
            suite=args.suite,
            baselines=args.baselines,
            force=args.force,
            keep=args.keep,
        )
        args.runset = Path(source)
    else:
        target = pipeline.promote(
            args.runset, baselines=args.baselines, force=args.force, keep=args.keep
        )
    suite = target.name
    kept = len(history_entries(target))
    print(
        printable(
            f"baseline for suite {suite!r} is now {target} (from {args.runset}); "
            f"{kept} earlier batch(es) kept in its history"
        )
    )
    return 0
