"""Whose fault it was: every row of the one table of user-code failures
(``trajguard.outcome.USER_CODE_FAILURES``) is what a run of that failure records — the agent's
or the criterion's, counted by the statistics, never a harness error."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from trajguard_testkit.scripted import Scripted

from trajguard import store
from trajguard.capture import Message
from trajguard.outcome import HARNESS_ERROR, USER_CODE_FAILURES, UserCodeFailure, classify
from trajguard.runner import BatchOptions, run_batch
from trajguard.suite import load_suite

HERE = Path(__file__).parent
AGENT = (
    "import json, sys\n"
    "steps = [{'step_id': 1, 'source': 'user', 'message': 'hi'},"
    " {'step_id': 2, 'source': 'agent', 'message': 'done'}]\n"
    "json.dump({'schema_version': 'ATIF-v1.8', 'agent': {'name': 'a', 'version': '1'},"
    " 'steps': steps}, open(sys.argv[1], 'w'))\n"
)
SLEEPER = (
    "import asyncio\n\nasync def sleeps(ctx):\n    await asyncio.sleep(3600)\n\n"
    "def returns_a_number(ctx):\n    return 42\n"
)


def _builtin(tool: str) -> str:
    return f"agent: {{kind: builtin, mode: json, tools: ['user_code:{tool}']}}"


def _command(*argv: str) -> str:
    return f"agent: {{kind: command, argv: {json.dumps(list(argv))}, uses_model: false}}"


# One run of each row's failure: the scenario's agent (and criteria), the tool the model calls,
# and the error type the row's "<class>" stands for.
SCENARIOS: dict[tuple[str, str], tuple[str, str | None, str | None]] = {
    ("callable agent", "raises"): (
        "agent: {kind: callable, function: 'user_code:agent_exits'}",
        None,
        "SystemExit",
    ),
    ("callable agent", "returns no usable"): (
        "agent: {kind: callable, function: 'sleeper:returns_a_number'}",
        None,
        None,
    ),
    ("command agent", "exits non-zero"): (
        _command(sys.executable, "-c", "raise SystemExit(3)"),
        None,
        None,
    ),
    ("tool", "raises SystemExit"): (_builtin("tool_exits"), "tool_exits", "SystemExit"),
    ("tool", "raises any other"): (_builtin("cycle"), "cycle", None),
    ("predicate", "raises"): (
        _command(sys.executable, "agent.py", "{output}")
        + "\n    pass: [{predicate: 'user_code:exits'}]",
        None,
        None,
    ),
    ("callable agent", "does not end"): (
        "agent: {kind: callable, function: 'sleeper:sleeps'}",
        None,
        None,
    ),
}


def _scenario(row: UserCodeFailure) -> tuple[str, str | None, str | None]:
    matches = [
        v
        for (code, start), v in SCENARIOS.items()
        if row.code == code and row.failure.startswith(start)
    ]
    assert len(matches) == 1, f"no run of this row is tested: {row}"
    return matches[0]


def _reply(tool: str | None) -> Any:
    def reply(messages: Sequence[Message], _: dict[str, Any]) -> str:
        if tool is not None and not any(m["role"] == "assistant" for m in messages):
            return json.dumps({"tool": tool, "arguments": {}})
        return json.dumps({"tool": "final_answer", "answer": "done"})

    return reply


@pytest.mark.parametrize(
    "row", USER_CODE_FAILURES, ids=[f"{r.code}: {r.failure[:40]}" for r in USER_CODE_FAILURES]
)
async def test_each_kind_of_user_code_fails_as_the_table_says(
    row: UserCodeFailure, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "user_code.py").write_text((HERE / "user_code.py").read_text())
    (tmp_path / "sleeper.py").write_text(SLEEPER)
    (tmp_path / "agent.py").write_text(AGENT)
    monkeypatch.syspath_prepend(str(tmp_path))
    agent, tool, error_class = _scenario(row)
    suite = tmp_path / "suite.yaml"
    timeout_s = 2 if row.status == "timeout" else 60  # the others end at once (imports aside)
    suite.write_text(
        f"name: fault\ndefaults: {{runs: 2, timeout_s: {timeout_s}}}\nscenarios:\n"
        f"  - id: s\n    input: hi\n    {agent}\n"
    )
    runset = tmp_path / "rs"
    model = Scripted(_reply(tool))
    await run_batch(load_suite(suite), runset, BatchOptions(seed=1), make_model=lambda _: model)
    runs = store.read_runs(runset)
    assert HARNESS_ERROR not in set(runs["status"]), "the user's code is never infrastructure"
    assert classify(runs).behavioural.all(), "every run is counted by the statistics"
    expected_status = row.status or "ok"  # None: the run's own status (these agents finish)
    assert set(runs["status"]) == {expected_status}
    expected_type = error_class if row.error_type == "<class>" else row.error_type
    if row.error_type == "(the run's)":
        expected_type = None
    found = {None if pd.isna(kind) else kind for kind in runs["error_type"]}
    assert found == {expected_type}
    if row.error_type == "(the run's)":  # an error the model read: the agent went on and answered
        results = [r for s in map(json.loads, runs["trajectory"]) for r in _results(s)]
        assert [r["extra"] for r in results] == [{"error": "tool_error"}] * len(runs)
    else:
        assert not runs["passed"].any(), "a failure of the user's code never passes"


def _results(trajectory: dict[str, Any]) -> list[dict[str, Any]]:
    steps = trajectory["steps"]
    return [r for step in steps for r in (step.get("observation") or {}).get("results", [])]
