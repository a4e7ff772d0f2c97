"""Benchmark: what the side-by-side view (issue 39) adds to report.html, and why the page aligns
arbitrary pairs itself rather than carrying every pair precomputed.

Run: python benchmarks/bench_sidebyside.py [--scenarios 100] [--runs 50] [--history 5]
The run sets and the comparison are bench_html's (same generator, seeds and trajectories).
Prints: the page's size, its run data with and without the step keys and exemplar alignments
(the page's blobs decoded and encoded again without them), the time the step keys take to
compute (and the whole run payload's), what precomputing every pair's alignment would weigh
(all pairs of one scenario's runs aligned and encoded, times the scenarios), and in headless
Chromium the time the page's script takes to align all pairs of one scenario and to draw the
exemplar pair.
"""

from __future__ import annotations

import argparse
import base64
import gzip
import json
import re
import tempfile
import time
from pathlib import Path
from typing import Any

from bench_compare import make_runs, scenario_params
from bench_html import _write

from trajguard import pipeline, store
from trajguard.core import align_codes
from trajguard.report.html._pairs import Interner

_BLOB = re.compile(r'<script type="application/octet-stream" id="([^"]+)">([A-Za-z0-9+/=]*)<')


def _encoded_size(value: Any) -> int:
    raw = json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()
    return len(base64.b64encode(gzip.compress(raw, compresslevel=6, mtime=0)))


def _blobs(page_file: Path) -> dict[str, Any]:
    return {
        name: json.loads(gzip.decompress(base64.b64decode(data)))
        for name, data in _BLOB.findall(page_file.read_text())
    }


def _triples(flat: list[int]) -> list[tuple[int, int, int]]:
    return [(flat[i], flat[i + 1], flat[i + 2]) for i in range(0, len(flat), 3)]


def _browser(page_file: Path, codes: list[list[int]], costs: dict[str, int]) -> tuple[float, float]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(page_file.resolve().as_uri())
        page.wait_for_selector("body[data-ready='1']", timeout=60_000)
        align_ms = page.evaluate(
            """([runs, costs]) => { const t = performance.now();
              for (const a of runs) for (const b of runs) trajguardPairs.align(a, b, costs);
              return performance.now() - t; }""",
            [codes, costs],
        )
        start = time.perf_counter()
        page.click("#x-exemplar")
        page.wait_for_selector("#x-sbs-steps")
        drawn = time.perf_counter() - start
        browser.close()
    return align_ms / len(codes) ** 2, drawn


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenarios", type=int, default=100)
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--history", type=int, default=5)
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
    with_keys = sum(_encoded_size(v) for v in blobs.values())
    plain = dict(rows)
    plain.pop("exemplars")
    plain.pop("alignment")
    without = _encoded_size(plain) + sum(
        _encoded_size([[detail[:2] for detail in side] for side in v])
        for k, v in blobs.items()
        if k.startswith("traj-")
    )
    exemplars = _encoded_size(rows["exemplars"])
    runs = sum(len(side) for v in rows["scenarios"].values() for side in v)
    pairs = len(rows["exemplars"])
    print(f"{args.scenarios} scenarios, {runs} runs in the page; {pairs} exemplar pairs")
    print(f"report.html: {page_file.stat().st_size / 1e6:.2f} MB")
    print(
        f"run data: {with_keys / 1e6:.2f} MB with the step keys and exemplar alignments, "
        f"{without / 1e6:.2f} MB without (+{(with_keys - without) / 1e6:.2f} MB, "
        f"{100 * (with_keys - without) / without:.1f} %; exemplar alignments {exemplars} bytes)"
    )
    raws = [  # the history's nights and the candidate: the runs the page holds
        r["trajectory"]
        for path in [*(root / f"n{k}" for k in range(args.history)), candidate]
        for r in store.read_table(path, columns=["trajectory"]).to_pylist()
    ]
    interner = Interner()
    start = time.perf_counter()
    for raw in raws:
        interner.codes(raw)
    keyed = time.perf_counter() - start
    from trajguard.pipeline._compare import load_baseline
    from trajguard.pipeline._outputs import run_payload

    cand_set = store.load_runset(candidate)
    base_set, _ = load_baseline(root / "baselines" / "bench", cand_set)
    start = time.perf_counter()
    run_payload(outcome.document, base_set, cand_set)
    payload_s = time.perf_counter() - start
    print(
        f"step keys of {len(raws)} trajectories: {keyed:.2f} s; the whole run payload "
        f"(run_payload, keys included) {payload_s:.2f} s"
    )
    first = next(iter(rows["scenarios"]))
    index = list(rows["scenarios"]).index(first)
    codes = [d[2] for side in blobs[f"traj-{index}"] for d in side]
    start = time.perf_counter()
    every = [
        [[s.op, s.a, s.b] for s in align_codes(_triples(a), _triples(b))]
        for i, a in enumerate(codes)
        for b in codes[i + 1 :]
    ]
    aligned_s = time.perf_counter() - start
    one = _encoded_size(every)
    print(
        f"every pair precomputed: scenario {first!r}: {len(every)} pairs, {one / 1e6:.2f} MB "
        f"encoded, {aligned_s:.2f} s in Python; × {args.scenarios} scenarios ≈ "
        f"{one * args.scenarios / 1e6:.1f} MB"
    )
    per_pair, drawn = _browser(page_file, codes, rows["alignment"])
    print(
        f"Chromium: {1000 * per_pair:.1f} µs to align a pair of {first!r} in the page's script "
        f"({len(codes)}² pairs); the exemplar pair drawn {drawn:.2f} s after its click"
    )


if __name__ == "__main__":
    main()
