"""Run sets built through the row builder the runner uses (``trajguard.runner.build_row``): real
criteria evaluated on hand-made trajectories (for the runs and CLI tests)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter

from trajguard import store
from trajguard.atif import Trajectory
from trajguard.runner import RunSpec, build_row
from trajguard.suite import Criterion, import_object, parse_criterion

ADAPTER: TypeAdapter[Any] = TypeAdapter(Criterion)
CRITERIA = [
    {"tool_called": "lookup_country"},
    {"tool_not_called": "get_weather"},
    {"final_output_contains": "Canberra"},
]


def trajectory(
    calls: Sequence[str],
    final: str = "The capital is Canberra.",
    *,
    session: str = "s-1",
    stamp: str = "2026-12-01T10:00:00Z",
    message: str = "",
) -> Trajectory:
    steps: list[dict[str, Any]] = [
        {"step_id": 1, "source": "user", "message": "What is the capital of Australia?"}
    ]
    for index, name in enumerate(calls):
        call_id = f"{session}-call-{index}"
        steps.append(
            {
                "step_id": len(steps) + 1,
                "timestamp": stamp,
                "source": "agent",
                "model_name": "m",
                "message": message,
                "tool_calls": [
                    {"tool_call_id": call_id, "function_name": name, "arguments": {"x": index}}
                ],
                "observation": {"results": [{"source_call_id": call_id, "content": "ok"}]},
                "metrics": {"prompt_tokens": 10, "completion_tokens": 5},
            }
        )
    steps.append(
        {
            "step_id": len(steps) + 1,
            "timestamp": stamp,
            "source": "agent",
            "model_name": "m",
            "message": final,
            "metrics": {"prompt_tokens": 12, "completion_tokens": 3},
        }
    )
    return Trajectory.model_validate(
        {
            "schema_version": "ATIF-v1.7",
            "session_id": session,
            "agent": {"name": "tester", "version": "1"},
            "steps": steps,
        }
    )


def make_row(
    scenario: str,
    index: int,
    calls: Sequence[str],
    final: str = "The capital is Canberra.",
    *,
    variant: str = "base",
    status: str = "ok",
    criteria: Sequence[Mapping[str, Any]] = CRITERIA,
    with_trajectory: bool = True,
    error_message: str | None = None,
    **kwargs: Any,
) -> dict[str, Any]:
    spec = RunSpec(
        run_id=f"{scenario}/{variant}/{index}",
        scenario=scenario,
        variant=variant,
        run_index=index,
        seed=index,
        config_hash="c",
    )
    return build_row(
        spec=spec,
        batch={"batch_id": "b1", "suite": "demo", "trajguard_version": "test"},
        model="m",
        status=status,  # type: ignore[arg-type]
        started_at=datetime(2026, 12, 1, 10, 0, index, tzinfo=UTC),
        duration_s=1.0 + index,
        trajectory=trajectory(calls, final, **kwargs) if with_trajectory else None,
        criteria=[ADAPTER.validate_python(parse_criterion(c)) for c in criteria],
        resolve=import_object,
        error_message=error_message,
    )


RowMaker = Callable[..., dict[str, Any]]


def write_runset(path: Path, rows: Sequence[Mapping[str, Any]]) -> Path:
    store.write_runs(path / store.RUNS_FILE, rows)
    store.write_manifest(path, {"suite": "demo", "status": "finished", "batch_id": "b1"})
    return path
