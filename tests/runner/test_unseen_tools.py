"""A criterion of a command (or callable) agent naming a tool no run called is warned about
after the batch (`trajguard run`'s summary) and in the compare report (issue 25)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from trajguard_testkit.scripted import Scripted

from trajguard import store
from trajguard._tools_seen import unseen_tool_warnings
from trajguard.comparison import compare_runsets
from trajguard.runner import BatchOptions, run_batch
from trajguard.suite import load_suite

AGENT = """
import json, sys
steps = [
    {"step_id": 1, "source": "user", "message": "q"},
    {"step_id": 2, "source": "agent", "message": "", "tool_calls": [
        {"tool_call_id": "c1", "function_name": "capital_lookup", "arguments": {"c": "FR"}},
        {"tool_call_id": "c2", "function_name": "calculator", "arguments": {"e": "1+1"}}],
     "observation": {"results": [{"source_call_id": "c1", "content": "Paris"},
                                 {"source_call_id": "c2", "content": "2"}]}},
    {"step_id": 3, "source": "agent", "message": "Paris"},
]
with open(sys.argv[1], "w") as out:
    json.dump({"schema_version": "ATIF-v1.7", "session_id": "s",
               "agent": {"name": "x", "version": "1"}, "steps": steps}, out)
"""


def test_the_warning_names_the_tools_seen_and_a_close_one() -> None:
    labels = ["tool_called: capital_lookupp", "tool_called: calculator", "max_steps: 3"]
    assert unseen_tool_warnings(labels, ["capital_lookup", "calculator"]) == (
        "tool_called: capital_lookupp — no run called a tool of that name (did you mean "
        "'capital_lookup'?); tools seen: calculator, capital_lookup",
    )
    assert unseen_tool_warnings(["tool_called_with: zzz"], []) == (
        "tool_called_with: zzz — no run called a tool of that name; tools seen: none",
    )
    assert unseen_tool_warnings(["tool_not_called: zzz"], []) == ()


async def test_a_command_agents_misspelt_tool_is_warned_about(tmp_path: Path) -> None:
    (tmp_path / "agent.py").write_text(AGENT)
    argv = json.dumps([sys.executable, "agent.py", "{output}"])
    suite_file = tmp_path / "suite.yaml"
    suite_file.write_text(
        "name: typo\ndefaults: {runs: 2, concurrency: 1}\nscenarios:\n"
        f"  - id: cmd\n    agent: {{kind: command, uses_model: false, argv: {argv}}}\n"
        "    input: capital of France?\n    tags: [geo, typo]\n"
        "    description: France's capital\n    pass:\n"
        "      - tool_called: capital_lookupp\n      - tool_called: calculator\n"
    )
    suite = load_suite(suite_file)  # valid: a command agent's tools are learnt from its runs
    runset = tmp_path / "rs"
    result = await run_batch(suite, runset, BatchOptions(), make_model=lambda _: Scripted([]))
    warning = (
        "tool_called: capital_lookupp — no run called a tool of that name (did you mean "
        "'capital_lookup'?); tools seen: calculator, capital_lookup"
    )
    assert result.warnings == (warning,)
    assert result.passed == 0
    runs = store.read_runs(runset)
    assert compare_runsets(runs, runs).warnings == (warning,)
    assert store.read_manifest(runset)["tags"] == {"cmd": ["geo", "typo"]}  # reports group by them
    assert store.read_manifest(runset)["descriptions"] == {"cmd": "France's capital"}  # shown


def test_the_run_summary_and_the_markdown_report_show_the_warning() -> None:
    from trajguard.cli.run import summary

    class Startup:
        elapsed_s, first_run_s = 1.0, None

    from trajguard.runner import BatchResult

    result = BatchResult(
        runset=Path("rs"),
        planned=1,
        skipped=0,
        counts={"ok": 1},
        passed=0,
        crashed=0,
        elapsed_s=1.0,
        warnings=("tool_called: x — no run called a tool of that name; tools seen: y",),
    )
    assert "\nwarning: tool_called: x — no run called" in summary(result, Startup())  # type: ignore[arg-type]
