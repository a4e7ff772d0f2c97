"""One run: the agent under its timeout, the outcome sorted into a status, the row built.

Whatever the outcome, the run keeps what was captured until it ended: a crashed or timed-out
agent's trajectory is made of the model calls it had made (at the wire endpoint, through
litellm, or in the recorder it fed).
"""

from __future__ import annotations

import asyncio
import functools
import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any

from trajguard._user_code import PREDICATE_TIMEOUT_S, bounded_call, in_thread, within
from trajguard.atif import Trajectory
from trajguard.capture import ChatModel, user_cost
from trajguard.capture.wire import WireServer
from trajguard.errors import AgentFailure
from trajguard.local_model import fatal_crash
from trajguard.outcome import HARNESS_ERROR, Status
from trajguard.runner._agents import run_agent, trajectory_of
from trajguard.runner._conversation_rows import conversation_columns
from trajguard.runner._faults import annotate_tool_faults, run_faults
from trajguard.runner._judging import Judges, uses_judge
from trajguard.runner._models import endpoint
from trajguard.runner._plan import RunSpec
from trajguard.runner._rows import build_row
from trajguard.runner._state import new_state, with_final_state
from trajguard.runner._wire import run_capture
from trajguard.suite import ResolvedScenario, import_object

__all__ = ["bounded_predicates", "one_run"]


async def one_run(
    spec: RunSpec,
    arm: ResolvedScenario,
    model: ChatModel,
    manifest: Mapping[str, Any],
    *,
    wire: WireServer | None = None,
    judges: Judges | None = None,
) -> dict[str, Any]:
    """Run ``spec`` once and return its row (never raises for what the agent does).

    Args:
        wire: the batch's wire endpoint; callable and command agents reach their model there.
        judges: the batch's judges (their cache); ``None``: this run's own.
    """
    started_at = datetime.now(UTC)
    clock = time.monotonic()
    status: Status = "ok"
    trajectory: Trajectory | None = None
    error: BaseException | None = None
    error_message: str | None = None
    faults = run_faults(
        arm, batch_seed=int(manifest.get("batch_seed") or 0), run_index=spec.run_index
    )
    capture = run_capture(spec, arm, model, wire, faults=faults)
    state = new_state(arm)
    try:
        trajectory = await within(
            run_agent(
                arm,
                model=model,
                seed=spec.seed,
                api_base=endpoint(arm, model),
                capture=capture,
                faults=faults,
                state=state,
            ),
            arm.timeout_s,
        )
        extra = trajectory.extra or {}
        if extra.get("crashed"):  # a trajectory handed back by an agent that crashed
            status = "crash"
        elif extra.get("agent_error"):  # it gave up, and said why
            status = "agent_error"
    except TimeoutError as exc:
        status, error = "timeout", exc
        trajectory = trajectory_of(exc) or await capture.trajectory(error=exc)
        error_message = f"run exceeded its {arm.timeout_s:g} s timeout"
    except AgentFailure as exc:
        status, error = "crash", exc
        trajectory = exc.trajectory or await capture.trajectory(error=exc)
    except Exception as exc:  # trajguard or the infrastructure failed: not the agent's doing
        status, error, trajectory = HARNESS_ERROR, exc, trajectory_of(exc)
    finally:
        await capture.close()
    crashed = fatal_crash()
    if crashed is not None:  # the model is gone, not this run's doing: the batch stops, resumably
        raise crashed
    if trajectory is not None:
        trajectory = with_final_state(annotate_tool_faults(trajectory, faults), arm, state)
    row = functools.partial(
        build_row,
        spec=spec,
        batch=manifest,
        model=arm.model,
        prices=arm.prices,
        status=status,
        started_at=started_at,
        duration_s=time.monotonic() - clock,
        trajectory=trajectory,
        criteria=arm.pass_criteria,
        resolve=bounded_predicates(arm),
        error=error,
        error_message=error_message,
        final_answer_tool=getattr(arm.agent, "final_answer_tool", None),
        faults_planned=faults is not None,
        turns=arm.turns,
        judge=(judges or Judges(attempt_timeout_s=arm.timeout_s)).function(
            asyncio.get_running_loop(),
            run_id=spec.run_id,
            seed=spec.seed,
            timeout_s=arm.timeout_s,
        )
        if uses_judge(arm)
        else None,
    )
    # off the loop: the predicates in it are user code (each bounded), and the other runs and
    # Ctrl-C must not wait for them
    built: dict[str, Any] = await in_thread(row, what="the row of a run", name="trajguard-row")
    built.update(conversation_columns(arm, trajectory, built["status"]))
    user_model = arm.user.user_model if arm.user is not None else None
    built["user_cost_usd"] = user_cost(trajectory, user_model, arm.prices) if user_model else None
    return built


def bounded_predicates(arm: ResolvedScenario) -> Callable[[str], Callable[[Any], object]]:
    """How a run's predicates are looked up: each call in a thread of its own, bounded by
    :data:`PREDICATE_TIMEOUT_S` or the run's ``timeout_s`` if shorter; its truth taken there
    too (a returned object's ``__bool__`` is user code as well)."""
    bound = min(PREDICATE_TIMEOUT_S, arm.timeout_s)

    def resolve(target: str) -> Callable[[Any], object]:
        function = import_object(target, allowed_modules=arm.allow_modules)

        def judged(trajectory: Any) -> bool:
            return bool(function(trajectory))

        def call(trajectory: Any) -> object:
            return bounded_call(judged, trajectory, what=target, timeout_s=bound)

        return call

    return resolve
