"""Benchmark: the trend page (`trend --html`) of a year's store, 365 nights x 20 scenarios.

The store is written with the store's own writer from drawn counts (tests/support's
``year_store``: 20 runs a scenario a night, one scenario dropping 40 points two thirds in, a new
baseline every 90 nights, a report every 7th night), then read by ``trajguard.nights.trend`` and
the page written by ``trajguard.pipeline.write_trend_page``, as ``trend --html`` does. Prints
the store's build time, the trend's and the page's times, the page's size (and gzipped, as a CI
artifact is), what it is made of, and its time to interactive in headless Chromium (navigation
to the page's script having run: ``body[data-ready]``, median over ``--repeat`` loads; the
charts are inline SVG, drawn before that), and that it loaded with no console error and no
request.

Run: python benchmarks/bench_trend_page.py [--nights 365] [--scenarios 20] [--repeat 3]
"""

from __future__ import annotations

import argparse
import gzip
import os
import re
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "support"))

from trajguard_testkit.browser import open_report
from trajguard_testkit.year_store import year_store

from trajguard.nights import trend
from trajguard.pipeline import write_trend_page


def _interactive(page_file: Path, repeat: int) -> tuple[list[float], list[str], list[str]]:
    from playwright.sync_api import sync_playwright

    times, errors, requests = [], [], []
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=shutil.which("chromium") or "/usr/bin/chromium",
            args=["--no-sandbox"],
        )
        for _ in range(repeat):
            opened = open_report(browser, page_file)
            times.append(opened.page.evaluate("performance.now()") / 1000)
            errors += opened.errors
            requests += opened.requests
            assert opened.page.locator("svg.chart").count() > 0, "no chart drawn"
            opened.page.context.close()
        browser.close()
    return times, errors, requests


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nights", type=int, default=365)
    parser.add_argument("--scenarios", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        began = time.perf_counter()
        store = year_store(root, nights=args.nights, scenarios=args.scenarios)
        built = time.perf_counter() - began
        os.chdir(root)  # the nights named their reports relative to here
        began = time.perf_counter()
        facts = trend(store)
        read = time.perf_counter() - began
        began = time.perf_counter()
        page_file = write_trend_page(facts, root / "trend.html")
        written = time.perf_counter() - began
        html = page_file.read_text()
        size = len(html.encode())
        data = re.search(r'id="trend-data">(.*?)</script>', html, re.S)
        paths = sum(len(m) for m in re.findall(r"<path [^>]*>", html))
        alarms = sum(len(s.alarms) for s in facts.scenarios)
        print(f"{facts.nights} nights x {len(facts.scenarios)} scenarios, {alarms} alarms")
        print(
            f"store written: {built:.1f} s; trend (read + procedure + tests): {read:.1f} s; "
            f"page rendered and written: {written:.2f} s"
        )
        print(
            f"page: {size / 1e6:.2f} MB ({len(gzip.compress(html.encode())) / 1e6:.2f} MB "
            f"gzipped); chart paths {paths / 1e6:.2f} MB, readout data "
            f"{len(data.group(1)) / 1e6 if data else 0:.2f} MB"
        )
        times, errors, requests = _interactive(page_file, args.repeat)
        print(
            f"time to interactive in headless Chromium: median {statistics.median(times):.2f} s "
            f"(all: {', '.join(f'{t:.2f}' for t in times)}); console errors {len(errors)}, "
            f"requests {len(requests)}"
        )


if __name__ == "__main__":
    main()
