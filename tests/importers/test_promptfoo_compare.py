"""``trajguard compare`` of two promptfoo evals (one prompt variant each, 10 repeats) gives
per-scenario pass rates equal to promptfoo's own: each test case's ``success`` as promptfoo
wrote it, whose totals are its ``stats`` and the prompt column's ``testPassCount``."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

DATA = Path(__file__).parent / "data" / "promptfoo"
VARIANTS = {"baseline": DATA / "variant_a.json", "candidate": DATA / "variant_b.json"}


def _promptfoo_pass_rates(path: Path) -> dict[str, tuple[float, int]]:
    """Per test case: promptfoo's successes / repeats, keyed as the importer names scenarios
    (the test's description made a name; ``test-<k>`` for the one without)."""
    results = json.loads(path.read_text())["results"]
    by_test: dict[str, list[bool]] = defaultdict(list)
    for row in sorted(results["results"], key=lambda r: r["testIdx"]):
        description = row["testCase"].get("description")
        by_test[description.replace(" ", "-") if description else "test-3"].append(row["success"])
    successes = sum(sum(v) for v in by_test.values())
    assert successes == results["stats"]["successes"]
    assert successes == results["prompts"][0]["metrics"]["testPassCount"]
    assert results["stats"]["errors"] == 0
    return {name: (sum(v) / len(v), len(v)) for name, v in by_test.items()}


def _report_pass_rates(report: Path, role: str) -> dict[str, tuple[float, int]]:
    document = json.loads((report.parent / "comparison.json").read_text())
    rates = {}
    for scenario in document["comparison"]["scenarios"]:
        (metric,) = [m for m in scenario["metrics"] if m["metric"] == "pass_rate"]
        rates[scenario["scenario"]] = (metric[role]["mean"], metric[role]["n"])
    return rates


def _check(report: Path) -> None:
    for role, path in VARIANTS.items():
        expected = _promptfoo_pass_rates(path)
        got = _report_pass_rates(report, role)
        assert got.keys() == expected.keys()
        for scenario, (rate, n) in expected.items():
            assert got[scenario][0] == pytest.approx(rate, abs=1e-12), (role, scenario)
            assert got[scenario][1] == n == 10


def test_the_fixtures_differ_somewhere() -> None:
    a, b = (_promptfoo_pass_rates(p) for p in VARIANTS.values())
    assert a != b and any(0 < rate < 1 for rate, _ in a.values())


def test_compare_of_the_two_logs_gives_promptfoos_pass_rates(
    cli: Callable[..., Any], tmp_path: Path
) -> None:
    report = tmp_path / "report" / "report.md"
    done = cli(
        "compare",
        str(VARIANTS["baseline"]),
        str(VARIANTS["candidate"]),
        "--report",
        str(report),
        "--no-plots",
        "--no-html",
        cwd=tmp_path,
    )
    assert done.returncode in (0, 1), done.stderr
    _check(report)
    text = report.read_text()
    assert "promptfoo" in text
    assert (report.parent / "imported" / "baseline" / "manifest.json").is_file()


def test_compare_of_imported_run_sets_gives_the_same_pass_rates(
    cli: Callable[..., Any], tmp_path: Path
) -> None:
    for role, path in VARIANTS.items():
        done = cli("import", "promptfoo", str(path), "--out", str(tmp_path / role), cwd=tmp_path)
        assert done.returncode == 0, done.stderr
    report = tmp_path / "report" / "report.md"
    done = cli(
        "compare",
        str(tmp_path / "baseline"),
        str(tmp_path / "candidate"),
        "--report",
        str(report),
        "--no-plots",
        "--no-html",
        cwd=tmp_path,
    )
    assert done.returncode in (0, 1), done.stderr
    _check(report)
