"""trajguard's own writers for the conformance harness: every kind of trajectory trajguard writes.

* the recorder, driven by the reference agent (native and JSON mode) over a scripted model:
  tool calls, unknown tools, malformed arguments, the tool budget, the step cap;
* the recorder used directly, including a run that crashes;
* zero-code capture of unmodified ``litellm.completion`` calls (``mock_response`` and
  ``mock_tool_calls``: litellm's real callback path, no network);
* the normalised trajectory stored in a run row (``trajguard.runner.build_row``), made by
  :func:`row_documents` for every document trajguard accepts.

Wire capture does not exist yet, so it is not covered. A run that records no step at all
(a capture around code that made no model call) gives ``steps: []``, which ATIF refuses (N10);
such runs are left out here on purpose and listed in the harness output.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # litellm must not fetch prices

from trajguard.agent.loop import ReferenceAgent
from trajguard.atif import load_trajectory, trajectory_to_dict
from trajguard.capture import LLMResponse, Message, ToolCallRequest, TrajectoryRecorder, Usage
from trajguard.examples.demo_tools import calculator, get_weather, lookup_country
from trajguard.runner import RunSpec, build_row

Written = tuple[str, dict[str, Any], str]  # (file stem, document, origin)
CITIES = ("Paris", "Bonn", "Lyon", "Oslo")


class ScriptedModel:
    """A model that answers from a list of responses, in order."""

    def __init__(self, responses: Sequence[LLMResponse]) -> None:
        self._responses = list(responses)
        self.model_name = "scripted/model"

    async def complete(self, messages: Sequence[Message], **_: Any) -> LLMResponse:
        return self._responses.pop(0) if self._responses else LLMResponse(content="done")


def _usage(rng: random.Random) -> Usage:
    return Usage(rng.randint(5, 400), rng.randint(1, 60), rng.choice([0, 0, rng.randint(1, 5)]))


def _native_script(rng: random.Random) -> list[LLMResponse]:
    script = []
    for turn in range(rng.randint(0, 3)):
        name, arguments = rng.choice(
            [
                ("get_weather", json.dumps({"city": rng.choice(CITIES)})),
                ("calculator", json.dumps({"expression": f"{rng.randint(1, 9)}*7"})),
                ("lookup_country", json.dumps({"country": "France"})),
                ("no_such_tool", "{}"),
                ("calculator", "{not json"),
            ]
        )
        call = ToolCallRequest(
            id=rng.choice(["", f"call_{turn}{rng.getrandbits(20):x}"]),
            name=name,
            arguments=arguments,
        )
        script.append(
            LLMResponse(
                content=rng.choice([None, "Let me check."]),
                tool_calls=(call,),
                usage=_usage(rng),
                model="scripted-v1",
            )
        )
    script.append(LLMResponse(content="The answer is 42.", usage=_usage(rng), model="scripted-v1"))
    return script


def _json_script(rng: random.Random) -> list[LLMResponse]:
    script = [
        LLMResponse(
            content=rng.choice(
                [
                    '{"tool": "calculator", "expression": "6*7"}',
                    "not json",
                    '{"tool": "get_weather", "city": "Oslo"}',
                ]
            ),
            usage=_usage(rng),
        )
        for _ in range(rng.randint(0, 3))
    ]
    script.append(
        LLMResponse(content='{"tool": "final_answer", "answer": "42"}', usage=_usage(rng))
    )
    return script


async def _agent_runs(rng: random.Random, count: int) -> list[Written]:
    written: list[Written] = []
    for index in range(count):
        mode = "native" if index % 2 == 0 else "json"
        agent = ReferenceAgent(
            mode=mode,
            tools=[calculator, get_weather, lookup_country],
            system_prompt="You answer with tools.",
            max_steps=rng.randint(1, 4),
            tool_budget=rng.choice([None, 1]),
        )
        script = _native_script(rng) if mode == "native" else _json_script(rng)
        result = await agent.run(ScriptedModel(script), "What is 6 * 7?", seed=index)
        written.append(
            (
                f"trajguard-agent-{index:03d}",
                trajectory_to_dict(result.trajectory),
                f"trajguard recorder (reference agent, {mode})",
            )
        )
    return written


def _recorder_runs(rng: random.Random, count: int) -> list[Written]:
    written: list[Written] = []
    for index in range(count):
        rec = TrajectoryRecorder(agent_name="user-loop", agent_version="0.3", model_name="m-1")
        rec.system("You are terse.")
        rec.user(
            [
                {"type": "text", "text": "Look:"},
                {
                    "type": "image",
                    "source": {"media_type": "image/png", "path": "https://x.test/a.png"},
                },
            ]
            if rng.random() < 0.3
            else "Hi"
        )
        step = rec.agent_step(
            LLMResponse(
                content="calling",
                tool_calls=(ToolCallRequest(id=rec.new_call_id(), name="f", arguments='{"a": 1}'),),
                usage=_usage(rng),
            )
        )
        rec.observe(step, step.tool_calls[0].tool_call_id if step.tool_calls else None, "ok")
        error = RuntimeError("tool server went away") if index % 3 == 2 else None
        if index % 3 == 1:
            rec.agent_error("max_steps", "no final answer")
        written.append(
            (
                f"trajguard-recorder-{index:03d}",
                trajectory_to_dict(rec.finish(error=error)),
                "trajguard recorder (direct)",
            )
        )
    return written


def _zero_code_runs(rng: random.Random, count: int) -> list[Written]:
    import litellm

    from trajguard.capture.zerocode import capture_litellm

    tools = [
        {
            "type": "function",
            "function": {
                "name": "get_weather",
                "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
            },
        }
    ]
    written: list[Written] = []
    for index in range(count):
        with capture_litellm(agent_name="zero-code", agent_version="1") as cap:
            messages: list[Any] = [
                {"role": "system", "content": "Weather bot."},
                {"role": "user", "content": "Weather?"},
            ]
            for turn in range(rng.randint(0, 2)):
                call = {
                    "id": f"call_{index}_{turn}",
                    "type": "function",
                    "function": {
                        "name": "get_weather",
                        "arguments": json.dumps({"city": rng.choice(CITIES)}),
                    },
                }
                first = litellm.completion(
                    model="openai/mock", messages=messages, tools=tools, mock_tool_calls=[call]
                )
                messages += [
                    first.choices[0].message,
                    {"role": "tool", "tool_call_id": call["id"], "content": "rain"},
                ]
            litellm.completion(model="openai/mock", messages=messages, mock_response="It rains.")
        written.append(
            (
                f"trajguard-zerocode-{index:03d}",
                trajectory_to_dict(cap.trajectory),
                "trajguard zero-code capture",
            )
        )
    return written


def trajguard_documents(
    seed: int, *, agents: int = 16, recorder: int = 6, zero_code: int = 6
) -> list[Written]:
    """Trajectories written by trajguard's recorder and zero-code capture."""
    rng = random.Random(seed)
    written = asyncio.run(_agent_runs(rng, agents))
    written += _recorder_runs(rng, recorder)
    return written + _zero_code_runs(rng, zero_code)


