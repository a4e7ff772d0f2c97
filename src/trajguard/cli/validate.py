"""``trajguard validate FILE...``: check ATIF files (schema, rules N1 to N9) and suite files."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from trajguard.atif import load_trajectory, unknown_fields
from trajguard.errors import TrajguardError
from trajguard.normative import check_normative


def register(commands: Any) -> None:
    parser = commands.add_parser(
        "validate",
        help="check ATIF trajectory files (schema, rules N1-N9) and suite files",
        description=(
            "Check ATIF v1.0-v1.7 files, and suite files (.yaml / .yml) without running them. "
            "Exits 2 when any file is invalid."
        ),
    )
    parser.add_argument(
        "files", nargs="+", metavar="FILE", help="ATIF JSON files or suite YAML files"
    )
    parser.set_defaults(handler=run)


def _validate_suite(path: Path) -> bool:
    from trajguard.cli._common import prepare_imports  # only suites need the live-mode modules
    from trajguard.suite import load_suite

    prepare_imports(path)  # as `trajguard run` does: modules next to the suite are importable
    try:
        suite = load_suite(path)
    except TrajguardError as error:
        print(f"{error}", file=sys.stderr)
        return False
    variants = sorted({*suite.variants, *(v for s in suite.scenarios for v in s.variants)})
    print(
        f"{path}: valid suite {suite.name} ({len(suite.scenarios)} scenarios, "
        f"variants: {', '.join(variants) or 'none'})"
    )
    return True


def run(args: argparse.Namespace) -> int:
    invalid = 0
    for file in args.files:
        if file.endswith((".yaml", ".yml")):
            invalid += not _validate_suite(Path(file))
            continue
        try:
            # a Path, never a str: a file named "[ok].json" would be taken for JSON text
            trajectory = load_trajectory(Path(file))
        except TrajguardError as error:
            invalid += 1
            print(f"{error}", file=sys.stderr)
            continue
        violations = check_normative(trajectory)
        for path in unknown_fields(trajectory):
            print(f"{file}: {path}: note: field not in ATIF, kept as is")
        if violations:
            invalid += 1
            for violation in violations:
                print(f"{file}: {violation.path}: {violation.rule} {violation.message}")
        else:
            subagents = len(trajectory.subagent_trajectories or ())
            print(
                f"{file}: valid {trajectory.schema_version} "
                f"({len(trajectory.steps)} steps, {subagents} subagents)"
            )
    total = len(args.files)
    print(f"{total - invalid} of {total} files valid", file=sys.stderr if invalid else sys.stdout)
    return 2 if invalid else 0
