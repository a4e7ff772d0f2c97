"""Write the committed Harbor fixtures: real `harbor run` jobs against the embedded model.

Run from the repository root with trajguard's venv (it starts the embedded SmolLM2 server and
runs Harbor, in its own venv, as a subprocess):

    .venv/bin/python tests/importers/harbor_side/make_fixtures.py tests/importers/data/harbor

It writes four jobs (or only the jobs named after the folder, e.g. ``... timeouts``):
``terse`` and ``riddle`` (the two variants: two tasks x 10 attempts, one system prompt each),
``errors`` (three tasks that end in Harbor exceptions) and ``timeouts`` (three tasks x 4
attempts: ``capital``; ``late-capital``, where the agent writes its answer and trajectory, then
keeps working until Harbor's 20 s agent timeout stops it, so a timed-out trial carries the
verifier's reward; ``silent-capital``, where it writes no trajectory), then drops what the
importer does not read and what would only bloat the repository (trial logs, lock files, empty
artifact folders).

The committed jobs were written by Harbor 0.26.0 (PyPI ``harbor`` in ``.harbor-venv``, Python
3.12; each job's ``lock.json`` names it) against SmolLM2-135M-Instruct served by
``trajguard.local_model``; ``timeouts`` on 2026-12-03.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
HARBOR = REPO / ".harbor-venv" / "bin" / "harbor"
VARIANTS = {
    "terse": "Answer with one word.",
    "riddle": "You are a playful assistant. Never name the answer: reply with a short riddle.",
}
_DROP = ("trial.log", "job.log", "exception.txt")


TIMEOUT_KWARGS = ("linger=late-capital", "silent=silent-capital")
"""The agent kwargs of the ``timeouts`` job (answer_agent.py says what they do)."""


def harbor_run(
    tasks: Path,
    out: Path,
    name: str,
    *,
    base_url: str,
    style: str,
    attempts: int,
    kwargs: tuple[str, ...] = (),
) -> subprocess.CompletedProcess[str]:
    """``harbor run`` of the tasks in ``tasks`` with the answer agent and the chroot env."""
    command = [
        str(HARBOR), "run", "-p", str(tasks), "-o", str(out), "--job-name", name,
        "-a", "answer_agent:AnswerAgent", "-m", "openai/smollm2", "--ak", f"endpoint={base_url}",
        "--ak", f"style={style}", "-e", "chroot_env:ChrootEnvironment",
        "-k", str(attempts), "-n", "2", "-y", "-q",
        *(item for kwarg in kwargs for item in ("--ak", kwarg)),
    ]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(HERE), "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    return subprocess.run(
        command, cwd=HERE, env=env, capture_output=True, text=True, timeout=900, check=False
    )


def trim(job: Path) -> None:
    """Remove what the importer does not read (logs; the lock's copy of the config)."""
    for path in sorted(job.rglob("*"), reverse=True):
        if path.is_file() and (
            path.name in _DROP or (path.name == "lock.json" and path.parent != job)
        ):
            path.unlink()
        elif path.is_dir() and path.name == "artifacts":
            shutil.rmtree(path)


def main(out: Path, only: list[str]) -> int:
    from trajguard.local_model import local_model_server

    out = out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    jobs = [(HERE / "tasks", name, style, 10, ()) for name, style in VARIANTS.items()]
    jobs.append((HERE / "error-tasks", "errors", VARIANTS["terse"], 1, ()))
    jobs.append((HERE / "timeout-tasks", "timeouts", VARIANTS["terse"], 4, TIMEOUT_KWARGS))
    jobs = [job for job in jobs if not only or job[1] in only]
    with local_model_server() as server:
        for tasks, name, style, attempts, kwargs in jobs:
            shutil.rmtree(out / name, ignore_errors=True)
            done = harbor_run(
                tasks,
                out,
                name,
                base_url=server.base_url,
                style=style,
                attempts=attempts,
                kwargs=kwargs,
            )
            print(done.stdout[-2000:])
            if done.returncode != 0:
                print(done.stderr[-4000:], file=sys.stderr)
                return done.returncode
            trim(out / name)
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]), sys.argv[2:]))
