"""The ``trajguard`` command line: one module per command, each parsing its options, calling one
function of :mod:`trajguard.pipeline` (or the library) and printing what it returns.

Exit codes: 0 ok (no regression), 1 regression or a floor not met, 2 usage or input error,
3 infrastructure failure, 4 a blind night with ``--require-power``.
User errors are printed without a traceback.

Each command module imports what its command needs when it runs, not when its options are
registered: ``trajguard --help``, ``validate``, ``docs`` and every ``<command> --help`` start
without pandas, scipy, statsmodels, litellm, matplotlib or pyarrow
(``tests/cli/test_startup.py`` checks it).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence

from trajguard import __version__
from trajguard._text import printable
from trajguard.cli import (
    ab,
    baseline,
    compare,
    diff,
    docs,
    export,
    import_,
    nightly,
    plan,
    pr_comment,
    report,
    run,
    runs,
    show,
    trend,
    validate,
)
from trajguard.cli._exit import exit_now
from trajguard.errors import BatchInterrupted, TrajguardError

_COMMANDS = (
    run,
    compare,
    nightly,
    ab,
    report,
    pr_comment,
    plan,
    show,
    runs,
    trend,
    export,
    import_,
    diff,
    baseline,
    validate,
    docs,
)


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The argument parser with every subcommand registered, or, given ``command``, that one
    with its options and the others by name and help line only (enough for ``trajguard
    --help`` and for parsing ``command``'s arguments, and cheaper: registering a command's
    options can import what its help texts name)."""
    parser = argparse.ArgumentParser(
        prog="trajguard",
        description="Behavioural regression testing for LLM agents.",
    )
    parser.add_argument("--version", action="version", version=f"trajguard {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for module in _COMMANDS:
        if command is None or command == module.NAME:
            module.register(commands)
        else:
            commands.add_parser(module.NAME, help=module.HELP)
    return parser


def _command(argv: Sequence[str]) -> str:
    """The command ``argv`` names: its first word that is not an option (``trajguard``'s own
    options take no value), or "" when there is none."""
    return next((arg for arg in argv if not arg.startswith("-")), "")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    started = time.monotonic()
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(_command(argv))
    args = parser.parse_args(argv)
    args.command_started = started
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
    """Console-script entry point (and ``python -m trajguard.cli``): runs :func:`main`, then
    ends the process without the interpreter's module teardown (:mod:`trajguard.cli._exit`)."""
    exit_now(main())
