"""Everything that records one run, and the trajectory made of it — also after a crash or a
timeout, from whatever was captured until then.

Sources, in order of precedence: a trajectory the agent returns or writes (taken as it is),
the recorder the agent fed (``ctx.recorder``), and otherwise the model calls seen at the wire
endpoint and by zero-code capture of litellm, merged in the order they were made (a litellm
call sent to the wire endpoint is seen by both and counted once).
"""

from __future__ import annotations

import os
from dataclasses import replace
from typing import Any

from trajguard.atif import Trajectory
from trajguard.capture import TrajectoryRecorder
from trajguard.capture.wire import WireServer, WireSession
from trajguard.capture.zerocode import CallRecord, LiteLLMCapture, build_trajectory
from trajguard.suite import BuiltinAgent, CallableAgent, ResolvedScenario

__all__ = ["RunCapture", "agent_name"]


def agent_name(resolved: ResolvedScenario) -> str:
    """``agent.name`` of a trajectory trajguard builds for this scenario's agent."""
    agent = resolved.agent
    if isinstance(agent, CallableAgent):
        return agent.function
    if isinstance(agent, BuiltinAgent):
        return "trajguard-reference-agent"
    return os.path.basename(agent.argv[0])


class RunCapture:
    """The recorders of one run (see the module docstring).

    Args:
        agent_name: ``agent.name`` of a trajectory built from calls or the recorder.
        model_name: the run's model string.
        wire: the batch's wire endpoint, if the agent reaches its model through it.
        session: this run's session on ``wire``.
    """

    def __init__(
        self,
        *,
        agent_name: str,
        model_name: str,
        wire: WireServer | None = None,
        session: WireSession | None = None,
    ) -> None:
        self.agent_name = agent_name
        self.recorder = TrajectoryRecorder(
            agent_name=agent_name, agent_version="0", model_name=model_name
        )
        self.wire = wire
        self.session = session
        self._wire_root = wire.root_url if wire is not None and session is not None else None
        self.litellm: LiteLLMCapture | None = None
        """The zero-code capture around a callable, once it is open."""
        self.final_output: str | None = None
        """An answer the agent returned as a string."""
        self.ended: dict[str, str] | None = None
        """``{"reason", "message"}`` when the agent said it ended without an answer."""

    @property
    def base_url(self) -> str | None:
        """The run's wire endpoint, if it has one."""
        return self.session.base_url if self.session is not None else None

    def agent_error(self, reason: str, message: str = "") -> None:
        """The agent ended without an answer (``ctx.agent_error``); the last call wins."""
        self.ended = {"reason": str(reason), "message": str(message)}

    async def close(self) -> None:
        """Stop routing wire requests to this run (calls in flight are cancelled); idempotent."""
        if self.wire is not None and self.session is not None and not self.session.closed:
            await self.wire.close(self.session)

    def _at_wire(self, record: CallRecord) -> bool:
        root = self._wire_root
        return bool(root and (record.api_base or "").startswith(root))

    def calls(self) -> list[CallRecord]:
        """The model calls seen so far, from the wire and from litellm, in the order made."""
        records = self.session.records if self.session is not None else []
        if self.litellm is not None:
            for record in list(self.litellm.records):
                if not self._at_wire(record):
                    records.append(replace(record))
        records.sort(key=lambda record: (record.started_at, record.seq))
        for index, record in enumerate(records):
            record.seq = index
        return records

    async def trajectory(self, *, error: BaseException | None = None) -> Trajectory | None:
        """The trajectory of what was captured (``None`` when nothing was), closing the
        wire session first so its records are final.

        Args:
            error: the exception that ended the run, stamped as ``extra.crashed``.
        """
        await self.close()
        if self.recorder.steps:
            trajectory = self.recorder.finish(error=error)
            source = "recorder"
        else:
            calls = self.calls()
            if not calls:
                return None
            trajectory = build_trajectory(
                calls, agent_name=self.agent_name, agent_version="0", error=error
            )
            seen = {self._at_wire(call) for call in calls}
            source = "+".join(n for n, at in (("wire", True), ("litellm", False)) if at in seen)
        return self.stamp(trajectory, source=source)

    def stamp(self, trajectory: Trajectory, *, source: str) -> Trajectory:
        """The trajectory with how it was captured, a returned answer and a declared end."""
        extra: dict[str, Any] = {**(trajectory.extra or {}), "capture": source}
        if self.final_output is not None:
            extra["final_output"] = self.final_output
        if self.ended is not None:
            extra["agent_error"] = dict(self.ended)
        return trajectory.model_copy(update={"extra": extra})
