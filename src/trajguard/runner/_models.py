"""The models of a batch: one client per model string, checked before the first run."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable, Callable

from trajguard.capture import ChatModel
from trajguard.errors import InfrastructureError, ModelUnavailable, SuiteError
from trajguard.redaction import scrub
from trajguard.runner._plan import Plan
from trajguard.runner._startup import NO_STEPS, StartupSteps
from trajguard.suite import CommandAgent, ResolvedScenario

__all__ = ["PREFLIGHT_TIMEOUT_S", "endpoint", "make_models", "preflight", "uses_model"]


def make_models(
    plan: Plan, make_model: Callable[[ResolvedScenario], ChatModel] | None
) -> dict[str, ChatModel]:
    from trajguard.capture import model_problem

    models: dict[str, ChatModel] = {}
    for _, arm in plan:
        if arm.model in models:
            continue
        problem = model_problem(arm.model, arm.api_base) if make_model is None else None
        if problem is not None:  # the suite and the CLI check this first; the API may not
            raise SuiteError(f"scenario {arm.scenario!r}, variant {arm.variant!r}: {problem}")
        models[arm.model] = (
            make_model(arm) if make_model else _client(arm, _timeouts(plan, arm.model))
        )
    return models


def _client(arm: ResolvedScenario, timeouts: list[float]) -> ChatModel:
    """The model's client. An embedded model's request may take as long as its runs allow: its
    one-threaded server answers requests one after another, so a request cut at 120 s on a
    loaded machine and sent again only queues behind itself; the run's timeout is the bound."""
    from trajguard.capture import LiteLLMModel
    from trajguard.local_model import is_local_model

    if not is_local_model(arm.model):
        return LiteLLMModel(arm.model, api_base=arm.api_base)
    attempt = max([LiteLLMModel.DEFAULT_TIMEOUT_S, *timeouts])
    return LiteLLMModel(arm.model, api_base=arm.api_base, timeout_s=attempt)


def uses_model(arm: ResolvedScenario) -> bool:
    """Whether the arm's agent calls its model: every kind does, except a command agent
    declared ``uses_model: false`` (it brings its own)."""
    return not isinstance(arm.agent, CommandAgent) or arm.agent.uses_model


PREFLIGHT_TIMEOUT_S = 60.0
"""The longest the first call to a model may take before a batch starts (retries included),
or the batch's run timeout if that is shorter; the embedded model's own start is bounded
separately (its server start-up timeout)."""


async def preflight(
    models: dict[str, ChatModel], plan: Plan, *, slots: int = 1, steps: StartupSteps = NO_STEPS
) -> None:
    """Ping each model an agent of the plan will call, so an unreachable one stops the batch;
    start the embedded model's server of every slot (one per concurrent run) in parallel, while
    the model client (litellm) is imported: the servers start in child processes, so on two
    cores the two waits overlap. Each step is reported to ``steps``.

    Raises:
        ModelUnavailable: a model did not answer, or not within :data:`PREFLIGHT_TIMEOUT_S`
            (or the run timeout, if shorter).
    """
    used = {arm.model for _, arm in plan if uses_model(arm)}
    for name, model in models.items():
        if name not in used:
            continue
        inner = getattr(model, "inner", model)
        local = getattr(inner, "is_local", False)  # the embedded model
        prepare = getattr(inner, "prepare", None)
        waits: list[Awaitable[object]] = []
        if prepare is not None:
            loaded = "litellm" in sys.modules
            waits.append(prepare() if loaded else steps.timed("importing litellm", prepare()))
        if local:
            waits += _start_servers(slots, steps)
        await asyncio.gather(*waits)
        ping = model.complete([{"role": "user", "content": "ping"}], max_tokens=1)
        # the embedded model's start is bounded by its own start-up timeout
        limit = None if local else min([PREFLIGHT_TIMEOUT_S, *_timeouts(plan, name)])
        try:
            await steps.timed(_check(name, plan), asyncio.wait_for(ping, limit))
        except TimeoutError:
            if limit is None:
                raise
            raise _no_answer(name, inner, limit) from None
        except ModelUnavailable:
            raise
        except InfrastructureError as exc:
            raise ModelUnavailable(f"model {name} failed its first call: {exc}") from None


_EMBEDDED = "SmolLM2-135M via llama.cpp"


def _check(name: str, plan: Plan) -> str:
    """The step of a model's first call, naming its endpoint when the suite gives one."""
    base = next((arm.api_base for _, arm in plan if arm.model == name and arm.api_base), None)
    where = f" at {scrub(base)}" if base else ""
    return f"checking that {name} answers{where}"


def _start_servers(slots: int, steps: StartupSteps) -> list[Awaitable[object]]:
    """The embedded model's servers of ``slots`` slots, started in threads (those already
    running are left alone), as one step; then each one's self-test (a real chat request with
    tools, so a llama.cpp build that crashes on this CPU fails here), as the next step."""
    from trajguard.local_model import get_local_server, running_local_server

    missing = [slot for slot in range(slots) if running_local_server(slot) is None]
    if not missing:
        return []
    step = (
        f"starting the embedded model server ({_EMBEDDED})"
        if len(missing) == 1
        else f"starting {len(missing)} embedded model servers ({_EMBEDDED}; one per run at once)"
    )
    test = "self-test of the embedded model: a chat request with tools" + (
        "" if len(missing) == 1 else f", on each of the {len(missing)} servers"
    )

    async def started_and_tested() -> None:
        starts = (asyncio.to_thread(get_local_server, slot, self_test=False) for slot in missing)
        servers = await steps.timed(step, asyncio.gather(*starts))
        await steps.timed(test, asyncio.gather(*(asyncio.to_thread(s.self_test) for s in servers)))

    return [started_and_tested()]


_WAITING = {
    "rate_limited": "is rate limited: its first call was answered 429 (Too Many Requests)",
    "server_error": "is failing: its first call was answered with a server error (5xx)",
    "malformed_response": "answers no usable completion: its first call got something else",
}


def _no_answer(name: str, model: object, limit: float) -> ModelUnavailable:
    """Why the first call did not get through within ``limit``: a provider that kept asking to
    wait (a 429's ``Retry-After``) is rate limited, not down."""
    retry = getattr(model, "last_retry", None)
    reason = retry[0] if isinstance(retry, tuple) else None
    if reason in _WAITING:
        assert isinstance(retry, tuple)
        return ModelUnavailable(
            f"model {name} {_WAITING[reason]}, and its retries (the latest after a wait of "
            f"{retry[1]:g} s) did not get through within the {limit:g} s the start allows",
            reason=reason,
            hint="lower --concurrency, or run when the provider's quota allows"
            if reason == "rate_limited"
            else "check the endpoint's health (--api-base), then rerun",
        )
    return ModelUnavailable(
        f"model {name} did not answer its first call within {limit:g} s",
        hint="check that the endpoint is up and answering (--api-base)",
    )


def _timeouts(plan: Plan, model: str) -> list[float]:
    return [arm.timeout_s for _, arm in plan if arm.model == model]


def endpoint(arm: ResolvedScenario, model: ChatModel) -> str | None:
    """The OpenAI-compatible endpoint a command agent should call for this arm's model."""
    from trajguard.local_model import is_local_model, running_local_server

    if is_local_model(arm.model):
        # served elsewhere (a Ray node's server, or the driver's), or by this process
        server = running_local_server()
        served_at: str | None = getattr(model, "api_base", None)
        return served_at or (server.base_url if server is not None else None)
    return arm.api_base or getattr(model, "api_base", None)
