"""`trajguard import inspect` and `trajguard compare` of Inspect logs, in-process.

The per-scenario pass rates of the comparison must equal Inspect's own figures: the per-sample
reductions (the mean of each sample's scores over its epochs) that Inspect wrote in the log,
read back by Inspect's reader.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from inspect_ai.log import read_eval_log

DATA = Path(__file__).parent / "data" / "inspect"
LOG_A = DATA / "qa-a.eval"
LOG_B = DATA / "qa-b.eval"


def inspect_rates(log: Path) -> dict[str, float]:
    """Inspect's per-sample mean score (value_to_float, mean over epochs), from the log."""
    reductions = read_eval_log(str(log)).reductions or []
    (includes,) = [r for r in reductions if r.scorer == "includes"]
    return {str(score.sample_id): float(score.value) for score in includes.samples}  # type: ignore[arg-type]


def inspect_accuracy(log: Path) -> float:
    results = read_eval_log(str(log), header_only=True).results
    assert results is not None
    return float(results.scores[0].metrics["accuracy"].value)


def pass_rates(report_dir: Path) -> dict[str, tuple[float, float]]:
    document = json.loads((report_dir / "comparison.json").read_text())
    rates = {}
    for scenario in document["comparison"]["scenarios"]:
        (metric,) = [m for m in scenario["metrics"] if m["metric"] == "pass_rate"]
        rates[scenario["scenario"]] = (metric["baseline"]["mean"], metric["candidate"]["mean"])
    return rates


def check_equal_to_inspect(rates: dict[str, tuple[float, float]]) -> None:
    baseline, candidate = inspect_rates(LOG_A), inspect_rates(LOG_B)
    assert set(rates) == set(baseline) == set(candidate)
    for scenario, (ours_a, ours_b) in rates.items():
        assert ours_a == pytest.approx(baseline[scenario], abs=1e-12), scenario
        assert ours_b == pytest.approx(candidate[scenario], abs=1e-12), scenario
    mean_a = sum(a for a, _ in rates.values()) / len(rates)
    assert mean_a == pytest.approx(inspect_accuracy(LOG_A), abs=1e-12)


def test_compare_of_two_logs_gives_inspects_pass_rates(
    tmp_path: Path, cli: Callable[..., Any]
) -> None:
    report = tmp_path / "report" / "report.md"
    result = cli("compare", str(LOG_A), str(LOG_B), "--report", str(report), cwd=tmp_path)
    assert result.returncode in (0, 1), result.stderr
    rates = pass_rates(report.parent)
    check_equal_to_inspect(rates)
    assert len({a for a, _ in rates.values()} | {b for _, b in rates.values()}) > 1
    text = report.read_text()
    assert "imported from inspect logs" in text
    assert (report.parent / "imported" / "baseline" / "manifest.json").is_file()


def test_compare_of_imported_run_sets_gives_the_same_rates(
    tmp_path: Path, cli: Callable[..., Any]
) -> None:
    for name, log in (("a", LOG_A), ("b", LOG_B)):
        done = cli("import", "inspect", str(log), "--out", str(tmp_path / name), cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        assert "40 runs of 4 scenarios imported" in done.stdout
        assert "passed: a sample passes when every scorer's value" in done.stdout
    report = tmp_path / "report" / "report.md"
    result = cli("compare", "a", "b", "--report", str(report), cwd=tmp_path)
    assert result.returncode in (0, 1), result.stderr
    check_equal_to_inspect(pass_rates(report.parent))
    manifest = json.loads((tmp_path / "a" / "manifest.json").read_text())
    assert manifest["imported"]["source"] == "inspect"
    assert manifest["suite"] == "qa" and manifest["runs"] == 10


def test_show_and_runs_read_an_imported_run_set(tmp_path: Path, cli: Callable[..., Any]) -> None:
    assert cli("import", "inspect", str(LOG_A), "--out", "a", cwd=tmp_path).returncode == 0
    listed = cli("runs", "a", cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    assert "add/base/0" in listed.stdout and "capital/base/9" in listed.stdout
    shown = cli("show", "a", "--run", "add/base/0", cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert "add" in shown.stdout and "agent_error" in shown.stdout


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"PK\x03\x04 not really a zip", "inspect"),
        (b"just text", "not an Inspect log"),
    ],
)
def test_a_bad_log_exits_2_without_traceback_or_output(
    tmp_path: Path, cli: Callable[..., Any], content: bytes, message: str
) -> None:
    bad = tmp_path / "bad.eval"
    bad.write_bytes(content)
    result = cli("import", "inspect", str(bad), "--out", "out", cwd=tmp_path)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert str(bad) in result.stderr and message.lower() in result.stderr.lower()
    assert not (tmp_path / "out").exists()
    assert [p.name for p in tmp_path.iterdir()] == ["bad.eval"]


def test_an_unknown_scorer_exits_2(tmp_path: Path, cli: Callable[..., Any]) -> None:
    result = cli("import", "inspect", str(LOG_A), "--out", "out", "--scorer", "f1", cwd=tmp_path)
    assert result.returncode == 2
    assert "no such scorer" in result.stderr and "includes" in result.stderr
    assert not (tmp_path / "out").exists()
