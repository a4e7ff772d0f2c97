"""What a command line imports: ``python -m trajguard.cli ARGS`` in a fresh process of this
Python, through a wrapper that writes ``sorted(sys.modules)`` to a file when the process exits
(the command line ends its process after running the atexit handlers)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import trajguard

# argv[1]: the file to write; the rest: the command's arguments.
WRAPPER = """
import atexit, json, runpy, sys
record, sys.argv = sys.argv[1], ["trajguard", *sys.argv[2:]]

def dump():
    with open(record, "w", encoding="utf-8") as file:
        json.dump(sorted(sys.modules), file)

atexit.register(dump)
runpy.run_module("trajguard.cli", run_name="__main__", alter_sys=True)
"""


def command_imports(cwd: Path, *args: str) -> dict[str, Any]:
    """The exit code, output and imported modules of ``trajguard ARGS`` run in ``cwd``."""
    record = cwd / "modules.json"
    env = dict(os.environ)
    source = str(Path(trajguard.__file__).resolve().parents[1])  # the trajguard under test
    env["PYTHONPATH"] = os.pathsep.join([source, env.get("PYTHONPATH", "")])
    env.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    result = subprocess.run(
        [sys.executable, "-c", WRAPPER, str(record), *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    return {
        "code": result.returncode,
        "modules": json.loads(record.read_text(encoding="utf-8")),
        "stdout": result.stdout,
        "stderr": result.stderr,
    }
