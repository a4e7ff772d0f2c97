"""``--resume`` refuses an agent whose own code changed since the batch started, as it refuses a
changed prompt: a run set holds one agent's runs."""

from __future__ import annotations

import json
import sys
import uuid
from pathlib import Path

import pytest
from trajguard_testkit.scripted import Scripted

from trajguard import store
from trajguard.errors import SuiteError
from trajguard.runner import BatchOptions, run_batch
from trajguard.suite import load_suite

TRAJECTORY = (
    "{'schema_version': 'ATIF-v1.8', 'agent': {'name': 'a', 'version': '1'}, 'steps': "
    "[{'step_id': 1, 'source': 'user', 'message': 'hi'}, "
    "{'step_id': 2, 'source': 'agent', 'message': HELLO}]}"
)
WRITES = (
    "import json, sys\n"
    "json.dump({'schema_version': 'ATIF-v1.8', 'agent': {'name': 'a', 'version': '1'}, "
    "'steps': [{'step_id': 1, 'source': 'user', 'message': 'hi'}]}, open(sys.argv[1], 'w'))\n"
)


def _answer(*_: object) -> str:
    return "unused"


async def _start_and_cut(suite_path: Path, runset: Path) -> None:
    """A batch of 2 runs, cut after its first (as if killed)."""
    model = Scripted(_answer)
    await run_batch(
        load_suite(suite_path), runset, BatchOptions(seed=1), make_model=lambda _: model
    )
    store.write_runs_table(runset / "runs.parquet", store.read_table(runset).slice(0, 1))


async def _resume(suite_path: Path, runset: Path) -> int:
    model = Scripted(_answer)
    result = await run_batch(
        load_suite(suite_path), runset, BatchOptions(), resume=True, make_model=lambda _: model
    )
    return result.planned - result.skipped


async def test_a_changed_helper_of_a_callable_agents_package_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = f"agents_{uuid.uuid4().hex[:8]}"
    (tmp_path / package).mkdir()
    (tmp_path / package / "__init__.py").write_text("")
    (tmp_path / package / "helper.py").write_text("HELLO = 'hello'\n")
    (tmp_path / package / "core.py").write_text(
        f"from {package}.helper import HELLO\n\ndef agent(ctx):\n    return {TRAJECTORY}\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        "name: code\ndefaults: {runs: 2}\nscenarios:\n  - id: c\n    input: hi\n"
        f"    agent: {{kind: callable, function: '{package}.core:agent'}}\n"
    )
    runset = tmp_path / "rs"
    await _start_and_cut(suite, runset)
    assert "c/base" in store.read_manifest(runset)["agent_code"]
    (tmp_path / package / "helper.py").write_text("HELLO = 'changed'\n")
    with pytest.raises(SuiteError) as refused:
        await _resume(suite, runset)
    message = str(refused.value)
    assert "the agent of scenario c/base changed since this batch started" in message
    assert f"{package}/helper.py" in message and str(tmp_path) + "/" + package not in message
    assert "restore its code to finish this batch, or start a new batch" in message
    assert len(store.read_runs(runset)) == 1, "nothing was run by the refused resume"
    (tmp_path / package / "helper.py").write_text("HELLO = 'hello'\n")
    assert await _resume(suite, runset) == 1, "the same code again: the batch finishes"


async def test_a_changed_command_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "agent.py").write_text(WRITES)
    suite = tmp_path / "suite.yaml"
    argv = json.dumps([sys.executable, "agent.py", "{output}"])
    suite.write_text(
        "name: code\ndefaults: {runs: 2}\nscenarios:\n  - id: c\n    input: hi\n"
        f"    agent: {{kind: command, argv: {argv}, uses_model: false}}\n"
    )
    runset = tmp_path / "rs"
    await _start_and_cut(suite, runset)
    (tmp_path / "agent.py").write_text(WRITES + "# edited\n")
    with pytest.raises(
        SuiteError, match=r"changed since this batch started \(its code: agent\.py;"
    ):
        await _resume(suite, runset)
