"""The real promptfoo (tests/importers/promptfoo_env, ``npm ci`` there) against the embedded
model, then its results imported: one eval of two labelled prompts, 2 test cases, 2 repeats.

promptfoo runs offline: no telemetry, update check or sharing, ``--no-cache`` so each repeat
calls the model, and a temporary HOME and PROMPTFOO_CONFIG_DIR so it writes nothing in the
user's home. Without the npm install the test skips locally and fails in CI
(``TRAJGUARD_REQUIRE_FRAMEWORKS=1``)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from trajguard.atif import validate
from trajguard.importers import read_logs

pytestmark = pytest.mark.live

PROMPTFOO = Path(__file__).parent / "promptfoo_env" / "node_modules" / ".bin" / "promptfoo"
CONFIG = """\
description: live check
prompts:
  - label: plain
    raw: "Answer the question.\\n\\n{{question}}"
  - label: terse
    raw: "Answer in one word.\\n\\n{{question}}"
providers:
  - id: openai:chat:smollm2
    config: {apiKey: sk-local, temperature: 0.9, max_tokens: 24}
tests:
  - description: capital
    vars: {question: "What is the capital of France?"}
    assert:
      - {type: icontains, value: Paris}
  - vars: {question: "What is 2 + 2?"}
    assert:
      - {type: icontains, value: "4"}
      - {type: javascript, value: "output.length < 40"}
"""


def _promptfoo() -> Path:
    if shutil.which("node") is None or not PROMPTFOO.is_file():
        message = (
            "promptfoo is not installed: (cd tests/importers/promptfoo_env && npm ci) "
            "with node (.ci/run does this)"
        )
        if os.environ.get("TRAJGUARD_REQUIRE_FRAMEWORKS") == "1":
            pytest.fail(message)
        pytest.skip(message)
    return PROMPTFOO


def test_promptfoo_eval_of_the_embedded_model_imports(local_model: Any, tmp_path: Path) -> None:
    promptfoo = _promptfoo()
    (tmp_path / "promptfooconfig.yaml").write_text(CONFIG)
    home = tmp_path / "home"
    home.mkdir()
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(home),
        "PROMPTFOO_CONFIG_DIR": str(home / ".promptfoo"),
        "PROMPTFOO_DISABLE_TELEMETRY": "1",
        "PROMPTFOO_DISABLE_UPDATE": "1",
        "PROMPTFOO_DISABLE_SHARING": "1",
        "OPENAI_BASE_URL": local_model.base_url,
    }
    done = subprocess.run(
        [str(promptfoo), "eval", "--repeat", "2", "--no-cache", "-j", "2", "-o", "results.json"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode in (0, 100), done.stderr[-2000:]  # 100: some test case failed
    written = tmp_path / "results.json"
    results = json.loads(written.read_text())["results"]
    assert results["stats"]["errors"] == 0, results["stats"]

    batch = read_logs("promptfoo", [written])
    assert len(batch.runs) == 8
    assert {r.variant for r in batch.runs} == {"plain", "terse"}
    for variant in ("plain", "terse"):
        for scenario in ("capital", "test-1"):
            runs = [r for r in batch.runs if r.variant == variant and r.scenario == scenario]
            assert [r.run_index for r in runs] == [0, 1]
    rows = {(row["promptIdx"], row["testIdx"]): row for row in results["results"]}  # each row once
    assert len(rows) == 8
    for run in batch.runs:
        index = int(run.source_ref.rsplit("[", 1)[1].rstrip("]"))
        row = results["results"][index]
        assert run.variant == ("plain", "terse")[row["promptIdx"]]
        assert run.passed is row["success"]
        assert run.trajectory is not None
        assert validate(run.trajectory.model_dump(mode="json", exclude_none=True)).valid
        agent = run.trajectory.steps[-1]
        assert agent.message == row["response"]["output"]
        assert agent.metrics is not None and (agent.metrics.completion_tokens or 0) > 0
    columns = batch.provenance["evals"][0]["columns"]
    for column in columns:
        passed = sum(1 for r in batch.runs if r.variant == column["variant"] and r.passed)
        assert passed == column["test_pass_count"]
