"""The framework matrix: each example agent of ``examples/`` run by trajguard on the embedded
model through the wire endpoint; every run is captured, and its row agrees with the framework's
own record of the run — model calls, tool names and arguments, tool results joined to their
calls, tokens, final answer, how the run ended, the framework's errors.

The example's agent function is swapped for a recorder (``recorders/record_<name>.py``) that runs
the same agent (the example's ``build_agent``) and writes the framework's own record of it. The
frameworks come from the ``frameworks`` extra (and ``npm install`` in ``examples/node_command``);
a test whose framework is missing is skipped locally, and CI sets
``TRAJGUARD_REQUIRE_FRAMEWORKS=1``, which turns that skip into a failure.
"""

from __future__ import annotations

import importlib
import json
import os
import shutil
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import yaml

from trajguard import store
from trajguard.core.shape import message_text
from trajguard.runner import BatchOptions, execute
from trajguard.suite import load_suite

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
RECORDERS = Path(__file__).resolve().parent / "recorders"
RUNS = 2
TIMEOUT_S = 900.0


def require(module: str) -> None:
    """Import ``module``, or skip (fail under ``TRAJGUARD_REQUIRE_FRAMEWORKS=1``)."""
    try:
        importlib.import_module(module)
    except ImportError as exc:
        if os.environ.get("TRAJGUARD_REQUIRE_FRAMEWORKS") == "1":
            pytest.fail(f"{module} is required here (TRAJGUARD_REQUIRE_FRAMEWORKS=1): {exc}")
        pytest.skip(f"{module} is not installed: pip install -e '.[frameworks]'")


@dataclass
class Matrix:
    """A framework's captured rows and its own records, matched by run seed."""

    rows: list[dict[str, Any]]
    records: dict[int, dict[str, Any]]
    planned: int

    def pairs(self) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
        for row in self.rows:
            yield row, self.records[int(row["seed"])]


@pytest.fixture
def run_example(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, local_model: Any
) -> Callable[..., Matrix]:
    """Run an example suite with its agent function swapped for a recorder of the framework's
    own record (``recorders/record_<name>.py``), ``RUNS`` times, on the embedded model."""

    def run(example: str, *, function: str | None = None) -> Matrix:
        folder = EXAMPLES / example
        monkeypatch.syspath_prepend(str(folder))
        monkeypatch.syspath_prepend(str(RECORDERS))
        data = yaml.safe_load((folder / "suite.yaml").read_text())
        records = tmp_path / "records"
        for scenario in data["scenarios"]:
            agent = scenario["agent"]
            if function is not None:
                agent["function"] = function
            agent["params"] = {**agent.get("params", {}), "record_dir": str(records)}
            if agent["kind"] == "command":  # relative to the example, where it was written
                agent["argv"] = [
                    a if a.startswith("{") else _local(folder, a) for a in agent["argv"]
                ]
                agent["env"] = {**agent.get("env", {}), "AGENT_LOG_DIR": str(records)}
        path = tmp_path / "suite.yaml"
        path.write_text(yaml.safe_dump(data))
        runset = tmp_path / "runs"
        # a generous timeout: a run cut off has no record of the framework's to compare with
        options = BatchOptions(runs=RUNS, seed=20261201, timeout_s=TIMEOUT_S)
        execute(load_suite(path), runset, options)
        rows = store.read_runs(runset).to_dict("records")
        found = {int(p.stem): json.loads(p.read_text()) for p in records.glob("*.json")}
        return Matrix(rows=rows, records=found, planned=RUNS * len(data["scenarios"]))

    return run


def _local(folder: Path, arg: str) -> str:
    candidate = folder / arg
    return str(candidate) if candidate.exists() else arg


def _texts(trajectory: Mapping[str, Any]) -> str:
    parts = []
    for step in trajectory["steps"]:
        parts.append(message_text(step.get("message")))
        for result in (step.get("observation") or {}).get("results", []):
            parts.append(message_text(result.get("content")))
    return "\n".join(parts)


def _arguments(call: Mapping[str, Any]) -> Any:
    """A captured call's arguments; arguments that were not a JSON object stay raw text."""
    raw = (call.get("extra") or {}).get("raw_arguments")
    return {"_raw": raw} if raw is not None else call["arguments"]


