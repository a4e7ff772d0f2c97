"""Wall time of the non-live test suite: two checkouts side by side, alternating.

Each checkout needs its own virtual environment (``CHECKOUT/.venv``, made by the README's test
command). The runs alternate (old, new, old, new, ...) so that load on the shared machine hits
both alike; the medians and their ratio are printed.

    git worktree add /tmp/tg-old 422bc3c
    (cd /tmp/tg-old && python3 -m venv .venv && .venv/bin/pip install -q -e ".[local,dev]")
    python benchmarks/bench_test_suite.py --old /tmp/tg-old --new . --repeat 3
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import time
from pathlib import Path

COMMAND = ["-m", "pytest", "-m", "not live", "-q", "-p", "no:cacheprovider"]


def run_once(checkout: Path) -> tuple[float, str]:
    """Seconds for one run of the non-live suite, and pytest's last line."""
    python = checkout / ".venv" / "bin" / "python"
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    started = time.perf_counter()
    result = subprocess.run(
        [str(python), *COMMAND],
        cwd=checkout,
        capture_output=True,
        text=True,
        env=env,
        timeout=3600,
        check=False,
    )
    elapsed = time.perf_counter() - started
    last = result.stdout.strip().splitlines()[-1] if result.stdout.strip() else result.stderr
    if result.returncode != 0:
        raise SystemExit(f"{checkout}: the suite failed: {last}")
    return elapsed, last


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--old", type=Path, required=True, help="checkout of the old version")
    parser.add_argument("--new", type=Path, required=True, help="checkout of the new version")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    times: dict[str, list[float]] = {"old": [], "new": []}
    for index in range(args.repeat):
        for label, checkout in (("old", args.old), ("new", args.new)):
            seconds, last = run_once(checkout.resolve())
            times[label].append(seconds)
            load = os.getloadavg()[0]
            print(f"repeat {index + 1} {label}: {seconds:.1f} s  ({last}; load {load:.1f})")
    old, new = statistics.median(times["old"]), statistics.median(times["new"])
    print(f"median old {old:.1f} s, new {new:.1f} s: new / old = {new / old:.2f}")


if __name__ == "__main__":
    main()
