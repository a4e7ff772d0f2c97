"""Live: `inspect eval` against the embedded model writes a log, and trajguard imports it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from inspect_ai.log import read_eval_log

from trajguard.atif import validate
from trajguard.importers import ImportOptions, read_logs
from trajguard.local_model import SERVED_MODEL_NAME

pytestmark = pytest.mark.live

TASK = Path(__file__).parent / "data" / "inspect" / "task.py"


def test_a_fresh_inspect_log_imports(
    local_model: Any, tmp_path: Path, cli: Callable[..., Any]
) -> None:
    logs = tmp_path / "logs"
    shutil.copy(TASK, tmp_path / "task.py")  # Inspect takes a task file relative to its cwd
    env = {
        **os.environ,
        "LOCAL_API_KEY": "none",
        "LOCAL_BASE_URL": local_model.base_url,
        "INSPECT_LOG_DIR": str(logs),
    }
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "inspect_ai",
            "eval",
            "task.py",
            "-T",
            "variant=b",
            "--model",
            f"openai-api/local/{SERVED_MODEL_NAME}",
            "--sample-id",
            "capital,add",
            "--epochs",
            "2",
            "--display",
            "none",
        ],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    (log,) = logs.glob("*.eval")
    batch = read_logs("inspect", [log], ImportOptions(variant="fresh"))
    assert sorted((r.scenario, r.run_index) for r in batch.runs) == [
        ("add", 0),
        ("add", 1),
        ("capital", 0),
        ("capital", 1),
    ]
    for run in batch.runs:
        assert run.trajectory is not None
        assert validate(run.trajectory.model_dump(mode="json", exclude_none=True)).valid
    usage = read_eval_log(str(log), header_only=True).stats.model_usage
    (total,) = usage.values()
    assert sum(r.prompt_tokens or 0 for r in batch.runs) == total.input_tokens
    assert sum(r.completion_tokens or 0 for r in batch.runs) == total.output_tokens
    imported = cli("import", "inspect", str(log), "--out", "fresh", cwd=tmp_path)
    assert imported.returncode == 0, imported.stderr
    assert "4 runs of 2 scenarios" in imported.stdout
