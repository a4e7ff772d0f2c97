"""``trajguard baseline promote RUNSET``: make a run set the suite's committed baseline."""

from __future__ import annotations

import argparse
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from trajguard.errors import StoreError
from trajguard.live.store import MANIFEST_FILE, arm_counts, copy_runset, read_manifest


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
    promote.add_argument(
        "--force",
        action="store_true",
        help="replace the baseline even with fewer scenarios, variants or runs than it has",
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
    if not args.force:
        _refuse_to_shrink(args.runset, target)
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


def _refuse_to_shrink(runset: Path, target: Path) -> None:
    """Refuse to replace a baseline by a run set that covers less of the suite than it does."""
    if not target.exists():
        return
    if not target.is_dir():
        raise StoreError(
            "the baseline path is a file, not a run set directory",
            file=target,
            hint="remove the file, or pass another --baselines directory",
        )
    if not (target / MANIFEST_FILE).exists():
        if any(target.iterdir()):
            raise StoreError(
                "the baseline directory is not a run set (no manifest.json); promoting would "
                "replace what is in it",
                file=target,
                hint="pass --force to replace it, or another --baselines directory",
            )
        return
    old, new = arm_counts(target), arm_counts(runset)
    losses = [
        f"{what} {', '.join(sorted(missing))} (in the baseline, not in {runset})"
        for what, missing in (
            ("scenario(s)", {s for s, _ in old} - {s for s, _ in new}),
            ("variant(s)", {v for _, v in old} - {v for _, v in new}),
        )
        if missing
    ]
    fewer = [
        f"{s}/{v}: {new.get((s, v), 0)} < {n}"
        for (s, v), n in old.items()
        if new.get((s, v), 0) < n
    ]
    if fewer:
        losses.append(f"fewer runs for {'; '.join(sorted(fewer))}")
    if losses:
        raise StoreError(
            "the run set covers less than the baseline it would replace: " + "; ".join(losses),
            file=target,
            hint="pass --force to replace it anyway",
        )
