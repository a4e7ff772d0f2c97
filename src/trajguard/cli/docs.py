"""``trajguard docs [NAME]``: print a document shipped with trajguard (its method, its design)."""

from __future__ import annotations

import argparse
from importlib import resources
from typing import Any

# Each page is generated from the documentation site's pages under docs/ by
# docs/gen/gen_reference.py (its SHIPPED table names the sources); edit those, not the copies.
DOCS = {
    "statistics": "how trajguard decides that behaviour changed: tests, verdicts, calibration",
    "architecture": "the packages, their layers, the data flow, where each kind of change goes",
    "comparison-json": "what comparison.json holds, its schema and versions, how to read it",
    "runs": "the runs behind a verdict: runs, show --run, export, diff, the criteria column",
    "report-html": "report.html: the forest plot, the run explorer, what it is rendered from",
    "nights": "the store of nights: its schema, trend's tests, pinned or rolling baselines, CI",
    "nightly": "run a nightly check: run, show, promote, compare, nightly, resume, failures",
    "ab": "compare two prompts: variants, trajguard ab, its answer",
    "frozen-mode": "golden trajectories in pytest: golden_trajectory, cassettes, normalisation",
    "frameworks": "any agent framework: the wire endpoint, ctx, what each framework needs",
    "command-agents": "agents that are programs: argv placeholders, environment, {output}",
    "ray": "batches on a Ray cluster: resources, agents on workers, the embedded model, faults",
    "chaos": "inject tool and model faults, the resilience criteria and metrics",
    "scenarios-from-data": "scenarios from JSONL, CSV or Parquet, tags, model-judged criteria",
    "ci": "the nightly GitHub Actions workflow, its artifacts, trajguard's own CI",
    "suite": "suite files: agents, variants, pass criteria, checks, every field",
    "runset": "run sets: their files, every Parquet column, statuses and error types",
    "atif": "ATIF conformance: what trajguard validate checks, as Harbor's validator",
    "limits": "what every reader refuses: sizes, depth, inflated size, rows, and the overrides",
    "tutorial": "from an empty folder to a nightly in CI with your own agent",
    "importing": "Inspect AI, promptfoo and Harbor logs as run sets: commands, field mappings",
}


NAME = "docs"
HELP = "print a document shipped with trajguard: its method, design, formats and stores"


def register(commands: Any) -> None:
    parser = commands.add_parser(
        NAME,
        help=HELP,
        description="Print a page of the documentation as shipped with this installation. "
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
