"""``trajguard baseline promote RUNSET``: make a run set the suite's committed baseline."""

from __future__ import annotations

import argparse
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from trajguard.errors import StoreError
from trajguard.live.store import copy_runset, read_manifest


def register(commands: Any) -> None:
    parser = commands.add_parser("baseline", help="manage committed baselines")
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    promote = actions.add_parser(
        "promote",
        help="copy a run set to baselines/<suite>/ with its provenance",
        description="Copy RUNSET's runs and manifest to baselines/<suite>/ (replacing the "
        "previous baseline atomically); the manifest records where it came from.",
    )
    promote.add_argument("runset", type=Path, metavar="RUNSET")
    promote.add_argument(
        "--baselines", type=Path, default=Path("baselines"), help="baselines root directory"
    )
    promote.set_defaults(handler=run_promote)


def run_promote(args: argparse.Namespace) -> int:
    manifest = read_manifest(args.runset)
    if manifest.get("status") != "finished":
        raise StoreError(
            "run set is not finished",
            file=args.runset,
            hint=f"finish it first: trajguard run SUITE --resume {args.runset}",
        )
    target = args.baselines / str(manifest["suite"])
    copy_runset(
        args.runset,
        target,
        manifest_updates={
            "promoted_from": str(args.runset),
            "promoted_at": datetime.now(UTC).isoformat(),
        },
    )
    print(f"baseline for suite {manifest['suite']!r} is now {target} (from {args.runset})")
    return 0
