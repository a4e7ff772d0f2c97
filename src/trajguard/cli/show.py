"""``trajguard show RUNSET|TRAJECTORY``: what a batch (or one run) did."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from trajguard.atif import load_trajectory
from trajguard.core.shape import shape
from trajguard.errors import StoreError
from trajguard.live.store import MANIFEST_FILE, read_manifest, read_runs
from trajguard.live.summary import ArmSummary, summarize


def register(commands: Any) -> None:
    parser = commands.add_parser(
        "show",
        help="summarise a run set per scenario, or one trajectory file",
        description="Per scenario: pass rate, crash rate, median steps, top tool sequences, "
        "median tokens. Given an ATIF file instead, print its shape.",
    )
    parser.add_argument(
        "target",
        type=Path,
        metavar="RUNSET|TRAJECTORY",
        help="a run set directory (or its runs.parquet), or an ATIF file",
    )
    parser.add_argument("--top", type=int, default=3, help="tool sequences to list per scenario")
    parser.set_defaults(handler=run)


def _sequence(seq: tuple[str, ...]) -> str:
    return " → ".join(seq) if seq else "(no tools)"


def _percent(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.0f}%"


def _row(arm: ArmSummary) -> list[str]:
    sequences = "\n".join(f"{n}× {_sequence(seq)}" for seq, n in arm.top_sequences)
    statuses = ", ".join(f"{n} {s}" for s, n in sorted(arm.statuses.items()))
    return [
        arm.scenario,
        arm.variant,
        f"{arm.runs} ({statuses})",
        f"{_percent(arm.pass_rate)} ({arm.passed}/{arm.judged})",
        _percent(arm.crash_rate),
        "—" if arm.median_steps is None else f"{arm.median_steps:g}",
        f"{sequences}\n({arm.distinct_sequences} distinct)",
        "—" if arm.median_tokens is None else f"{arm.median_tokens:.0f}",
    ]


def _runset_of_parquet(path: Path) -> Path:
    """The run set a Parquet file belongs to (``RUNSET/runs.parquet``, ``RUNSET/parts/x``)."""
    for folder in (path.parent, path.parent.parent):
        if (folder / MANIFEST_FILE).is_file():
            return folder
    raise StoreError(
        "a Parquet file outside a run set",
        file=path,
        hint="pass the run set directory (the one holding manifest.json), or read the file "
        "with pandas: pd.read_parquet(PATH)",
    )


def run(args: argparse.Namespace) -> int:
    console = Console(width=max(Console().width, 140))
    target: Path = args.target
    if target.is_file() and target.suffix == ".parquet":
        target = _runset_of_parquet(target)
    elif target.is_file():
        console.print(shape(load_trajectory(target)))
        return 0
    manifest = read_manifest(target)
    runs = read_runs(target)
    console.print(
        f"[bold]{manifest.get('suite')}[/bold] · {len(runs)} runs · models "
        f"{', '.join(manifest.get('models', []))} · started {manifest.get('started_at')} · "
        f"{manifest.get('status')}"
    )
    table = Table(show_lines=True)
    for column in (
        "scenario",
        "variant",
        "runs",
        "pass",
        "crash",
        "median steps",
        "top tool sequences",
        "median tokens",
    ):
        table.add_column(column)
    for arm in summarize(runs, top=args.top):
        table.add_row(*_row(arm))
    console.print(table)
    return 0
