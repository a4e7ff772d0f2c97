"""Concurrent `trajguard baseline promote` into one baselines directory, and kill -9 during one.

**Race.** N run sets of one suite (distinct batches) are promoted by N processes started
together into one baselines directory, with `--keep` above N so that no batch may leave the
history. An *acknowledged* promote is one that exited 0; it is *lost* when its batch is neither
the baseline nor in its history afterwards. Spurious errors are promotes that exited non-zero.

**Kill.** A baseline is promoted (acknowledged); then another promote is started and killed
with SIGKILL after a random delay, uniform over the time a promote takes, so kills land from
the start-up to the swap. Afterwards the baseline must be readable and be the acknowledged batch
or the new one (with the acknowledged one in its history): anything else loses an acknowledged
write. Then one more promote must succeed and leave no debris (staging, old copies, lock files).

    python benchmarks/promote_race.py --promotes 30 --rounds 3 --kills 30 [--checkout DIR]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]


def _corpus() -> Any:
    spec = importlib.util.spec_from_file_location(
        "trajguard_corpus", REPO / "tests" / "reliability" / "corpus.py"
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _runset(root: Path, batch: str, rows: int = 6) -> Path:
    """A finished run set of suite ``demo`` (5 scenarios, ``rows`` runs each) of batch ``batch``."""
    path = root / f"rs-{batch}"
    manifest = {"batch_id": batch, "batch_seed": 1}
    scenarios = tuple(f"s{i}" for i in range(5))
    _corpus().write_runset(
        path, manifest=manifest, row_changes={"batch_id": batch}, rows=rows, scenarios=scenarios
    )
    return path


def _promote(python: str, source: Path, baselines: Path, keep: int) -> list[str]:
    return [
        python,
        "-m",
        "trajguard.cli",
        "baseline",
        "promote",
        str(source),
        "--baselines",
        str(baselines),
        "--keep",
        str(keep),
    ]


def _kept(baselines: Path) -> tuple[list[str], int] | None:
    """The batches the baseline and its history entries name in their manifests, newest first,
    and how many of them hold another batch's runs (``None``: no readable baseline)."""
    from trajguard import store
    from trajguard.errors import TrajguardError

    target = baselines / "demo"
    try:
        entries = [target, *store.history_entries(target)]
        named = [str(store.read_manifest(e).get("batch_id")) for e in entries]
    except (TrajguardError, OSError):
        return None
    mismatched = 0
    for entry in entries:
        try:
            store.read_table(entry)
        except TrajguardError:
            mismatched += 1
    return named, mismatched


def _debris(baselines: Path) -> list[str]:
    if not baselines.is_dir():  # no promote got as far as making it
        return []
    return sorted(p.name for p in baselines.iterdir() if p.name.startswith("."))


def race(python: str, promotes: int, env: dict[str, str]) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        sources = [_runset(root, f"batch{i:02d}") for i in range(promotes)]
        baselines = root / "bl"
        started = time.monotonic()
        processes = [
            subprocess.Popen(
                _promote(python, source, baselines, promotes + 1),
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
                env=env,
            )
            for source in sources
        ]
        errors = [p.communicate(timeout=900)[1] for p in processes]
        elapsed = time.monotonic() - started
        acknowledged = {f"batch{i:02d}" for i, p in enumerate(processes) if p.returncode == 0}
        kept, mismatched = _kept(baselines) or ([], 0)
        tracebacks = sum("Traceback" in e for e in errors)
        return {
            "promotes": promotes,
            "acknowledged": len(acknowledged),
            "errors": promotes - len(acknowledged),
            "lost": len(acknowledged - set(kept)),
            "kept": len(kept),
            "duplicated": len(kept) - len(set(kept)),
            "mismatched": mismatched,
            "tracebacks": tracebacks,
            "debris": _debris(baselines),
            "seconds": round(elapsed, 1),
            "first_error": next((e.strip().splitlines()[-1] for e in errors if e.strip()), ""),
        }


