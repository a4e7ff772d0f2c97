"""The ``trajguard`` command line: one module per command, each parsing its options, calling one
function of :mod:`trajguard.pipeline` (or the library) and printing what it returns.

Exit codes: 0 ok (no regression), 1 regression, 2 usage or input error, 3 infrastructure failure.
User errors are printed without a traceback.
"""

from __future__ import annotations

import argparse
import atexit
import os
import sys
from collections.abc import Sequence

from trajguard import __version__
from trajguard._text import printable
from trajguard._user_code import abandoned
from trajguard.cli import ab, baseline, compare, docs, nightly, plan, run, show, validate
from trajguard.errors import BatchInterrupted, TrajguardError

_COMMANDS = (run, compare, nightly, ab, plan, show, baseline, validate, docs)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand registered."""
    parser = argparse.ArgumentParser(
        prog="trajguard",
        description="Behavioural regression testing for LLM agents.",
    )
    parser.add_argument("--version", action="version", version=f"trajguard {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for module in _COMMANDS:
        module.register(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        code: int = args.handler(args)
    except BatchInterrupted as error:
        print(f"\n{printable(error, keep=chr(10))}", file=sys.stderr)
        return error.exit_code
    except TrajguardError as error:
        print(f"trajguard: error: {printable(error, keep=chr(10))}", file=sys.stderr)
        return error.exit_code
    except KeyboardInterrupt:
        print("trajguard: interrupted", file=sys.stderr)
        return 130
    return code


def entry() -> None:
    """Console-script entry point.

    When the user's code was left running (a thread past its deadline, a task that swallowed
    its cancellation), the process ends without the interpreter's teardown, which would run
    that code again (:mod:`trajguard._user_code`).
    """
    code = main()
    if abandoned():
        atexit._run_exitfuncs()  # what exit does first (the embedded model's server stops)
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    sys.exit(code)
