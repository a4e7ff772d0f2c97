"""Baseline history: promote keeps the last K batches; old single-batch baselines still load."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from trajguard import store
from trajguard.errors import StoreError


def _finished(path: Path, batch: str, runs: int = 3, config_hash: str = "h1") -> Path:
    rows = [
        {
            "run_id": f"{batch}/s/{i}",
            "batch_id": batch,
            "suite": "demo",
            "scenario": "s",
            "variant": "base",
            "run_index": i,
            "model": "m",
            "started_at": datetime(2026, 12, 1, tzinfo=UTC),
            "status": "ok",
            "passed": True,
            "config_hash": config_hash,
        }
        for i in range(runs)
    ]
    store.write_runs(path / store.RUNS_FILE, rows)
    store.write_manifest(
        path,
        {"suite": "demo", "status": "finished", "batch_id": batch, "finished_at": batch},
    )
    return path


def test_promote_keeps_the_last_k_batches(tmp_path: Path) -> None:
    root = tmp_path / "baselines"
    for k in range(7):
        _finished(tmp_path / f"run{k}", f"2026120{k}T000000")
        store.promote(tmp_path / f"run{k}", baselines=root, keep=5)
    target = root / "demo"
    assert store.read_manifest(target)["batch_id"] == "2026120" + "6T000000"
    entries = store.history_entries(target)
    assert len(entries) == 4  # five batches in all, the newest at the top
    batches = [store.read_manifest(e)["batch_id"] for e in entries]
    assert batches == [f"2026120{k}T000000" for k in (5, 4, 3, 2)]
    loaded = store.load_history(target)
    assert [r.manifest["batch_id"] for r in loaded] == [
        f"2026120{k}T000000" for k in range(6, 1, -1)
    ]
    # The baseline directory itself is still one ordinary run set: its runs are the latest only.
    assert len(store.read_runs(target)) == 3
    assert set(store.read_runs(target)["batch_id"]) == {"20261206T000000"}


def test_keep_one_replaces_without_history(tmp_path: Path) -> None:
    root = tmp_path / "baselines"
    for k in range(2):
        _finished(tmp_path / f"run{k}", f"b{k}")
        store.promote(tmp_path / f"run{k}", baselines=root, keep=1)
    assert store.history_entries(root / "demo") == []
    assert len(store.load_history(root / "demo")) == 1
    with pytest.raises(StoreError, match="keep must be at least 1"):
        store.promote(tmp_path / "run1", baselines=root, keep=0)


def test_an_old_single_batch_baseline_is_a_history_of_one(tmp_path: Path) -> None:
    old = _finished(tmp_path / "baselines" / "demo", "old")  # written as before histories
    (loaded,) = store.load_history(old)
    assert loaded.manifest["batch_id"] == "old"
    # Promoting over it keeps it as the first history entry.
    _finished(tmp_path / "new", "new")
    store.promote(tmp_path / "new", baselines=tmp_path / "baselines")
    assert [r.manifest["batch_id"] for r in store.load_history(old)] == ["new", "old"]


def test_the_committed_demo_baseline_still_loads() -> None:
    demo = Path(__file__).resolve().parents[2] / "baselines" / "demo"
    (loaded,) = store.load_history(demo)
    assert len(loaded.runs) == 80
    assert json.loads((demo / "manifest.json").read_text())["suite"] == "demo"
