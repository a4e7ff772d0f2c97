"""`trajguard compare`, `plan` and `baseline promote` in-process on real Parquet run sets."""

from __future__ import annotations

import json
import re
import shutil
import xml.etree.ElementTree as ET
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest

from trajguard import store


def _runset(
    path: Path,
    *,
    pass_rates: dict[str, float],
    runs: int,
    seed: int,
    sequences: dict[str, list[str]] | None = None,
    suite: str = "demo",
) -> Path:
    rng = np.random.default_rng(seed)
    for scenario, rate in pass_rates.items():
        passes = rng.permutation([i < round(rate * runs) for i in range(runs)])
        for index in range(runs):
            tools = (sequences or {}).get(scenario, ["calculator"])
            store.write_run(
                path,
                {
                    "run_id": f"{scenario}/base/{index}",
                    "batch_id": f"b{seed}",
                    "suite": suite,
                    "scenario": scenario,
                    "variant": "base",
                    "run_index": index,
                    "model": "local/smollm2",
                    "seed": int(rng.integers(1 << 30)),
                    "started_at": datetime(2026, 11, 29, tzinfo=UTC),
                    "duration_s": float(rng.uniform(1, 2)),
                    "status": "ok",
                    "passed": bool(passes[index]),
                    "crashed": False,
                    "step_count": int(rng.integers(4, 7)),
                    "tool_sequence": tools,
                    "tool_counts": {t: tools.count(t) for t in tools},
                    "prompt_tokens": int(rng.integers(300, 400)),
                    "completion_tokens": int(rng.integers(20, 40)),
                    "total_tokens": 0,
                    "final_output": "The answer | is <b>391</b>",
                    "trajectory": "{}",
                    "config_hash": "abc",
                    "git_sha": "f00",
                },
            )
    store.compact(path)
    store.write_manifest(
        path,
        {
            "suite": suite,
            "status": "finished",
            "models": ["local/smollm2"],
            "config_hashes": {f"{s}/base": "abc" for s in pass_rates},
            "started_at": "2026-11-29T00:00:00Z",
            "git_sha": "f00",
        },
    )
    return path


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The three run sets, written once per module (each test works on its own copy)."""
    root = tmp_path_factory.mktemp("runsets")
    _runset(root / "base", pass_rates={"multiply": 0.9, "capital": 0.8}, runs=30, seed=1)
    _runset(root / "same", pass_rates={"multiply": 0.9, "capital": 0.8}, runs=30, seed=2)
    _runset(
        root / "worse",
        pass_rates={"multiply": 0.2, "capital": 0.8},
        runs=30,
        seed=3,
        sequences={"multiply": ["get_weather|<script>", "get_weather|<script>"]},
    )
    return root


@pytest.fixture
def runsets(built: Path, tmp_path: Path) -> Path:
    for name in ("base", "same", "worse"):
        shutil.copytree(built / name, tmp_path / name)
    return tmp_path


def test_regression_exits_1_with_report_and_junit(runsets: Path, cli) -> None:
    result = cli(
        "compare", "base", "worse", "--report", "out/report.md", "--junit", "out/j.xml", cwd=runsets
    )
    assert result.returncode == 1, result.stderr
    assert "verdict: regressed" in result.stdout
    report = (runsets / "out" / "report.md").read_text()
    assert report.startswith("# trajguard report: demo\n")
    assert "**Verdict: 🔴 regressed**" in report
    assert "- **multiply**: pass rate 90% → 20% (Δ -70 pts), band ±10 pts, p <0.001" in report
    assert "![distributions of multiply](plots/multiply.png)" in report
    assert (runsets / "out" / "plots" / "multiply.png").stat().st_size > 1000
    assert "<script>" not in report and "get\\_weather\\|&lt;script&gt;" in report
    assert "trajguard compare base worse --report out/report.md" in report
    cases = {c.get("name"): c for c in ET.parse(runsets / "out" / "j.xml").getroot()}
    assert cases["multiply"].find("failure") is not None
    assert cases["capital"].find("failure") is None


def test_no_regression_exits_0(runsets: Path, cli) -> None:
    result = cli("compare", "base", "same", "--report", "r/report.md", "--no-plots", cwd=runsets)
    assert result.returncode == 0, result.stderr
    assert "verdict: regressed" not in result.stdout
    assert not (runsets / "r" / "plots").exists()


def test_tolerance_and_gate_options(runsets: Path, cli) -> None:
    wide = cli(
        "compare",
        "base",
        "worse",
        "--report",
        "w/report.md",
        "--no-plots",
        "--tolerance",
        "pass_rate=0.9",
        "--tolerance",
        "tool_mix=1",
        "--tolerance",
        "failing_paths=1",
        cwd=runsets,
    )
    assert wide.returncode == 0, "a drop inside a 90-point band is changed within tolerance"
    assert "changed within tolerance" in (runsets / "w" / "report.md").read_text()
    bad = cli("compare", "base", "worse", "--tolerance", "speed=2", cwd=runsets)
    assert bad.returncode == 2 and "expected METRIC=VALUE" in bad.stderr
    for item, fragment in [("pass_rate=-1", "at least 0"), ("steps=0.9", "steps=0.9")]:
        out_of_range = cli("compare", "base", "worse", "--tolerance", item, cwd=runsets)
        assert out_of_range.returncode == 2, item
        assert fragment in out_of_range.stderr and "Traceback" not in out_of_range.stderr
    gate = cli("compare", "base", "worse", "--gate", "vibes", cwd=runsets)
    assert gate.returncode == 2 and "unknown metric" in gate.stderr


def test_bad_run_set_exits_2(runsets: Path, cli) -> None:
    result = cli("compare", "base", "nowhere", cwd=runsets)
    assert result.returncode == 2
    assert "not a run set" in result.stderr and "Traceback" not in result.stderr
    assert not (runsets / "reports").exists()


def test_plan_from_baseline_and_from_assumptions(runsets: Path, cli) -> None:
    from_runs = cli("plan", "base", "--runs", "20", cwd=runsets)
    assert from_runs.returncode == 0, from_runs.stderr
    assert "multiply" in from_runs.stdout and "pass-rate drop" in from_runs.stdout
    assumed = cli("plan", "--pass-rate", "0.9", "--runs", "20", "--alpha", "0.1", cwd=runsets)
    assert assumed.returncode == 0
    # One scenario: its combined test gets the whole family alpha of 0.1 (statistics.md §5).
    assert "0.1000" in assumed.stdout
    holm = cli(
        "plan",
        "--pass-rate",
        "0.9",
        "--runs",
        "20",
        "--alpha",
        "0.1",
        "--multiplicity",
        "holm",
        cwd=runsets,
    )
    # Holm over the four default gating metrics (pass, crash, tool usage, failing paths) at
    # family alpha 0.1: each at 0.1/4; exact enumeration gives a 39-point drop from 90 %.
    assert "0.0250" in holm.stdout and re.search(r"│ 39 pts", holm.stdout)
    assert re.search(r"│ 28 pts", assumed.stdout)
    missing = cli("plan", cwd=runsets)
    assert missing.returncode == 2 and "--pass-rate" in missing.stderr


def test_baseline_promote_copies_with_provenance(runsets: Path, cli) -> None:
    result = cli("baseline", "promote", "base", "--baselines", "bl", cwd=runsets)
    assert result.returncode == 0, result.stderr
    manifest = json.loads((runsets / "bl" / "demo" / "manifest.json").read_text())
    assert manifest["promoted_from"] == "base"
    assert len(store.read_runs(runsets / "bl" / "demo")) == 60


def test_family_options(runsets: Path, cli) -> None:
    holm = cli(
        "compare", "base", "worse", "--multiplicity", "holm", "--report", "h/report.md",
        "--no-plots", cwd=runsets,
    )  # fmt: skip
    assert holm.returncode == 1, holm.stderr
    report = (runsets / "h" / "report.md").read_text()
    assert "adjusted together with Holm at α = 0.05" in report
    no_suite = cli(
        "compare", "base", "worse", "--suite-share", "0", "--report", "s/report.md",
        "--no-plots", cwd=runsets,
    )  # fmt: skip
    assert no_suite.returncode == 1
    assert "Suite level" not in (runsets / "s" / "report.md").read_text()
    bad = cli("compare", "base", "worse", "--suite-share", "1.5", cwd=runsets)
    assert bad.returncode == 2 and "--suite-share must be at least 0 and below 1" in bad.stderr


def test_a_blind_comparison_says_so_and_exits_4_only_when_power_is_required(
    runsets: Path, cli
) -> None:
    """30 runs per side see a drop of about 30 points, not the 10-point band: every scenario
    is blind. Exit 0 says nothing was found; the headline says nothing could be."""
    quiet = cli("compare", "base", "same", "--report", "q/report.md", "--no-plots", cwd=runsets)
    assert quiet.returncode == 0, quiet.stderr
    assert "blind in 2 of 2" in quiet.stdout
    report = (runsets / "q" / "report.md").read_text()
    headline = report.split("\n## ")[0]
    assert "**Blind in 2 of 2 scenarios**" in headline
    assert "capital (" in headline and "multiply (" in headline
    assert "runs per side would see a 10-point drop" in headline
    assert "`--require-power` makes such a night exit 4" in headline
    document = json.loads((runsets / "q" / "comparison.json").read_text())
    assert {b["scenario"] for b in document["comparison"]["blind"]} == {"capital", "multiply"}
    strict = cli(
        "compare",
        "base",
        "same",
        "--report",
        "s/report.md",
        "--no-plots",
        "--require-power",
        cwd=runsets,
    )
    assert strict.returncode == 4, strict.stderr
    assert "this night exits 4" in (runsets / "s" / "report.md").read_text()
    # A regression still exits 1: a failed night is not a blind one.
    worse = cli(
        "compare",
        "base",
        "worse",
        "--report",
        "w/report.md",
        "--no-plots",
        "--require-power",
        cwd=runsets,
    )
    assert worse.returncode == 1, worse.stderr


def test_every_baseline_passing_0_of_3_is_blind_and_require_power_exits_4(
    tmp_path: Path, cli
) -> None:
    """Issue 36: a 3-vs-3 night whose baselines all passed 0 of 3 read "not blind" (the observed
    rate left no drop to look for) and `--require-power` exited 0. 0 of 3 is what a 30 %
    scenario shows one time in three: the night cannot see a drop of its band."""
    rates = {"capital": 0.0, "multiply": 0.0, "weather": 0.0, "greeting": 0.0}
    _runset(tmp_path / "base", pass_rates=rates, runs=3, seed=1)
    _runset(tmp_path / "night", pass_rates=rates, runs=3, seed=2)
    strict = cli(
        "compare", "base", "night", "--report", "r/report.md", "--no-plots", "--require-power",
        cwd=tmp_path,
    )  # fmt: skip
    assert strict.returncode == 4, strict.stderr
    assert "blind in 4 of 4" in strict.stdout
    headline = (tmp_path / "r" / "report.md").read_text().split("\n## ")[0]
    assert "**Blind in 4 of 4 scenarios**" in headline
    assert "from a plausible baseline rate of" in headline
    assert "runs per side would see a 10-point drop" in headline
    document = json.loads((tmp_path / "r" / "comparison.json").read_text())
    blind = document["comparison"]["blind"]
    assert {b["scenario"] for b in blind} == set(rates)
    assert all(b["runs_needed"] > 3 and b["rate"] >= 0.10 for b in blind)
    lenient = cli("compare", "base", "night", "--report", "l/report.md", "--no-plots", cwd=tmp_path)
    assert lenient.returncode == 0, lenient.stderr


def test_plan_notes_a_baseline_judge_that_gave_one_verdict_per_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    from trajguard_testkit.runsets import write_runset

    from trajguard.cli import main

    record = {"criterion": 'judge: "names Paris"', "model": "openai/judge", "samples_wanted": 1}
    rows = [
        {
            "run_id": f"s/base/{i}",
            "batch_id": "b1",
            "suite": "demo",
            "scenario": "s",
            "variant": "base",
            "run_index": i,
            "model": "fake/agent",
            "status": "ok",
            "passed": i % 2 == 0,
            "crashed": False,
            "judge_calls": json.dumps([{**record, "held": i % 2 == 0}]),
        }
        for i in range(6)
    ]
    write_runset(tmp_path / "base", rows)
    assert main(["plan", str(tmp_path / "base"), "--runs", "20"]) == 0
    out = capsys.readouterr().out
    assert 'note: scenario s: judge: "names Paris" (openai/judge) gave one verdict per run' in out
    assert "add `samples: 3`" in out


def test_judge_unstable_fail_makes_an_unstable_judge_fail_the_night(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    from trajguard_testkit.runsets import write_runset

    from trajguard.cli import main

    def row(i: int) -> dict[str, object]:
        said = ["PASS", "FAIL", "PASS"] if i % 2 else ["FAIL", "PASS", "FAIL"]
        record = {"criterion": "judge", "model": "openai/judge", "samples_wanted": 3}
        samples = [{"verdict": v} for v in said]
        return {
            "run_id": f"s/base/{i}",
            "batch_id": "b1",
            "suite": "demo",
            "scenario": "s",
            "variant": "base",
            "run_index": i,
            "model": "fake/agent",
            "status": "ok",
            "passed": i % 2 == 1,
            "crashed": False,
            "step_count": 2,
            "judge_calls": json.dumps([{**record, "held": i % 2 == 1, "samples": samples}]),
        }

    for name in ("base", "cand"):
        write_runset(tmp_path / name, [row(i) for i in range(12)])
    base, cand = str(tmp_path / "base"), str(tmp_path / "cand")
    common = ["--no-plots", "--report", str(tmp_path / "r" / "report.md")]
    assert main(["compare", base, cand, *common]) == 0
    assert main(["compare", base, cand, *common, "--judge-unstable", "fail"]) == 1
    report = (tmp_path / "r" / "report.md").read_text()
    assert "Unstable judge (fails the night: judge_unstable: fail)" in report
