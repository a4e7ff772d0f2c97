"""Regenerate the committed sample reports from committed run sets (issue 23).

Run from anywhere: ``python reports/regenerate.py`` (``--out DIR`` writes elsewhere, relative to
the repository's root). It writes:

- ``reports/sample-nightly/``: the real-model night ``edited-seed1`` (a prompt edit that breaks
  greeting and multiply) against the baseline it ran against, both committed under
  ``benchmarks/data/real-nights-2026-12-01/``, as the nightly compares them;
- ``reports/sample-ab/``: an A/B of the same two prompts, ``base`` (the unedited night of seed 1)
  against ``weather_edit`` (the edited night of seed 1), whose runs it first writes to
  ``reports/sample-ab/runs/`` as one run set of two variants.

Each folder holds the markdown report, ``report.html``, ``comparison.json``, the plots and
``pr-comment.md``, the pull-request comment rendered from ``comparison.json`` (its links point
into the ``report.html`` beside it). Every
path in them is relative to the repository's root, so the committed files say nothing of the
machine that wrote them; tests/report/test_samples.py fails when they differ from what the code
renders now.

Then it rewrites what README.md and docs/tutorial.md show of real runs, the regions between
``<!-- generated:NAME -->`` and ``<!-- /generated -->`` (reports/pages.py says what goes in each,
cut from the samples); tests/docs/test_generated.py fails when a page differs from that.
``--tutorial`` first runs docs/tutorial.md as a reader would, in an empty temporary folder
against the embedded model (reports/snippets.py, the runner tests/docs/test_snippets.py uses),
and keeps what its commands printed, and its nightly's ``report.md``, in
``reports/sample-tutorial/``. ``--screenshot PNG`` takes the README's pictures of the nightly
sample's page.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

from trajguard import store
from trajguard.comparison import CompareConfig, compare_ab
from trajguard.pipeline import ReportOptions, with_suite_tolerances
from trajguard.pipeline._compare import compare_loaded
from trajguard.pipeline._outputs import run_payload, write_outputs
from trajguard.report import build_ab_document, render_pr_comment
from trajguard.results import COMPARISON_FILE, ReportKind, read_document

sys.path.insert(0, str(Path(__file__).resolve().parent))
import pages
import snippets

NIGHTS = Path("benchmarks/data/real-nights-2026-12-01")
COMMAND = "python reports/regenerate.py"
_KEPT = ("suite", "models", "git_sha", "trajguard_version", "machine", "tolerances", "runs")


def nightly_sample(out: Path) -> Path:
    """The real night compared with its baseline, as ``trajguard nightly`` reports it."""
    baseline = store.load_runset(NIGHTS / "baseline")
    candidate = store.load_runset(NIGHTS / "edited-seed1")
    config = with_suite_tolerances(CompareConfig(), candidate.manifest.get("tolerances") or {})
    report = out / "sample-nightly" / "report.md"
    compare_loaded(
        baseline,
        candidate,
        report,
        config=config,
        options=ReportOptions(command=COMMAND),
        kind=ReportKind.NIGHTLY,
    )
    return report


def _ab_runset(target: Path) -> Path:
    """Both nights of seed 1 as one run set of the variants ``base`` and ``weather_edit``."""
    rows, hashes = [], {}
    for night, variant in (("unedited-seed1", "base"), ("edited-seed1", "weather_edit")):
        side = store.load_runset(NIGHTS / night)
        for row in store.read_table(NIGHTS / night).to_pylist():
            scenario = row["scenario"]
            row.update(
                variant=variant,
                batch_id="sample-ab",
                run_id=f"{scenario}/{variant}/{row['run_index']}",
            )
            rows.append(row)
        for key, value in dict(side.manifest.get("config_hashes") or {}).items():
            hashes[f"{key.split('/')[0]}/{variant}"] = value
    manifest = {k: v for k, v in side.manifest.items() if k in _KEPT}
    manifest |= {
        "batch_id": "sample-ab",
        "status": "finished",
        "variants": ["base", "weather_edit"],
        "config_hashes": hashes,
    }
    store.write_runs(target / store.RUNS_FILE, rows)
    store.write_manifest(target, manifest)
    return target


def ab_sample(out: Path) -> Path:
    """The A/B report of the two prompts, as ``trajguard ab`` writes it."""
    side = store.load_runset(_ab_runset(out / "sample-ab" / "runs"))
    config = with_suite_tolerances(
        CompareConfig(two_sided=True, suite_share=0.0), side.manifest.get("tolerances") or {}
    )
    result = compare_ab(side.runs, "base", "weather_edit", config=config)
    scenarios = [s.scenario for s in result.per_scenario.scenarios]
    document = build_ab_document(result, runs=side, plots=scenarios, command=COMMAND)
    frame = side.runs
    runs = run_payload(
        document,
        replace(side, runs=frame[frame["variant"] == "base"]),
        replace(side, runs=frame[frame["variant"] == "weather_edit"]),
        path=Path(side.path),
    )
    report = out / "sample-ab" / "ab.md"
    write_outputs(document, report, options=ReportOptions(command=COMMAND), runs=runs)
    return report


PR_COMMENT = "pr-comment.md"


def pr_comment_sample(report: Path) -> Path:
    """The pull-request comment of the comparison beside ``report``, as ``trajguard report
    comparison.json --format pr-comment --page-url report.html`` prints it."""
    source = report.with_name(COMPARISON_FILE)
    document = read_document(source.read_bytes(), file=source)
    target = report.with_name(PR_COMMENT)
    target.write_text(render_pr_comment(document, page_url="report.html"), encoding="utf-8")
    return target


def regenerate(out: Path = Path("reports")) -> list[Path]:
    """Both samples under ``out`` (relative to the working directory, the repository's root)."""
    reports = [nightly_sample(out), ab_sample(out)]
    for report in reports:
        pr_comment_sample(report)
    return reports


def screenshots(page: Path, target: Path, chromium: str = "/usr/bin/chromium") -> None:
    """The README's pictures of ``page``: its top (verdict, forest plot) at 1280 px, and its
    run explorer with a failed run of the first regressed scenario open (Playwright)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        tab = browser.new_page(viewport={"width": 1280, "height": 860})
        tab.goto(page.resolve().as_uri())
        tab.wait_for_selector("body[data-ready='1']")
        tab.screenshot(path=target)
        tab.select_option("#x-passed", "false")
        tab.locator("#runs tbody tr button.open").first.click()
        tab.wait_for_selector("#steps")
        tab.locator("#explorer").screenshot(path=target.with_name(target.stem + "-explorer.png"))
        browser.close()


def tutorial_samples(root: Path, out: Path = pages.TUTORIAL_SAMPLES) -> list[Path]:
    """Run docs/tutorial.md in an empty folder against the embedded model; write what the bash
    block above each ``output-X`` region printed to ``out/X.txt``, and the report its nightly
    wrote to ``out/report.md``. Paths of the temporary folder are written as the reader's."""
    text = (root / "docs" / "tutorial.md").read_text(encoding="utf-8")
    page = pages.blocks(text, "docs/tutorial.md")
    with tempfile.TemporaryDirectory(prefix="trajguard-tutorial-") as folder:
        start = Path(folder).resolve() / "reader"
        start.mkdir()
        session = snippets.Session(cwd=start)
        steps = snippets.run_page(page, session)
        written = []
        out.mkdir(parents=True, exist_ok=True)
        for name, line in pages.regions(text):
            if not name.startswith("output-"):
                continue
            above = [s for s in steps if s.action == "ran" and s.block.line < line]
            if not above:
                raise pages.ExcerptError(f"docs/tutorial.md:L{line}: {name} follows no command")
            target = out / f"{name.removeprefix('output-')}.txt"
            target.write_text(_as_reader(above[-1].output, session.cwd), encoding="utf-8")
            written.append(target)
        reports = sorted(session.cwd.glob("reports/*/report.md"))
        if len(reports) != 1:
            raise pages.ExcerptError(f"the tutorial's nightly wrote {len(reports)} reports")
        report = out / "report.md"
        report.write_text(_as_reader(reports[0].read_text(encoding="utf-8"), session.cwd))
        written.append(report)
    return written


def _as_reader(text: str, cwd: Path) -> str:
    """Output with the temporary folder's paths as the reader's own (relative to it)."""
    return text.replace(f"{cwd}/", "").replace(str(cwd), ".")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("reports"))
    parser.add_argument(
        "--tutorial",
        action="store_true",
        help="first run docs/tutorial.md against the embedded model and keep what it printed "
        "(reports/sample-tutorial/); takes a minute or two",
    )
    parser.add_argument(
        "--screenshot",
        type=Path,
        metavar="PNG",
        help="also take the README's screenshots of the nightly sample "
        "(reports/screenshots/report-html.png)",
    )
    args = parser.parse_args()
    os.chdir(Path(__file__).resolve().parent.parent)  # every path is the repository's
    reports = regenerate(args.out)
    for report in reports:
        print(f"wrote {report} and {report.with_name('report.html')}")
    if args.screenshot is not None:
        screenshots(reports[0].with_name("report.html"), args.screenshot)
        print(f"wrote {args.screenshot}")
    if args.out != Path("reports"):
        return  # the pages show the committed samples, not a copy elsewhere
    if args.tutorial:
        for path in tutorial_samples(Path(".")):
            print(f"wrote {path}")
    for path in pages.rewrite(Path(".")):
        print(f"rewrote the generated regions of {path}")


if __name__ == "__main__":
    main()
