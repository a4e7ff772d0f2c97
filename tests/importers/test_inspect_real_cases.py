"""Logs Inspect AI 0.3.285 wrote (tests/importers/inspect_side/make_logs.py: its real eval loop,
``react()``, tools, limits, scorers and log writer; the model's replies scripted) with an
errored sample, a message limit, a token limit, a dict scorer and ``react()``'s ``submit()``:
Inspect's own headline figure beside trajguard's, and the runs that separate them counted.

Inspect's figures are read from each log by Inspect's reader, never typed in; the expected
differences are derived from what the samples hold (errors, limits, scores)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from inspect_ai.log import read_eval_log

from trajguard.importers import ImportOptions, headlines
from trajguard.importers._inspect import read

DATA = Path(__file__).parent / "data" / "inspect"
SIDE = Path(__file__).parent / "inspect_side"
REACT, TROUBLES = DATA / "react-submit.eval", DATA / "troubles.eval"
READERS = ["inspect", "builtin"]


def _inspect_accuracy(log: Path) -> dict[str, float]:
    """Inspect's accuracy per scorer (``shape/<key>`` for the dict scorer's keys)."""
    header = read_eval_log(str(log), header_only=True)
    assert header.results is not None
    return {
        (s.name if s.scorer == s.name else f"{s.scorer}/{s.name}"): s.metrics["accuracy"].value
        for s in header.results.scores
    }


def _tool_events(log: Path) -> dict[tuple[str, int], list[str]]:
    samples = read_eval_log(str(log)).samples or []
    return {
        (str(s.id), s.epoch - 1): [e.function for e in s.events if e.event == "tool"]
        for s in samples
    }


@pytest.mark.parametrize("reader", READERS)
def test_reacts_submit_is_counted_as_inspects_tool_events(reader: str) -> None:
    events = _tool_events(REACT)
    samples = read_eval_log(str(REACT)).samples or []
    in_messages = sum(
        len(m.tool_calls or []) for s in samples for m in s.messages if m.role == "assistant"
    )
    assert in_messages == len(samples)  # react() left only the add() calls in the messages
    batch = read([REACT], ImportOptions(), reader=reader)
    assert len(batch.runs) == len(events) == 6
    for run in batch.runs:
        assert run.trajectory is not None
        calls = [c for step in run.trajectory.steps for c in step.tool_calls or []]
        assert [c.function_name for c in calls] == events[(run.scenario, run.run_index)]
        assert [c.function_name for c in calls] == ["add", "submit"]
        (restored,) = [c for c in calls if c.extra]
        assert restored.extra == {"restored_from": "inspect tool event"}
        answered = {r.source_call_id: r.content for s in run.trajectory.steps
                    for r in (s.observation.results if s.observation else [])}  # fmt: skip
        assert answered[restored.tool_call_id] == run.final_output


def test_the_run_set_counts_submit_in_tool_usage(cli: Callable[..., Any], tmp_path: Path) -> None:
    done = cli("import", "inspect", str(REACT), "--out", "r", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    rows = pd.read_parquet(tmp_path / "r" / "runs.parquet")
    for counts in rows["tool_counts"]:
        assert dict(counts) == {"add": 1, "submit": 1}
    assert set(rows["step_count"]) == {4}


@pytest.mark.parametrize("reader", READERS)
def test_react_figures_agree(reader: str) -> None:
    (headline,) = headlines(read([REACT], ImportOptions(), reader=reader))
    assert headline.value == _inspect_accuracy(REACT)["includes"] == pytest.approx(4 / 6)
    assert (headline.passes, headline.judged, headline.differ) == (4, 6, False)


@pytest.mark.parametrize("reader", READERS)
def test_errors_and_limits_are_what_the_samples_say(reader: str) -> None:
    samples = read_eval_log(str(TROUBLES)).samples or []
    expected = {
        (str(s.id), s.epoch - 1): (
            "RuntimeError" if s.error else f"{s.limit.type}_limit" if s.limit else None
        )
        for s in samples
    }
    assert Counter(expected.values()) == Counter(
        {None: 4, "RuntimeError": 2, "message_limit": 2, "token_limit": 2}
    )
    batch = read([TROUBLES], ImportOptions(), reader=reader)
    for run in batch.runs:
        assert run.error_type == expected[(run.scenario, run.run_index)]
        ending = run.error_type
        assert run.status == (
            "ok" if ending is None else "crash" if ending == "RuntimeError" else "agent_error"
        )
    tools = {(r.scenario, r.run_index): [c.function_name for s in r.trajectory.steps
             for c in s.tool_calls or []] for r in batch.runs if r.trajectory}  # fmt: skip
    assert tools == _tool_events(TROUBLES)


def _reconciled(headline: Any, counted: dict[str, int]) -> float:
    """Inspect's accuracy rebuilt from trajguard's figure and the counted differences: leave
    the errored samples out, credit what hit a limit (all 0/1 values here)."""
    return (headline.passes + counted.get("limit", 0)) / (headline.judged - counted["errored"])


@pytest.mark.parametrize("reader", READERS)
def test_inspects_accuracy_beside_ours_with_the_reasons_counted(reader: str) -> None:
    accuracy = _inspect_accuracy(TROUBLES)
    assert accuracy == pytest.approx({"includes": 0.75, "shape/correct": 0.75, "shape/short": 0.25})
    found = {h.name: h for h in headlines(read([TROUBLES], ImportOptions(), reader=reader))}
    assert list(found) == [f"Inspect's accuracy ({name})" for name in accuracy]
    errored = (
        "2 errored sample(s): Inspect leaves them out of accuracy(), trajguard counts each as a "
        "failed run (a crash)"
    )
    for scorer, value in accuracy.items():
        headline = found[f"Inspect's accuracy ({scorer})"]
        assert headline.value == value
        assert (headline.passes, headline.judged, headline.differ) == (2, 10, True)
        limit = (
            f"4 run(s) that hit a limit (message_limit 2, token_limit 2) with credit from "
            f"{scorer}: Inspect scores what they answered, trajguard counts each as a failed "
            "run (a crash)"
        )
        counted = {"errored": 2, "limit": 4 if scorer != "shape/short" else 0}
        assert headline.reasons == ((errored, limit) if counted["limit"] else (errored,))
        assert _reconciled(headline, counted) == pytest.approx(value)


@pytest.mark.parametrize("reader", READERS)
def test_one_key_of_the_dict_scorer_decides(reader: str) -> None:
    samples = {(str(s.id), s.epoch - 1): s for s in read_eval_log(str(TROUBLES)).samples or []}
    batch = read([TROUBLES], ImportOptions(scorer="shape/short"), reader=reader)
    for run in batch.runs:
        sample = samples[(run.scenario, run.run_index)]
        if sample.error is not None or sample.limit is not None:
            continue  # a crash fails whatever its scores (the run set's rows say so)
        assert sample.scores is not None
        short = sample.scores["shape"].value["short"]  # type: ignore[index]
        assert run.passed is (short == "C")
        assert [c.held for c in run.criteria if c.name != "shape/short"] == [None, None]
    assert Counter(r.passed for r in batch.runs if r.status == "ok") == {True: 2, False: 2}


def test_the_import_summary_prints_both_figures(cli: Callable[..., Any], tmp_path: Path) -> None:
    done = cli("import", "inspect", str(TROUBLES), "--out", "t", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (
        "Inspect's accuracy (shape/short): 0.250; trajguard's pass rate: 0.200 (2 of 10 judged "
        "runs)\n  they differ: 2 errored sample(s)" in done.stdout
    )
    manifest = json.loads((tmp_path / "t" / "manifest.json").read_text())
    assert "shape/correct" in json.dumps(manifest["imported"])


def test_the_committed_logs_are_what_the_script_writes(tmp_path: Path) -> None:
    """Inspect's eval loop run again now (in its own process, as a user runs it): the same
    figures, tool events and reasons as the committed logs."""
    done = subprocess.run(
        [sys.executable, str(SIDE / "make_logs.py"), str(tmp_path)],
        env={**os.environ, "INSPECT_LOG_DIR": str(tmp_path / "logs")},
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    for committed in (REACT, TROUBLES):
        fresh = tmp_path / committed.name
        assert _inspect_accuracy(fresh) == _inspect_accuracy(committed), fresh
        assert _tool_events(fresh) == _tool_events(committed), fresh
        ours = [(h.name, h.passes, h.judged, h.reasons) for h in
                headlines(read([fresh], ImportOptions(), reader="builtin"))]  # fmt: skip
        theirs = [(h.name, h.passes, h.judged, h.reasons) for h in
                  headlines(read([committed], ImportOptions(), reader="builtin"))]  # fmt: skip
        assert ours == theirs, fresh


def test_a_call_whose_message_is_gone_goes_on_the_last_agent_step() -> None:
    from trajguard.atif import Agent
    from trajguard.importers._inspect_files import open_log
    from trajguard.importers._inspect_log import TOOL_EVENTS
    from trajguard.importers._inspect_trajectory import trajectory

    (_, sample), *_ = open_log(REACT).samples()
    *kept, gone = sample["messages"]  # the assistant message that called submit()
    assert gone["role"] == "assistant" and not gone.get("tool_calls")
    events = sample[TOOL_EVENTS]
    assert [e["caller"] for e in events][-1] == gone["id"]
    made = trajectory(
        kept,
        agent=Agent(name="inspect:react_submit", version="0.3.285"),
        model="scripted/script",
        session_id=None,
        totals=(None, None),
        tool_events=events,
    )
    assert made is not None
    last = [step for step in made.steps if step.source == "agent"][-1]
    assert [c.function_name for c in last.tool_calls or []] == ["add", "submit"]
    assert sum(len(step.tool_calls or []) for step in made.steps) == len(events) == 2
