"""Imported logs keep the cost their source recorded (issue 38): Harbor's ``cost_usd``,
promptfoo's ``cost`` and Inspect's ``total_cost`` land in the run set's ``cost_usd`` as
recorded, never re-priced; a log that records none stays unknown (null), never 0."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from trajguard.importers import import_logs, read_logs

DATA = Path(__file__).parent / "data"


def _runs(source: str, log: Path, out: Path) -> pd.DataFrame:
    """The run set's rows, each with the source reference the importer read it from (matched
    by scenario and run index)."""
    read = {(r.scenario, r.run_index): r.source_ref for r in read_logs(source, [log]).runs}
    import_logs(source, [log], out)
    stored = pd.read_parquet(out / "runs.parquet")
    pairs = zip(stored["scenario"], stored["run_index"], strict=True)
    stored["source_ref"] = [read[(s, int(i))] for s, i in pairs]
    return stored


def _write(path: Path, document: Any) -> None:
    path.write_text(json.dumps(document), encoding="utf-8")


def test_harbors_recorded_cost_is_kept(tmp_path: Path) -> None:
    job = tmp_path / "riddle"
    shutil.copytree(DATA / "harbor" / "riddle", job)
    recorded: dict[str, float] = {}
    for number, result in enumerate(sorted(job.glob("*/result.json")), start=1):
        document = json.loads(result.read_text())
        document["agent_result"]["cost_usd"] = number / 1024
        _write(result, document)
        recorded[f"{job.name}/{result.parent.name}"] = number / 1024
    runs = _runs("harbor", job, tmp_path / "out")
    assert dict(zip(runs["source_ref"], runs["cost_usd"], strict=True)) == recorded


def test_harbor_without_a_cost_leaves_it_unknown(tmp_path: Path) -> None:
    runs = _runs("harbor", DATA / "harbor" / "riddle", tmp_path / "out")
    assert len(runs) > 0 and runs["cost_usd"].isna().all()


def test_promptfoos_recorded_cost_is_kept(tmp_path: Path) -> None:
    document = json.loads((DATA / "promptfoo" / "variant_a.json").read_text())
    rows = document["results"]["results"]
    for index, row in enumerate(rows):
        row["cost"] = (index + 1) / 512
    log = tmp_path / "variant_a.json"
    _write(log, document)
    runs = _runs("promptfoo", log, tmp_path / "out")
    by_row = {f"{log}: $.results.results[{i}]": (i + 1) / 512 for i in range(len(rows))}
    assert len(runs) == len(rows)
    for ref, cost in zip(runs["source_ref"], runs["cost_usd"], strict=True):
        assert cost == by_row[ref], ref


def test_inspects_recorded_total_cost_is_kept(tmp_path: Path) -> None:
    document = json.loads((DATA / "inspect" / "qa-a.json").read_text())
    samples = document["samples"]
    for index, sample in enumerate(samples):
        for usage in sample["model_usage"].values():
            usage["total_cost"] = (index + 1) / 256
    log = tmp_path / "qa-a.json"
    _write(log, document)
    runs = _runs("inspect", log, tmp_path / "out")
    assert len(runs) == len(samples)
    for ref, cost in zip(runs["source_ref"], runs["cost_usd"], strict=True):
        index = int(ref.split("$.samples[")[1].split("]")[0])
        assert cost == pytest.approx((index + 1) / 256, rel=0, abs=0), ref
