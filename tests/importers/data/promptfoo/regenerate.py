"""Write the committed promptfoo fixtures again: both prompt variants, 10 repeats each, and
the eval of several columns (two prompts x two providers, 5 repeats).

Run from the repository root (after ``npm ci`` in tests/importers/promptfoo_env):
``python tests/importers/data/promptfoo/regenerate.py [variants] [columns]`` (default: both).
It starts trajguard's embedded model, points promptfoo's OpenAI provider at it
(OPENAI_BASE_URL) and writes variant_a.json and variant_b.json, or columns.json, here;
promptfoo writes nothing in the user's home (a temporary HOME). The committed files were
written by promptfoo 0.121.20 (pinned in promptfoo_env; each file's
``metadata.promptfooVersion``) on Node v20.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from trajguard.local_model import local_model_server

HERE = Path(__file__).resolve().parent
PROMPTFOO = HERE.parent.parent / "promptfoo_env" / "node_modules" / ".bin" / "promptfoo"


EVALS = {
    "variants": [
        [
            "-c", "promptfooconfig.yaml", "--prompts", f"file://prompt_{variant}.txt",
            "--repeat", "10", "--no-cache", "-j", "2", "-o", f"variant_{variant}.json",
        ]
        for variant in ("a", "b")
    ],
    "columns": [
        ["-c", "columns.yaml", "--repeat", "5", "--no-cache", "-j", "2", "-o", "columns.json"]
    ],
}  # fmt: skip


def main(names: list[str]) -> int:
    with local_model_server() as server, tempfile.TemporaryDirectory() as home:
        env = {
            "PATH": os.environ["PATH"],
            "HOME": home,
            "PROMPTFOO_CONFIG_DIR": str(Path(home) / ".promptfoo"),
            "PROMPTFOO_DISABLE_TELEMETRY": "1",
            "PROMPTFOO_DISABLE_UPDATE": "1",
            "PROMPTFOO_DISABLE_SHARING": "1",
            "OPENAI_BASE_URL": server.base_url,
        }
        for name in names or list(EVALS):
            for arguments in EVALS[name]:
                command = [str(PROMPTFOO), "eval", *arguments]
                print("+", " ".join(command), file=sys.stderr)
                # promptfoo exits 100 when a test case failed (PROMPTFOO_FAILED_TEST_EXIT_CODE)
                done = subprocess.run(command, cwd=HERE, env=env, check=False)
                if done.returncode not in (0, 100):
                    return done.returncode
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