def promote_seconds(python: str, env: dict[str, str], rows: int) -> float:
    """How long one promote takes here, start-up included."""
    with tempfile.TemporaryDirectory() as folder:
        source = _runset(Path(folder), "timing", rows)
        started = time.monotonic()
        subprocess.run(
            _promote(python, source, Path(folder) / "bl", 5),
            check=True,
            capture_output=True,
            env=env,
        )
        return time.monotonic() - started


def kill_trial(
    python: str, rng: random.Random, span_s: float, env: dict[str, str], rows: int
) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        baselines = root / "bl"
        subprocess.run(
            _promote(python, _runset(root, "acked", rows), baselines, 5),
            check=True,
            env=env,
            capture_output=True,
        )
        victim = subprocess.Popen(
            _promote(python, _runset(root, "killed", rows), baselines, 5),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        delay = rng.uniform(0.0, span_s)
        try:
            victim.wait(timeout=delay)
            landed = "after it finished"
        except subprocess.TimeoutExpired:
            victim.kill()
            victim.wait()
            landed = f"{delay:.2f} s"
        found = _kept(baselines)
        kept = found[0] if found is not None else None
        readable = found is not None and found[1] == 0
        lost = not readable or "acked" not in (kept or [])
        after = subprocess.run(
            _promote(python, _runset(root, "after", rows), baselines, 5),
            capture_output=True,
            text=True,
            env=env,
        )
        final = (_kept(baselines) or ([], 0))[0]
        return {
            "killed": landed,
            "readable": readable,
            "baseline": (kept or ["?"])[0],
            "lost": int(lost or "acked" not in final),
            "next_promote": after.returncode,
            "debris": _debris(baselines),
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--promotes", type=int, default=30, help="promotes started together")
    parser.add_argument("--rounds", type=int, default=3, help="races of --promotes each")
    parser.add_argument("--kills", type=int, default=30, help="kill -9 trials")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--rows",
        type=int,
        default=20000,
        help="runs per scenario (5 scenarios) of the kill trials' run sets: large enough that "
        "copying them takes a good part of a promote",
    )
    parser.add_argument("--python", default=sys.executable, help="the Python to run trajguard")
    parser.add_argument("--checkout", type=Path, default=REPO, help="its src/ is imported")
    args = parser.parse_args()
    env = {
        **os.environ,
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "PYTHONPATH": str(args.checkout.resolve() / "src"),
    }
    totals = dict.fromkeys(("acknowledged", "errors", "lost", "mismatched", "tracebacks"), 0)
    for index in range(args.rounds):
        result = race(args.python, args.promotes, env)
        print(f"race {index + 1}: {result}", flush=True)
        for key in totals:
            totals[key] += int(result[key])
    attempts = args.promotes * args.rounds
    print(
        f"{args.rounds} races of {args.promotes} promotes started together ({attempts} "
        f"attempts): acknowledged {totals['acknowledged']}, lost {totals['lost']}, errors "
        f"{totals['errors']}, history entries holding another batch's runs "
        f"{totals['mismatched']}, tracebacks {totals['tracebacks']}",
        flush=True,
    )
    if not args.kills:
        return
    rng = random.Random(args.seed)
    span = promote_seconds(args.python, env, args.rows)
    print(f"a promote takes {span:.1f} s here: kills land uniformly in it", flush=True)
    lost = unreadable = failed_after = debris = 0
    for index in range(args.kills):
        result = kill_trial(args.python, rng, span, env, args.rows)
        print(f"kill {index + 1}: {result}", flush=True)
        lost += result["lost"]
        unreadable += not result["readable"]
        failed_after += result["next_promote"] != 0
        debris += bool(result["debris"])
    print(
        f"{args.kills} promotes killed with SIGKILL: acknowledged baselines lost {lost}, "
        f"unreadable baselines {unreadable}, next promote failed {failed_after}, debris left "
        f"after the next promote {debris}"
    )


if __name__ == "__main__":
    main()
