"""``trajguard validate FILE...``: check ATIF files (as Harbor does, plus rules N1 to N11) and
suite files."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trajguard._text import counted, printable
from trajguard.errors import TrajguardError

if TYPE_CHECKING:
    from trajguard.atif import ValidationReport


NAME = "validate"
HELP = "check ATIF trajectory files (as Harbor's validator, plus rules N1-N11) and suites"


def register(commands: Any) -> None:
    from trajguard.atif import ATIF_VERSION, SUPPORTED_VERSIONS  # only when validate is run

    parser = commands.add_parser(
        NAME,
        help=HELP,
        description=(
            f"Check ATIF {SUPPORTED_VERSIONS[0]} to {ATIF_VERSION} files the way Harbor's "
            "validator does (structure, fields outside the schema, the rules the spec states "
            "with MUST), and suite files (.yaml / .yml) without running them. Rules the spec "
            "states without a MUST are warnings. Exits 2 when any file is invalid."
        ),
    )
    parser.add_argument(
        "files", nargs="+", metavar="FILE", help="ATIF JSON files or suite YAML files"
    )
    parser.add_argument(
        "--strict", action="store_true", help="treat warnings as errors (exit 2 on a warning)"
    )
    parser.set_defaults(handler=run)


def _validate_suite(path: Path) -> bool:
    from trajguard.cli._common import prepare_imports  # only suites need the live-mode modules
    from trajguard.suite import judge_advice, load_suite

    prepare_imports(path)  # as `trajguard run` does: modules next to the suite are importable
    try:
        suite = load_suite(path)
    except TrajguardError as error:
        print(printable(error, keep="\n"), file=sys.stderr)
        return False
    variants = sorted({*suite.variants, *(v for s in suite.scenarios for v in s.variants)})
    print(
        f"{path}: valid suite {suite.name} ({counted(len(suite.scenarios), 'scenario')}, "
        f"variants: {', '.join(variants) or 'none'})"
    )
    for advice in judge_advice(suite):
        print(printable(f"{path}: note: {advice}"))
    return True


def _print_report(name: str, report: ValidationReport) -> None:
    if report.load_error is not None:
        print(printable(report.load_error, keep="\n"), file=sys.stderr)
        return
    for finding in (*report.errors, *report.warnings):
        line = f"{name}: {finding.path}: {finding.severity} {finding.rule}: {finding.message}"
        print(printable(line))
    warned = f", {counted(len(report.warnings), 'warning')}" if report.warnings else ""
    if report.valid:
        print(
            f"{name}: valid {report.schema_version} "
            f"({counted(report.steps, 'step')}, {counted(report.subagents, 'subagent')}{warned})"
        )
    else:
        errors = len(report.errors)
        print(f"{name}: {errors} error{'s' * (errors != 1)} ({report.schema_version}{warned})")


def run(args: argparse.Namespace) -> int:
    from trajguard.atif import validate

    invalid = 0
    for file in args.files:
        if file.endswith((".yaml", ".yml")):
            invalid += not _validate_suite(Path(file))
            continue
        # a Path, never a str: a file named "[ok].json" would be taken for JSON text
        report = validate(Path(file), strict=args.strict)
        _print_report(file, report)
        invalid += not report.valid
    total = len(args.files)
    print(
        f"{total - invalid} of {counted(total, 'file')} valid",
        file=sys.stderr if invalid else sys.stdout,
    )
    return 2 if invalid else 0
