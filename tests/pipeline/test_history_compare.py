"""compare against a promoted baseline with a history: pooled per scenario, on disk, in-process
through the command line (real Parquet run sets, real reports)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest

from trajguard import pipeline, store


def _runset(path: Path, batch: str, *, rate: float, hashes: dict[str, str], seed: int) -> Path:
    rng = np.random.default_rng(seed)
    rows = []
    for scenario, config_hash in hashes.items():
        for i in range(20):
            rows.append(
                {
                    "run_id": f"{batch}/{scenario}/{i}",
                    "batch_id": batch,
                    "suite": "demo",
                    "scenario": scenario,
                    "variant": "base",
                    "run_index": i,
                    "model": "m",
                    "started_at": datetime(2026, 12, 1, tzinfo=UTC),
                    "duration_s": 1.0,
                    "status": "ok",
                    "passed": bool(rng.random() < rate),
                    "crashed": False,
                    "step_count": 3,
                    "tool_sequence": ["calc"],
                    "tool_counts": {"calc": 1},
                    "prompt_tokens": 100,
                    "completion_tokens": 20,
                    "config_hash": config_hash,
                }
            )
    store.write_runs(path / store.RUNS_FILE, rows)
    store.write_manifest(
        path,
        {
            "suite": "demo",
            "status": "finished",
            "batch_id": batch,
            "finished_at": batch,
            "config_hashes": {f"{s}/base": h for s, h in hashes.items()},
        },
    )
    return path


@pytest.fixture
def promoted(tmp_path: Path) -> Path:
    for k in range(4):
        source = _runset(
            tmp_path / f"night{k}", f"2026120{k}", rate=0.5, hashes={"a": "h", "b": "g"}, seed=k
        )
        pipeline.promote(source, baselines=tmp_path / "baselines", keep=3)
    return tmp_path


def test_compare_pools_the_kept_batches(promoted: Path, cli) -> None:
    _runset(promoted / "cand", "c", rate=0.5, hashes={"a": "h", "b": "EDITED"}, seed=9)
    outcome = pipeline.compare(
        promoted / "baselines" / "demo",
        promoted / "cand",
        report=promoted / "r" / "report.md",
        options=pipeline.ReportOptions(plots=False),
    )
    assert outcome.history is not None
    assert outcome.history.batches == {
        "a": ("20261203", "20261202", "20261201"),
        "b": ("20261203", "20261202", "20261201"),
    }
    assert outcome.history.changed == ("b",)
    a = outcome.comparison.scenario("a")
    assert a.runs_baseline == 60 and a.runs_candidate == 20
    report = (promoted / "r" / "report.md").read_text()
    assert "## Baseline history" in report
    assert "The candidate changed the definition of b" in report
    # --history 1: the latest batch only, as before histories existed.
    result = cli(
        "compare",
        "baselines/demo",
        "cand",
        "--history",
        "1",
        "--report",
        "one/report.md",
        "--no-plots",
        cwd=promoted,
    )
    assert result.returncode in (0, 1), result.stderr
    assert "## Baseline history" not in (promoted / "one" / "report.md").read_text()


def test_promote_keep_on_the_command_line(tmp_path: Path, cli) -> None:
    for k in range(3):
        _runset(tmp_path / f"n{k}", f"2026120{k}", rate=0.5, hashes={"a": "h"}, seed=k)
        result = cli(
            "baseline", "promote", f"n{k}", "--baselines", "bl", "--keep", "2", cwd=tmp_path
        )
        assert result.returncode == 0, result.stderr
    assert "1 earlier batch(es) kept in its history" in result.stdout
    assert len(store.load_history(tmp_path / "bl" / "demo")) == 2
    bad = cli("baseline", "promote", "n0", "--baselines", "bl", "--keep", "0", cwd=tmp_path)
    assert bad.returncode == 2 and "--keep must be at least 1" in bad.stderr
