"""One run: the agent under its timeout, the outcome sorted into a status, the row built."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from trajguard.capture.types import ChatModel
from trajguard.errors import AgentFailure
from trajguard.outcome import Status
from trajguard.run._agents import run_agent, trajectory_of
from trajguard.run._models import endpoint
from trajguard.run._plan import RunSpec
from trajguard.run._rows import build_row
from trajguard.suite import ResolvedScenario, import_object

__all__ = ["one_run"]


async def one_run(
    spec: RunSpec, arm: ResolvedScenario, model: ChatModel, manifest: Mapping[str, Any]
) -> dict[str, Any]:
    """Run ``spec`` once and return its row (never raises for what the agent does)."""
    started_at = datetime.now(UTC)
    clock = time.monotonic()
    status: Status = "ok"
    trajectory = None
    error: BaseException | None = None
    error_message: str | None = None
    api_base = endpoint(arm, model)
    try:
        trajectory = await asyncio.wait_for(
            run_agent(arm, model=model, seed=spec.seed, api_base=api_base), timeout=arm.timeout_s
        )
        extra = trajectory.extra or {}
        if extra.get("crashed") or extra.get("agent_error"):
            status = "agent_error"
    except TimeoutError as exc:
        status, error, trajectory = "timeout", exc, trajectory_of(exc)
        error_message = f"run exceeded its {arm.timeout_s:g} s timeout"
    except AgentFailure as exc:
        status, error, trajectory = "agent_error", exc, exc.trajectory
    except Exception as exc:  # trajguard or the infrastructure failed: not the agent's doing
        status, error, trajectory = "harness_error", exc, trajectory_of(exc)
    return build_row(
        spec=spec,
        batch=manifest,
        model=arm.model,
        status=status,
        started_at=started_at,
        duration_s=time.monotonic() - clock,
        trajectory=trajectory,
        criteria=arm.pass_criteria,
        resolve=import_object,
        error=error,
        error_message=error_message,
    )
