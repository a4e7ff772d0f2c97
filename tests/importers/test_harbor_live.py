"""Live: `harbor run` (Harbor's own job, trial and verifier code, in its own venv) of one task x
3 attempts against the embedded model, imported as it wrote it."""

from __future__ import annotations

import importlib.util
import json
import os
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from trajguard.atif import trajectory_to_dict, validate
from trajguard.importers import import_logs

HARBOR_MISSING = (
    "Harbor is not installed: with a Python >= 3.12, python3.12 -m venv .harbor-venv && "
    ".harbor-venv/bin/pip install harbor (.ci/run does this)"
)
pytestmark = pytest.mark.live

SIDE = Path(__file__).parent / "harbor_side"


def _fixtures_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("harbor_make_fixtures", SIDE / "make_fixtures.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_harbor_run_against_the_embedded_model_imports_as_harbor_counted_it(
    local_model: Any, tmp_path: Path
) -> None:
    make = _fixtures_module()
    if not Path(make.HARBOR).exists():
        # CI makes .harbor-venv (.ci/run) and sets TRAJGUARD_REQUIRE_FRAMEWORKS: there, a
        # missing Harbor fails this test instead of skipping it
        if os.environ.get("TRAJGUARD_REQUIRE_FRAMEWORKS"):
            pytest.fail(f"{make.HARBOR} is missing (.ci/run makes .harbor-venv)")
        pytest.skip(HARBOR_MISSING)
    tasks = tmp_path / "tasks"
    tasks.mkdir()
    (tasks / "capital").symlink_to(SIDE / "tasks" / "capital", target_is_directory=True)
    done = make.harbor_run(
        tasks,
        tmp_path / "jobs",
        "live",
        base_url=local_model.base_url,
        style=make.VARIANTS["terse"],
        attempts=3,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    job = tmp_path / "jobs" / "live"
    result = import_logs("harbor", [job], tmp_path / "runs")
    runs = result.batch.runs
    assert [(r.scenario, r.run_index) for r in runs] == [("capital", i) for i in range(3)]
    evals = json.loads((job / "result.json").read_text())["stats"]["evals"]
    [stats] = evals.values()
    counted = {
        trial: float(value) for value, trials in stats["reward_stats"]["reward"].items()
        for trial in trials
    }  # fmt: skip
    assert len(counted) == stats["n_trials"] == 3
    for run in runs:
        trial = run.source_ref.split("/")[-1]
        assert run.status == "ok"
        assert run.passed is (counted[trial] >= 1.0)
        assert run.trajectory is not None
        assert validate(trajectory_to_dict(run.trajectory)).valid
        assert run.prompt_tokens and run.completion_tokens
    assert (tmp_path / "runs" / "runs.parquet").is_file()
