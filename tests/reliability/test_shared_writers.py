"""Writers of shared state do not race (issue 28): promotes into one baselines directory
serialise and lose no acknowledged promote, a promote killed between its two renames is
recovered by the next, two promotes of one batch in one second keep two history entries, and
a run set has one writer at a time (a second resume, or a second batch into the same new
directory, is refused before it writes anything)."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from trajguard import store
from trajguard.errors import StoreBusy

_spec = importlib.util.spec_from_file_location(
    "trajguard_corpus", Path(__file__).with_name("corpus.py")
)
assert _spec is not None and _spec.loader is not None
corpus: Any = importlib.util.module_from_spec(_spec)
sys.modules.setdefault(_spec.name, corpus)
_spec.loader.exec_module(corpus)

DEADLINE_S = 180.0
PROMOTE = [sys.executable, "-m", "trajguard.cli", "baseline", "promote"]


def runset(root: Path, batch: str, **defects: Any) -> Path:
    """A finished run set of suite ``demo`` whose manifest and rows name batch ``batch``."""
    path = root / f"rs-{batch}"
    manifest = {"batch_id": batch, "batch_seed": 7}
    corpus.write_runset(path, manifest=manifest, row_changes={"batch_id": batch}, **defects)
    return path


def batches(baseline: Path) -> list[str]:
    """The batch ids of a baseline and its history, newest first."""
    return [str(r.manifest["batch_id"]) for r in store.load_history(baseline)]


def debris(baselines: Path) -> list[str]:
    """What a promote may leave beside the baselines: staging, old copies, lock files."""
    return sorted(p.name for p in baselines.iterdir() if p.name.startswith("."))


def test_four_promotes_started_together_all_land(tmp_path: Path) -> None:
    sources = [runset(tmp_path, f"batch{i}") for i in range(4)]
    promotes = [
        subprocess.Popen(
            [*PROMOTE, str(source), "--baselines", str(tmp_path / "bl"), "--keep", "10"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"},
        )
        for source in sources
    ]
    outputs = [p.communicate(timeout=DEADLINE_S) for p in promotes]
    assert [p.returncode for p in promotes] == [0] * 4, outputs
    assert sorted(batches(tmp_path / "bl" / "demo")) == [f"batch{i}" for i in range(4)]
    assert debris(tmp_path / "bl") == []


def test_promotes_of_one_batch_in_one_second_keep_an_entry_each(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    class Frozen(datetime):
        @classmethod
        def now(cls, tz: Any = None) -> Frozen:
            return cls(2026, 12, 1, 5, 0, 0, 0, tzinfo=UTC)

    monkeypatch.setattr("trajguard.store._baseline.datetime", Frozen)
    source = runset(tmp_path, "same")
    for _ in range(3):
        store.promote(source, baselines=tmp_path / "bl")
    entries = store.history_entries(tmp_path / "bl" / "demo")
    assert len(entries) == 2, "the two batches replaced, one entry each"
    assert len({e.name for e in entries}) == 2
    assert batches(tmp_path / "bl" / "demo") == ["same"] * 3


@pytest.mark.parametrize("atomic_exchange", [True, False])
def test_a_promote_killed_mid_swap_is_recovered_by_the_next(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, atomic_exchange: bool
) -> None:
    if not atomic_exchange:  # the two renames of a system without renameat2
        monkeypatch.setattr("trajguard.store._baseline.exchange", lambda a, b: False)
    baselines = tmp_path / "bl"
    store.promote(runset(tmp_path, "first"), baselines=baselines)
    # killed after moving the baseline aside, before its staged successor arrived
    (baselines / "demo").rename(baselines / ".demo~old")
    (baselines / ".demo~staging.abc123").mkdir()
    (baselines / ".demo~staging.abc123" / "runs.parquet").write_text("half written")
    store.promote(runset(tmp_path, "second"), baselines=baselines)
    assert batches(baselines / "demo") == ["second", "first"], "the acknowledged one is kept"
    assert debris(baselines) == []


def test_a_promote_waits_for_the_lock_and_gives_up_cleanly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cli: Any
) -> None:
    source = runset(tmp_path, "late")
    monkeypatch.setattr("trajguard.store._lock.LOCK_WAIT_S", 0.2)
    with store.baseline_lock(tmp_path / "bl", "demo"):
        with pytest.raises(StoreBusy, match="another trajguard process is writing the baseline"):
            store.baseline_lock(tmp_path / "bl", "demo", wait_s=0)
        result = cli("baseline", "promote", str(source), "--baselines", "bl", cwd=tmp_path)
    assert result.returncode == 3, result.stderr
    assert "is writing the baseline of suite 'demo', and has been for 0.2 s" in result.stderr
    assert not (tmp_path / "bl" / "demo").exists(), "it wrote nothing"
    assert store.promote(source, baselines=tmp_path / "bl").name == "demo", "free again"
    assert debris(tmp_path / "bl") == [], "no lock file left"


def test_a_second_resume_of_a_run_set_being_written_is_refused(tmp_path: Path, cli: Any) -> None:
    target = runset(tmp_path, "busy", status="running")
    (tmp_path / "suite.yaml").write_text((corpus.REPO / "suites" / "demo.yaml").read_text())
    manifest = store.read_manifest(target)
    with store.lock_runset(target, new=False):
        result = cli("run", "suite.yaml", "--resume", str(target), cwd=tmp_path)
    assert result.returncode == 3, result.stderr
    assert "another trajguard process is writing the run set" in result.stderr
    assert store.read_manifest(target) == manifest, "it wrote nothing"
    assert store.LOCK_FILE not in os.listdir(target)


def test_two_batches_into_one_new_directory_cannot_both_write(tmp_path: Path) -> None:
    first = store.lock_runset(tmp_path / "new", new=True)
    with first, pytest.raises(StoreBusy), store.lock_runset(tmp_path / "new", new=True):
        pass  # pragma: no cover - refused
    with store.lock_runset(tmp_path / "new", new=True):
        pass  # free again once the first ended, and the directory counts as empty
