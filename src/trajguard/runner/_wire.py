"""The wire endpoint around a batch: started when an agent of the batch reaches its model
through it, one session per run forwarding to the run's model, and the embedded server's log
kept in the run set when a model call failed.

While the endpoint runs, every litellm call of the batch runs on its event loop: the endpoint's
forwards, and through :class:`OnWireLoop` the calls the batch's own loop makes (the reference
agent, ``ctx.model``, the first check of each model). litellm keeps per-loop state (its clients,
its logging worker); one loop for all of them keeps that state in one place.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from trajguard._files import atomic_write_text
from trajguard.capture import ChatModel, LLMResponse, Message
from trajguard.capture.wire import Forward, WireRequest, WireServer
from trajguard.faults import ToolFaults
from trajguard.local_model import current_slot, model_slot
from trajguard.runner._captured import RunCapture, agent_name
from trajguard.runner._plan import Plan, RunSpec, derive_seed
from trajguard.suite import BuiltinAgent, CommandAgent, ResolvedScenario

__all__ = [
    "SERVER_LOG",
    "OnWireLoop",
    "batch_wire",
    "forwarder",
    "keep_server_log",
    "run_capture",
]

SERVER_LOG = "model-server.log"
"""The embedded server's log, kept in the run set when a model call failed."""
_MODEL_ERRORS = frozenset({"ModelRequestError", "ModelUnavailable"})


def _uses_wire(arm: ResolvedScenario) -> bool:
    agent = arm.agent
    if isinstance(agent, BuiltinAgent):
        return False  # the reference agent calls its model directly
    return not isinstance(agent, CommandAgent) or agent.uses_model


class OnWireLoop:
    """A litellm-backed model whose calls run on the wire endpoint's event loop."""

    def __init__(self, inner: ChatModel, wire: WireServer) -> None:
        self.inner = inner
        self._wire = wire

    def __repr__(self) -> str:
        return f"OnWireLoop({self.inner!r})"

    @property
    def model_name(self) -> str:
        return self.inner.model_name

    async def complete(
        self,
        messages: Sequence[Message],
        *,
        tools: Sequence[Mapping[str, Any]] | None = None,
        response_format: Mapping[str, Any] | None = None,
        temperature: float | None = None,
        max_tokens: int | None = None,
        seed: int | None = None,
    ) -> LLMResponse:
        call = _on_slot(
            current_slot(),
            self.inner.complete,
            messages,
            tools=tools,
            response_format=response_format,
            temperature=temperature,
            max_tokens=max_tokens,
            seed=seed,
        )
        return await self._wire.run(call)


async def _on_slot(slot: int, complete: Any, *args: Any, **kwargs: Any) -> LLMResponse:
    with model_slot(slot):
        response: LLMResponse = await complete(*args, **kwargs)
        return response


@contextmanager
def batch_wire(
    plan: Plan, models: dict[str, ChatModel]
) -> Iterator[tuple[WireServer | None, dict[str, ChatModel]]]:
    """The endpoint of a batch (``None`` when no agent of the plan reaches a model through it)
    and the batch's models, their litellm calls moved onto the endpoint's loop."""
    if not any(_uses_wire(arm) for _, arm in plan):
        yield None, models
        return
    from trajguard.capture import LiteLLMModel, release_loop_clients

    with WireServer(on_stop=release_loop_clients) as wire:
        yield (
            wire,
            {
                name: OnWireLoop(model, wire) if isinstance(model, LiteLLMModel) else model
                for name, model in models.items()
            },
        )


def forwarder(model: ChatModel, arm: ResolvedScenario, seed: int) -> Forward:
    """Sends a run's wire requests to its model.

    The run's temperature and ``max_tokens`` fill in what a request leaves unset, and a request
    without a seed gets one derived from the run's seed and the call's position, so any
    framework's runs are independent samples and a batch seed reproduces them.
    """
    from trajguard.capture import LiteLLMModel

    calls = itertools.count()
    slot = current_slot()  # the run's embedded-model server; forwards run on the wire's loop

    async def forward(request: WireRequest) -> LLMResponse:
        with model_slot(slot):
            return await _forward(request)

    async def _forward(request: WireRequest) -> LLMResponse:
        options = dict(request.options)
        index = next(calls)
        temperature = options.pop("temperature", arm.temperature)
        default_cap = None if "max_completion_tokens" in options else arm.max_tokens
        max_tokens = options.pop("max_tokens", default_cap)
        call_seed = options.pop("seed", derive_seed(seed, "wire", index))
        response_format = options.pop("response_format", None)
        if isinstance(model, LiteLLMModel):
            return await model.complete(
                request.messages,
                tools=request.tools,
                response_format=response_format,
                temperature=temperature,
                max_tokens=max_tokens,
                seed=call_seed,
                options=options,
            )
        # another ChatModel (a replay, a test double) takes the common parameters only
        return await model.complete(
            request.messages,
            tools=request.tools,
            response_format=response_format,
            temperature=temperature,
            max_tokens=max_tokens,
            seed=call_seed,
        )

    return forward


def run_capture(
    spec: RunSpec,
    arm: ResolvedScenario,
    model: ChatModel,
    wire: WireServer | None,
    *,
    faults: ToolFaults | None = None,
) -> RunCapture:
    """The recorders of one run, with a wire session when its agent reaches its model there
    (its model faults, if any, injected there)."""
    from trajguard.local_model import is_local_model

    name = agent_name(arm)
    if wire is None or not _uses_wire(arm):
        return RunCapture(agent_name=name, model_name=arm.model)
    session = wire.open(
        forward=forwarder(getattr(model, "inner", model), arm, spec.seed),
        model=arm.model,
        embedded=is_local_model(arm.model),
        faults=faults,
    )
    return RunCapture(agent_name=name, model_name=arm.model, wire=wire, session=session)


def keep_server_log(
    runset: Path,
    plan: Plan,
    rows: Sequence[Mapping[str, Any]],
    wire: WireServer | None,
    *,
    slots: int = 1,
) -> Path | None:
    """Copy the embedded servers' logs (one per slot) into the run set when a model call
    failed.

    A server deletes its log when it stops; an error it answered with (a 500 whose cause is
    only in that log) stays explainable this way.
    """
    from trajguard.local_model import is_local_model, running_local_server

    if not any(is_local_model(arm.model) for _, arm in plan):
        return None
    failed = (wire is not None and wire.upstream_errors > 0) or any(
        row.get("error_type") in _MODEL_ERRORS or '"llm_errors"' in str(row.get("trajectory"))
        for row in rows
    )
    if not failed:
        return None
    logs = []
    for slot in range(slots):
        server = running_local_server(slot)
        log = server.log_path if server is not None else None
        if log is not None and log.exists():
            text = log.read_text(encoding="utf-8", errors="replace")
            logs.append(text if slots == 1 else f"=== the server of slot {slot} ===\n{text}")
    if not logs:
        return None
    target = runset / SERVER_LOG
    atomic_write_text(target, "\n".join(logs))
    return target