def check_fidelity(row: Mapping[str, Any], record: Mapping[str, Any]) -> int:
    """Assert that a captured row says what the framework recorded; return the checks made."""
    trajectory = json.loads(row["trajectory"])
    agent_steps = [s for s in trajectory["steps"] if s["source"] == "agent"]
    checks = 0
    assert row["llm_calls"] == record["model_calls"], "steps: one agent step per model call"
    checks += 1
    calls = [(step, call) for step in agent_steps for call in step.get("tool_calls") or ()]
    captured = [(call["function_name"], _arguments(call)) for _, call in calls]
    # a call the framework parsed out of the model's text answer is, at the wire, that text
    own_calls = [c for c in record["tool_calls"] if not c.get("from_text")]
    assert captured == [(c["name"], c["arguments"]) for c in own_calls], "tool calls"
    checks += 1
    text = _texts(trajectory)
    for parsed in (c for c in record["tool_calls"] if c.get("from_text")):
        assert parsed["name"] in text, "a call parsed from text is in the captured message"
        checks += 1
    last = agent_steps[-1] if agent_steps else None
    for (step, call), own in zip(calls, own_calls, strict=True):
        if own["result"] is None or step is last:  # never sent back to the model: unseen
            continue
        joined = [
            r
            for r in (step.get("observation") or {}).get("results", [])
            if r.get("source_call_id") == call["tool_call_id"]
        ]
        assert len(joined) == 1, f"the result of {call['function_name']} is joined to its call"
        assert own["result"].strip() in message_text(joined[0]["content"])
        checks += 1
    tokens = (row["prompt_tokens"], row["completion_tokens"])
    assert tokens == (record["prompt_tokens"], record["completion_tokens"]), "token counts"
    checks += 1
    if record["final_output"] is not None:
        assert row["final_output"] == record["final_output"], "final answer"
        checks += 1
    if record.get("raised") is not None:  # the framework raised: a crash, its type recorded
        assert (row["status"], row["error_type"], row["crashed"]) == (
            "crash",
            record["raised"],
            True,
        )
    elif record["stopped"] is not None:
        assert (row["status"], row["error_type"]) == ("agent_error", record["stopped"])
    else:
        assert row["status"] == "ok", row["error_message"]
    checks += 1
    text = _texts(trajectory)
    for error in record["errors"]:
        if error != "Reached max steps.":  # the step cap is the run's end: never sent on
            assert error in text, f"the framework's error {error!r} is in the trajectory"
            checks += 1
    return checks


def report(name: str, matrix: Matrix) -> str:
    """One line per framework for the closing note: runs captured, checks passed, wall time."""
    checks = sum(check_fidelity(row, record) for row, record in matrix.pairs())
    frame = pd.DataFrame(matrix.rows)
    statuses = {str(status): int(count) for status, count in frame["status"].value_counts().items()}
    return (
        f"{name}: {len(frame)} runs captured, {checks} fidelity checks passed, "
        f"statuses {statuses}, "
        f"median run {frame['duration_s'].median():.1f} s"
    )


def _node_record(log: Mapping[str, Any]) -> dict[str, Any]:
    """The Node agent's own log in the common record form."""
    usage = [call["usage"] for call in log["calls"]]
    return {
        "model_calls": len(log["calls"]),
        "tool_calls": [
            {"name": r["name"], "arguments": r["arguments"], "result": r["result"]}
            for r in log["tool_results"]
        ],
        "prompt_tokens": sum(u["prompt_tokens"] for u in usage),
        "completion_tokens": sum(u["completion_tokens"] for u in usage),
        "final_output": log["final_output"],
        "errors": [],
        "stopped": log["stopped"],
    }


pytestmark = pytest.mark.live


def _all_runs_checked(name: str, matrix: Matrix) -> None:
    assert len(matrix.rows) == matrix.planned, "every planned run is in the run set"
    unrecorded = [
        f"{row['run_id']}: {row['status']} {row['error_type']}: {row['error_message']}"
        for row in matrix.rows
        if int(row["seed"]) not in matrix.records
    ]
    assert not unrecorded, f"the framework recorded every run; not: {unrecorded}"
    print(report(name, matrix))


def test_smolagents(run_example: Callable[..., Matrix]) -> None:
    require("smolagents")
    matrix = run_example("smolagents", function="record_smolagents:run")
    _all_runs_checked("smolagents", matrix)
    for row, _ in matrix.pairs():
        trajectory = json.loads(row["trajectory"])
        sources = [step["source"] for step in trajectory["steps"][:2]]
        assert sources == ["system", "user"], "smolagents' enum roles are read by value"


def test_openai_agents(run_example: Callable[..., Matrix]) -> None:
    require("agents")
    _all_runs_checked(
        "openai-agents", run_example("openai_agents", function="record_openai_agents:run")
    )


def test_pydantic_ai(run_example: Callable[..., Matrix]) -> None:
    require("pydantic_ai")
    _all_runs_checked("pydantic-ai", run_example("pydantic_ai", function="record_pydantic_ai:run"))


def test_langgraph(run_example: Callable[..., Matrix]) -> None:
    require("langgraph")
    require("langchain_openai")
    _all_runs_checked("langgraph", run_example("langgraph", function="record_langgraph:run"))


def test_node_command_without_atif(run_example: Callable[..., Matrix]) -> None:
    node = shutil.which("node")
    installed = (EXAMPLES / "node_command" / "node_modules" / "openai").is_dir()
    if node is None or not installed:
        message = "node and `npm install` in examples/node_command are needed"
        if os.environ.get("TRAJGUARD_REQUIRE_FRAMEWORKS") == "1":
            pytest.fail(message)
        pytest.skip(message)
    matrix = run_example("node_command")
    matrix.records = {seed: _node_record(log) for seed, log in matrix.records.items()}
    _all_runs_checked("node command", matrix)
    for row in matrix.rows:
        trajectory = json.loads(row["trajectory"])
        assert trajectory["extra"]["capture"] == "wire", "no ATIF file: captured at the wire"
