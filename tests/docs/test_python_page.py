"""docs/how-to/python.md runs as the page shows it: its blocks in order in one folder, as one
shell session (reports/snippets.py), with the agent of the page, which needs no model."""

from __future__ import annotations

import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "reports"))
import pages  # noqa: E402
import snippets  # noqa: E402

PAGE = "docs/how-to/python.md"


def test_the_main_job_page_runs_as_shown(tmp_path: Path) -> None:
    blocks = pages.blocks((REPO / PAGE).read_text(encoding="utf-8"), PAGE)
    reader = tmp_path / "reader"
    reader.mkdir()
    session = snippets.Session(cwd=reader)
    # the page's ``python`` is the interpreter running the tests, where trajguard is installed
    bin_dir = str(Path(sys.executable).parent)
    session.env["PATH"] = bin_dir + os.pathsep + session.env.get("PATH", "")
    session.env["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
    steps = snippets.run_page(blocks, session)
    ran = [s.output for s in steps if s.action == "ran"]
    assert len(ran) == 3, [s.action for s in steps]  # run and compare, the nightly, the A/B
    run_and_compare, night, ab = (out.strip().splitlines() for out in ran)
    assert run_and_compare[0] == "runs/first 14 passed"  # 6 + its own runs: 8
    assert (
        run_and_compare[-1].startswith("verdict: ")
        and "→ reports/arithmetic-" in (run_and_compare[-1])
    )
    per_scenario = {line.split()[0]: line.split()[-1] for line in night[1:]}
    assert per_scenario == {"multiply": "4", "multiply_again": "4"}  # runs=4 is --runs 4
    assert ab[-1] == "hurt"
    assert (reader / "baselines" / "arithmetic").is_dir()
    assert len(list((reader / "reports").glob("*/report.md"))) == 2  # compare and nightly
    assert len(list((reader / "reports").glob("*-ab-base-careless/ab.md"))) == 1
