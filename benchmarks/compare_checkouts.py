"""Do two checkouts judge the same run sets the same way? Every verdict, p-value, estimate,
interval and note of `compare` and `ab`, and the text of the markdown, A/B and JUnit reports.

Synthetic run sets (the generator of bench_compare.py) of 12 scenarios x 20 runs, six nights,
half of them with a pass-rate drop; each checkout computes them in its own virtual environment
(``CHECKOUT/.venv``; without one, this interpreter on ``CHECKOUT/src``) and the outputs are
compared byte for byte. Used to show that a refactor changed no result:

    python benchmarks/compare_checkouts.py --old /tmp/tg-old --new .
"""

from __future__ import annotations

import argparse
import difflib
import os
import subprocess
import sys
import tempfile
from pathlib import Path

# Runs inside each checkout's environment; imports whichever layout that checkout has.
WORKER = r"""
import json, sys
from pathlib import Path
import pandas as pd
sys.path.insert(0, str(Path.cwd() / "benchmarks"))
from bench_compare import make_runs, scenario_params
try:  # the renderers read a report document (issue 21)
    from trajguard.comparison import CompareConfig, compare_ab, compare_runsets
    from trajguard.report import build_ab_document, build_document
    from trajguard.report import junit_xml as _junit, render_ab_report as _ab
    from trajguard.report import render_report as _report
    from trajguard.results import ReportKind
    from trajguard.store import RunSet
    def side(path, runs):
        return RunSet(path=path, manifest={"suite": "bench", "models": ["m"]}, runs=runs)
    def _document(cmp, baseline, candidate):
        return build_document(cmp, kind=ReportKind.COMPARE, baseline=baseline, candidate=candidate)
    def render_report(cmp, *, baseline, candidate):
        return _report(_document(cmp, baseline, candidate))
    def junit_xml(cmp, *, suite, baseline, candidate):
        return _junit(_document(cmp, baseline, candidate))
    def render_ab_report(ab, *, runs):
        return _ab(build_ab_document(ab, runs=runs))
except ImportError:
    try:
        from trajguard.comparison import CompareConfig, compare_ab, compare_runsets
        from trajguard.report import render_ab_report, render_report
        from trajguard.report import junit_xml as _junit
        from trajguard.store import RunSet
        def side(path, runs):
            return RunSet(path=path, manifest={"suite": "bench", "models": ["m"]}, runs=runs)
    except ImportError:  # the layout before trajguard.comparison / trajguard.report existed
        from trajguard.live.ab import compare_ab
        from trajguard.live.ab_report import render_ab_report
        from trajguard.live.compare import CompareConfig, compare_runsets
        from trajguard.live.junit import junit_xml as _junit
        from trajguard.live.report import RunSetInfo, render_report
        def side(path, runs):
            return RunSetInfo(path, {"suite": "bench", "models": ["m"]}, runs)
    def junit_xml(cmp, *, suite, baseline, candidate):
        return _junit(cmp, suite=suite)

results, texts = [], []
for seed in range(6):
    params = scenario_params(12, seed)
    b = make_runs(params, 20, seed=seed)
    c = make_runs(params, 20, seed=seed + 100, pass_shift=0.3 if seed % 2 else 0.0)
    config = CompareConfig(seed=seed)
    cmp = compare_runsets(b, c, config=config)
    results.append([cmp.verdict.value, cmp.regressed, [
        [s.scenario, s.verdict.value, s.mde_pass_rate, [
            [m.metric, m.verdict.value, m.p_value, m.p_adjusted, m.p_tost, m.estimate, m.ci,
             list(m.notes)] for m in s.metrics]] for s in cmp.scenarios]])
    texts.append(render_report(cmp, baseline=side("b", b), candidate=side("c", c)))
    texts.append(junit_xml(cmp, suite="bench", baseline=side("b", b), candidate=side("c", c)))
    both = pd.concat([b.assign(variant="A"), c.assign(variant="B")], ignore_index=True)
    ab = compare_ab(both, "A", "B", config=config)
    results.append([ab.answer.value, ab.summary,
                    [[o.metric, o.p_value, o.p_adjusted, o.estimate, o.ci] for o in ab.overall]])
    texts.append(render_ab_report(ab, runs=side("ab", both)))
text = json.dumps(results, indent=1, default=str)
Path(sys.argv[1]).write_text(text + "\n===\n" + "\n===\n".join(texts))
"""


def dump(checkout: Path, out: Path) -> str:
    python = checkout / ".venv" / "bin" / "python"
    env = None
    if not python.exists():  # no environment of its own: this interpreter on its sources
        python = Path(sys.executable)
        env = {**os.environ, "PYTHONPATH": str(checkout / "src")}
    subprocess.run(
        [str(python), "-c", WORKER, str(out)], cwd=checkout, check=True, timeout=1800, env=env
    )
    return out.read_text(encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--old", type=Path, required=True)
    parser.add_argument("--new", type=Path, required=True)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        old = dump(args.old.resolve(), Path(folder) / "old.txt")
        new = dump(args.new.resolve(), Path(folder) / "new.txt")
    reports = new.count("\n===\n")
    if old == new:
        print(f"identical: 12 comparisons (6 compare, 6 ab) and {reports} reports, byte for byte")
        return
    diff = difflib.unified_diff(old.splitlines(), new.splitlines(), "old", "new", lineterm="")
    print("\n".join(list(diff)[:200]))
    sys.exit(1)


if __name__ == "__main__":
    main()