def export_documents(paths: Sequence[tuple[str, Path]]) -> list[Written]:
    """What ``trajguard export`` writes for the run rows of each (already validated) file: the
    rows go into a run set, ``trajguard.runs.export_runs`` writes one ATIF file per run."""
    import tempfile

    from trajguard import store
    from trajguard.runs import export_file_name, export_runs

    rows = _rows(paths)
    with tempfile.TemporaryDirectory(prefix="atif-export-") as temp:
        runset = Path(temp) / "rs"
        store.write_runs(runset / store.RUNS_FILE, [row for row, _, _ in rows])
        store.write_manifest(runset, {"suite": "atif", "status": "finished"})
        result = export_runs(runset, Path(temp) / "out")
        assert not result.without_trajectory
        written: list[Written] = []
        for row, origin, path in rows:
            name = export_file_name(row["scenario"], row["variant"], row["run_index"])
            document = json.loads((result.out / name).read_text(encoding="utf-8"))
            written.append((f"export-{path.stem}", document, f"trajguard export (of {origin})"))
    return written


def _rows(paths: Sequence[tuple[str, Path]]) -> list[tuple[dict[str, Any], str, Path]]:
    """The run row trajguard stores for each (already validated) file."""
    batch = {"batch_id": "conformance", "suite": "atif", "trajguard_version": "harness"}
    rows = []
    for index, (origin, path) in enumerate(paths):
        spec = RunSpec(
            run_id=f"r{index}",
            scenario="s",
            variant="v",
            run_index=index,
            seed=index,
            config_hash="-",
        )
        row = build_row(
            spec=spec,
            batch=batch,
            model="m",
            status="ok",
            started_at=datetime.now(UTC),
            duration_s=0.0,
            trajectory=load_trajectory(path),
            criteria=[],
            resolve=lambda name: lambda _: True,
        )
        rows.append((row, origin, path))
    return rows


def row_documents(paths: Sequence[tuple[str, Path]]) -> list[Written]:
    """The normalised trajectory a run row stores, for each (already validated) file."""
    return [
        (
            f"row-{path.stem}",
            json.loads(row["trajectory"]),
            f"trajguard normalised row (of {origin})",
        )
        for row, origin, path in _rows(paths)
    ]
