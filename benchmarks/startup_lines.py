"""When each start-up line of a command reaches the terminal (issue 27).

Runs a command (by default a first ``trajguard run`` of the demo suite) with its stderr on a
pipe, and prints every piece of stderr it writes with the seconds since the command was
launched (``⏎`` where a piece ends its line), then its stdout and wall time. A start-up line is
written in two pieces ("…" when a step begins, its time when it ends), so the output shows how
long each line stood unfinished, and how long the process ran before its first line (the
interpreter and ``trajguard.cli``'s import, which the summary's clock does not see).

    python benchmarks/startup_lines.py -- .venv/bin/trajguard run suites/demo.yaml --runs 3 \\
        --no-progress --out /tmp/fresh-run
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", nargs="+", help="the command to run (after --)")
    args = parser.parse_args()
    launched = time.monotonic()
    process = subprocess.Popen(  # the caller's own argv, no shell
        args.command, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert process.stderr is not None
    assert process.stdout is not None
    while chunk := os.read(process.stderr.fileno(), 65536):
        now = time.monotonic() - launched
        for piece in chunk.decode("utf-8", "replace").splitlines(keepends=True):
            ends = "⏎" if piece.endswith("\n") else ""
            print(f"{now:7.1f} s  {piece.rstrip(chr(10))}{ends}")
    out = process.stdout.read().decode("utf-8", "replace")
    code = process.wait()
    wall = time.monotonic() - launched
    print(f"stdout: {out.strip()}")
    print(f"exit {code}; wall {wall:.1f} s")
    return 0 if code == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
