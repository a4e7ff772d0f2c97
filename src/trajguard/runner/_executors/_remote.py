"""What a Ray worker does: one run from its job, and the checks a node passes before a batch.

This module does not import Ray (``_ray_worker`` adapts it to Ray), so the same code runs a job
in a test. A run on a worker is :func:`trajguard.runner._one.one_run` as in the local executor;
only its model client differs when the model is the embedded one: it calls the server of the
run's node, or the driver's, at the address the job carries, while the run and its row still
say ``local/smollm2``.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Coroutine, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

from trajguard.capture import ChatModel, LiteLLMModel, LLMResponse, Message
from trajguard.errors import ImportPathError, TrajguardError
from trajguard.local_model import MODEL_STRING, SERVED_MODEL_NAME, is_local_model
from trajguard.runner._executors._jobs import decode_job, encode_row
from trajguard.runner._judging import Judges
from trajguard.runner._models import uses_model
from trajguard.runner._one import one_run
from trajguard.runner._plan import RunSpec
from trajguard.runner._wire import batch_wire
from trajguard.suite import (
    BuiltinAgent,
    CallableAgent,
    CommandAgent,
    ResolvedScenario,
    check_executable,
    import_object,
    import_tool,
)

__all__ = [
    "ANY_NODE",
    "EmbeddedModelAt",
    "import_problems",
    "model_for",
    "model_problems",
    "run_job",
]

ANY_NODE = "*"
"""The key of the embedded model's address when every node calls the same server."""

_NO_KEY = "sk-no-key"  # the embedded server checks no key; the OpenAI client wants one
_T = TypeVar("_T")
_loop: asyncio.AbstractEventLoop | None = None


class EmbeddedModelAt:
    """The embedded model served at ``api_base``: a :class:`ChatModel` named ``local/smollm2``
    whose calls go where the server runs (a node's own, or the driver's)."""

    def __init__(self, api_base: str) -> None:
        self.api_base = api_base
        self._client = LiteLLMModel(
            f"openai/{SERVED_MODEL_NAME}", api_base=api_base, api_key=_NO_KEY
        )

    @property
    def model_name(self) -> str:
        return MODEL_STRING

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
        return await self._client.complete(
            messages,
            tools=tools,
            response_format=response_format,
            temperature=temperature,
            max_tokens=max_tokens,
            seed=seed,
        )


def model_for(arm: ResolvedScenario, urls: Mapping[str, str], node_id: str) -> ChatModel:
    """The model client of a run on ``node_id``: the embedded model at this node's address (or
    the one every node shares); without one, a server of this worker process's own."""
    if is_local_model(arm.model):
        url = urls.get(node_id) or urls.get(ANY_NODE)
        if url:
            return EmbeddedModelAt(url)
    return LiteLLMModel(arm.model, api_base=arm.api_base)


def _run(coroutine: Coroutine[Any, Any, _T]) -> _T:
    """Run on this worker's one event loop, kept between runs: model clients cache
    connections bound to the loop that opened them."""
    global _loop
    if _loop is None or _loop.is_closed():
        _loop = asyncio.new_event_loop()
    return _loop.run_until_complete(coroutine)


def run_job(
    job: str,
    urls: Mapping[str, str],
    node_id: str,
    judging: Callable[[str, int], None] | None = None,
) -> str:
    """Run one job (JSON from :func:`._jobs.encode_job`) and return its row as JSON.

    Args:
        judging: told ``(run id, judgements in flight)`` whenever the run's count changes (the
            driver sums the runs' counts for the progress line).
    """
    spec, arm, batch = decode_job(job)
    judges = Judges(attempt_timeout_s=arm.timeout_s)
    if judging is not None:
        judges.progress.on_change = functools.partial(judging, spec.run_id)
    model = model_for(arm, urls, node_id)
    return encode_row(_run(_one_run_with_wire(spec, arm, model, batch, judges)))


async def _one_run_with_wire(
    spec: RunSpec,
    arm: ResolvedScenario,
    model: ChatModel,
    batch: Mapping[str, Any],
    judges: Judges,
) -> dict[str, Any]:
    """One run with a wire endpoint of its own on this worker, when its agent uses one."""
    with batch_wire([(spec, arm)], {arm.model: model}) as (wire, models):
        return await one_run(spec, arm, models[arm.model], batch, wire=wire, judges=judges)


def import_problems(arms: Sequence[str]) -> list[str]:
    """What does not resolve here among the import paths (agent function, tools, predicates)
    and commands of these arms (JSON of resolved scenarios)."""
    return [
        f"scenario {arm.scenario}/{arm.variant}: {message}"
        for arm in map(ResolvedScenario.model_validate_json, arms)
        for message in _import_problems(arm)
    ]


def model_problems(arms: Sequence[str], urls: Mapping[str, str], node_id: str) -> list[str]:
    """Which models an agent of these arms will call do not answer from here."""
    models: dict[tuple[str, str | None], ResolvedScenario] = {}
    for arm in map(ResolvedScenario.model_validate_json, arms):
        if uses_model(arm):
            models.setdefault((arm.model, arm.api_base), arm)
    problems = []
    for (name, _), arm in models.items():
        ping: list[Message] = [{"role": "user", "content": "ping"}]
        try:
            _run(model_for(arm, urls, node_id).complete(ping, max_tokens=1))
        except TrajguardError as exc:
            problems.append(f"model {name}: {exc.message}")
    return problems


def _import_problems(arm: ResolvedScenario) -> list[str]:
    agent = arm.agent
    checks: list[tuple[str, Any]] = []
    if isinstance(agent, CallableAgent):
        checks.append(
            (
                f"agent function {agent.function}",
                lambda: import_object(agent.function, allowed_modules=arm.allow_modules),
            )
        )
    if isinstance(agent, BuiltinAgent):
        checks += [
            (f"tool {tool}", lambda tool=tool: import_tool(tool, allowed_modules=arm.allow_modules))
            for tool in agent.tools
        ]
    for criterion in arm.pass_criteria:
        if criterion.kind == "predicate":
            target = str(getattr(criterion, "function", ""))
            checks.append(
                (
                    f"predicate {target}",
                    lambda target=target: import_object(target, allowed_modules=arm.allow_modules),
                )
            )
    if isinstance(agent, CommandAgent):
        program = agent.argv[0]
        checks.append(
            (
                f"command {program}",
                lambda: check_executable(program, Path(arm.base_dir), agent.env),
            )
        )
    problems = []
    for what, check in checks:
        try:
            check()
        except ImportPathError as exc:
            problems.append(f"{what}: {exc.message}")
    return problems
