"""Kill `trajguard run` at random moments, resume it, and count what was lost or duplicated.

Each trial starts a batch of a suite of fast command agents (a Python script that writes an
ATIF file; no model, so a batch takes seconds), sends SIGKILL or SIGINT after a random delay —
uniform over the time an uninterrupted batch takes, so from the start-up to the final
compaction — and then runs `trajguard run --resume`
until the batch is finished. It checks: every planned run is in the run set exactly once, with
the seed the plan derives for it; no temp file is left anywhere in the run set; the manifest says
finished; every run is `ok`.

    python benchmarks/kill_trials.py [--trials 30] [--runs 40] [--seed 0]
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from trajguard import store
from trajguard.runner import derive_seed

AGENT = """
import json, os, sys
out = sys.argv[1]
trajectory = {
    "schema_version": "ATIF-v1.8",
    "agent": {"name": "fast", "version": "1"},
    "steps": [
        {"step_id": 1, "source": "user", "message": os.environ["TRAJGUARD_INPUT"]},
        {"step_id": 2, "source": "agent", "message": "seed " + os.environ["TRAJGUARD_SEED"],
         "metrics": {"prompt_tokens": 10, "completion_tokens": 2}},
    ],
}
with open(out, "w") as handle:
    json.dump(trajectory, handle)
"""

SUITE = """
name: killable
defaults: {{runs: {runs}, concurrency: 2, timeout_s: 60}}
scenarios:
  - id: one
    agent: {{kind: command, argv: [{python}, agent.py, "{{output}}"], uses_model: false}}
    input: first
  - id: two
    agent: {{kind: command, argv: [{python}, agent.py, "{{output}}"], uses_model: false}}
    input: second
"""

# Ctrl-C reaches the batch as in a terminal even when this script runs in the background (a
# shell's background job ignores SIGINT, and its children inherit that).
TRAJGUARD = [
    sys.executable,
    "-c",
    "import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
    "sys.argv[0] = 'trajguard'; from trajguard.cli import entry; entry()",
]


def _leftovers(runset: Path) -> list[str]:
    return [str(p.relative_to(runset)) for p in runset.rglob("*.tmp")]


def _project(root: Path, runs: int) -> None:
    (root / "agent.py").write_text(AGENT)
    (root / "suite.yaml").write_text(SUITE.format(runs=runs, python=sys.executable))


def batch_seconds(runs: int) -> float:
    """How long an uninterrupted batch takes here, start-up and compaction included."""
    with tempfile.TemporaryDirectory() as folder:
        _project(Path(folder), runs)
        started = time.monotonic()
        subprocess.run(
            [*TRAJGUARD, "run", "suite.yaml", "--out", "rs", "--no-progress"],
            cwd=folder,
            check=True,
            capture_output=True,
            timeout=600,
        )
        return time.monotonic() - started


def trial(
    root: Path, runs: int, rng: random.Random, how: signal.Signals, span_s: float
) -> dict[str, object]:
    _project(root, runs)
    seed = rng.randrange(1 << 30)
    started = time.monotonic()
    process = subprocess.Popen(
        [*TRAJGUARD, "run", "suite.yaml", "--out", "rs", "--seed", str(seed), "--no-progress"],
        cwd=root,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    delay = rng.uniform(0.0, span_s)
    try:
        process.wait(timeout=delay)
        killed_at = "after it finished"
    except subprocess.TimeoutExpired:
        os.kill(process.pid, how)
        process.wait()
        killed_at = f"{time.monotonic() - started:.2f} s"
    runset = root / "rs"
    before = len(store.read_runs(runset)) if (runset / store.MANIFEST_FILE).exists() else 0
    resumes = 0
    while True:
        if not (runset / store.MANIFEST_FILE).exists():
            # killed before the manifest: nothing was written, a new start is the resume
            command = ["run", "suite.yaml", "--out", "rs", "--seed", str(seed)]
        else:
            if store.read_manifest(runset).get("status") == "finished":
                break
            command = ["run", "suite.yaml", "--resume", "rs"]
        subprocess.run([*TRAJGUARD, *command, "--no-progress"], cwd=root, check=True, timeout=600)
        resumes += 1
    rows = store.read_runs(runset)
    expected = {f"{s}/base/{i}" for s in ("one", "two") for i in range(runs)}
    ids = list(rows["run_id"])
    wrong_seeds = sum(
        int(seed_value) != derive_seed(seed, run_id)
        for run_id, seed_value in zip(rows["run_id"], rows["seed"], strict=True)
    )
    return {
        "killed": killed_at,
        "signal": how.name,
        "on_disk_at_kill": before,
        "resumes": resumes,
        "lost": len(expected - set(ids)),
        "duplicated": len(ids) - len(set(ids)),
        "unexpected": len(set(ids) - expected),
        "wrong_seeds": wrong_seeds,
        "not_ok": int((rows["status"] != "ok").sum()),
        "leftovers": _leftovers(runset),
        "finished": store.read_manifest(runset).get("status") == "finished",
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=30)
    parser.add_argument("--runs", type=int, default=40, help="runs per scenario (2 scenarios)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    span = batch_seconds(args.runs)
    print(f"an uninterrupted batch takes {span:.1f} s here: kills land uniformly in it")
    totals = {"lost": 0, "duplicated": 0, "unexpected": 0, "wrong_seeds": 0, "not_ok": 0}
    stray = 0
    for index in range(args.trials):
        how = signal.SIGKILL if index % 2 == 0 else signal.SIGINT
        with tempfile.TemporaryDirectory() as folder:
            result = trial(Path(folder), args.runs, rng, how, span)
        print(f"trial {index + 1}: {result}", flush=True)
        for key in totals:
            totals[key] += int(result[key])  # type: ignore[call-overload]
        stray += len(result["leftovers"])  # type: ignore[arg-type]
        assert result["finished"], "a resumed batch ends finished"
    print(
        f"{args.trials} trials ({args.trials - args.trials // 2} SIGKILL, {args.trials // 2} "
        f"SIGINT), {2 * args.runs} runs each: lost {totals['lost']}, duplicated "
        f"{totals['duplicated']}, unexpected {totals['unexpected']}, wrong seeds "
        f"{totals['wrong_seeds']}, not ok {totals['not_ok']}, temp files left {stray}"
    )


if __name__ == "__main__":
    main()
