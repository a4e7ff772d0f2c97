"""Write what the command line says without running a model: the top-level ``--help``, each
command's ``--help`` and ``validate`` of every committed suite, one file each, with the exit code.

Run it from two checkouts and ``diff -r`` the folders to see what a change did to the text::

    PYTHONPATH=/path/to/old/src python benchmarks/cli_text_snapshot.py --out /tmp/cli-old
    PYTHONPATH=src python benchmarks/cli_text_snapshot.py --out /tmp/cli-new
    diff -r /tmp/cli-old /tmp/cli-new
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _say(args: list[str]) -> str:
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    done = subprocess.run(
        [sys.executable, "-m", "trajguard.cli", *args],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    return done.stdout + done.stderr + f"exit {done.returncode}\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    out = parser.parse_args().out
    out.mkdir(parents=True, exist_ok=True)
    top = _say(["--help"])
    (out / "help.txt").write_text(top, encoding="utf-8")
    commands = sorted(set(re.findall(r"^    ([a-z][a-z-]*)", top, flags=re.M)))
    for command in commands:
        (out / f"help-{command}.txt").write_text(_say([command, "--help"]), encoding="utf-8")
    suites = sorted((REPO / "suites").glob("*.yaml"))
    for suite in suites:
        said = _say(["validate", str(suite.relative_to(REPO))])
        (out / f"validate-{suite.name}.txt").write_text(said, encoding="utf-8")
    print(f"{1 + len(commands)} help texts and {len(suites)} validations in {out}")


if __name__ == "__main__":
    main()
