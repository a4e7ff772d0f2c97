"""Benchmark: what the side-by-side view (issue 39) adds to report.html, and why the page aligns
arbitrary pairs itself rather than carrying every pair precomputed.

Run: python benchmarks/bench_sidebyside.py [--scenarios 100] [--runs 50] [--history 5]
     [--pairs 60]
The run sets and the comparison are bench_html's (same generator, seeds and trajectories).
Prints: the page's size and the side-by-side view's share of it (its script, and the exemplar
pairs' alignments in the run data: the page's blobs decoded and encoded again without them);
what precomputing every pair's alignment would weigh and take (all pairs of one scenario's runs
aligned by trajguard.core and encoded, times the scenarios); and in headless Chromium the time
the page's script takes to align a pair (step keys and alignment, over all pairs of the first
``--pairs`` runs of one scenario) and to draw the exemplar pair after its click.
"""

from __future__ import annotations

import argparse
import base64
import gzip
import json
import os
import re
import tempfile
import time
from pathlib import Path
from typing import Any

from bench_compare import make_runs, scenario_params
from bench_html import _write

from trajguard import pipeline, store
from trajguard.core import align_steps
from trajguard.report.html._assets import asset

_BLOB = re.compile(r'<script type="application/octet-stream" id="([^"]+)">([A-Za-z0-9+/=]*)<')


def _encoded_size(value: Any) -> int:
    raw = json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()
    return len(base64.b64encode(gzip.compress(raw, compresslevel=6, mtime=0)))


def _blobs(page_file: Path) -> dict[str, Any]:
    return {
        name: json.loads(gzip.decompress(base64.b64decode(data)))
        for name, data in _BLOB.findall(page_file.read_text())
    }


def _browser(
    page_file: Path, runs: list[Any], costs: dict[str, int], exemplar: str | None
) -> tuple[float, float | None]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(page_file.resolve().as_uri())
        page.wait_for_selector("body[data-ready='1']", timeout=60_000)
        align_ms = page.evaluate(
            """([runs, costs]) => { const t = performance.now();
              for (const a of runs)
                for (const b of runs) trajguardPairs.alignTrajectories(a, b, costs);
              return performance.now() - t; }""",
            [runs, costs],
        )
        drawn = None
        if exemplar is not None:
            page.select_option("#x-scenario", exemplar)
            start = time.perf_counter()
            page.click("#x-exemplar")
            page.wait_for_selector("#x-sbs-steps")
            drawn = time.perf_counter() - start
        browser.close()
    return align_ms / len(runs) ** 2, drawn


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenarios", type=int, default=100)
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--history", type=int, default=5)
    parser.add_argument("--pairs", type=int, default=60)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="bench-sbs-"))
    params = scenario_params(args.scenarios, seed=1)
    for k in range(args.history):
        seed = 10 + k
        night = _write(
            root / f"n{k}", make_runs(params, args.runs, seed=seed), f"night{seed}", seed
        )
        store.promote(night, baselines=root / "baselines", keep=args.history, force=True)
    broken = [p | {"pass": max(0.0, p["pass"] - 0.4)} if i < 5 else p for i, p in enumerate(params)]
    candidate = _write(root / "candidate", make_runs(broken, args.runs, seed=3), "cand", 3)
    options = pipeline.ReportOptions(command="trajguard compare baselines/bench candidate")
    outcome = pipeline.compare(
        root / "baselines" / "bench",
        candidate,
        report=root / "report" / "report.md",
        options=options,
    )
    page_file = outcome.report.with_name("report.html")
    blobs = _blobs(page_file)
    rows = blobs["run-rows"]
    plain = {k: v for k, v in rows.items() if k not in ("exemplars", "alignment")}
    with_pairs, without = _encoded_size(rows), _encoded_size(plain)
    script = len(asset("sidebyside.js").encode())
    runs = sum(len(side) for v in rows["scenarios"].values() for side in v)
    pairs = len(rows["exemplars"])
    print(f"{args.scenarios} scenarios, {runs} runs in the page; {pairs} exemplar pairs")
    size = page_file.stat().st_size
    print(
        f"report.html: {size / 1e6:.2f} MB, of which the side-by-side view "
        f"{(script + with_pairs - without) / 1e3:.1f} kB (its script {script / 1e3:.1f} kB; the "
        f"exemplar alignments {(with_pairs - without) / 1e3:.1f} kB of run data: "
        f"{with_pairs / 1e6:.3f} MB with, {without / 1e6:.3f} MB without)"
    )
    first = next(iter(rows["scenarios"]))
    index = list(rows["scenarios"]).index(first)
    stored = [json.loads(d[1]) for side in blobs[f"traj-{index}"] for d in side]
    start = time.perf_counter()
    every = [
        [[s.op, s.a, s.b] for s in align_steps(a, b).steps]
        for i, a in enumerate(stored)
        for b in stored[i + 1 :]
    ]
    aligned_s = time.perf_counter() - start
    one = _encoded_size(every)
    print(
        f"every pair precomputed: scenario {first!r}: {len(every)} pairs, {one / 1e6:.2f} MB "
        f"encoded, {aligned_s:.2f} s in Python; × {args.scenarios} scenarios ≈ "
        f"{one * args.scenarios / 1e6:.1f} MB, {aligned_s * args.scenarios:.0f} s"
    )
    exemplar = next(iter(rows["exemplars"]), None)
    per_pair, drawn = _browser(page_file, stored[: args.pairs], rows["alignment"], exemplar)
    print(
        f"Chromium: {1000 * per_pair:.0f} µs to key and align a pair of {first!r} in the page's "
        f"script ({args.pairs}² pairs)"
        + ("" if drawn is None else f"; an exemplar pair drawn {drawn:.2f} s after its click")
    )
    print(f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
