"""The reference agent: a plain tool-calling loop that survives a weak model.

Each turn is one model call and one agent step. What a weak model does wrong becomes something
the model reads on its next turn, never an exception: malformed JSON, an unknown tool, wrong
argument types and a tool that raises are all error observations. What ends the run without an
answer is recorded as an agent error (``extra.agent_error`` on the trajectory): the step cap
(``max_steps``), a rejected request (``context_overflow``, ``model_request_error``), and a tool
that raised ``SystemExit``, ``KeyboardInterrupt`` or ``GeneratorExit`` (the exception's class
is the reason: Python code raises those to stop, and a tool may not stop the batch).
Infrastructure failures (:class:`~trajguard.errors.ModelUnavailable`), replay errors and
cancellation propagate; the trajectory, finished with ``extra.crashed``, rides on the exception
as ``exc.trajectory``.

With a tool budget ``k``, once ``k`` tool calls have been made the next call goes out without
tools (and without the action schema) after a system notice asking for the final answer.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Callable, Mapping, MutableMapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from trajguard import __version__
from trajguard.agent.actions import FINAL_ANSWER, action_instructions, final_text
from trajguard.agent.tools import Tool, tool
from trajguard.agent.turns import Turns
from trajguard.atif import Trajectory
from trajguard.capture import ChatModel, Message, TrajectoryRecorder
from trajguard.errors import ModelRequestError, UserCodeError
from trajguard.faults import ToolFaults, active_faults

__all__ = [
    "AgentConfig",
    "AgentFailure",
    "AgentMode",
    "AgentResult",
    "ReferenceAgent",
    "derive_seed",
]

AgentMode = Literal["native", "json"]
AGENT_NAME = "trajguard-reference-agent"
FINAL_NOTICE = (
    "You have used all your tool calls. Using the results above, answer in plain text: {question}"
)


def derive_seed(run_seed: int | None, call_index: int) -> int | None:
    """The sampling seed of call ``call_index`` of a run: stable, 31-bit, ``None`` if no seed.

    Args:
        run_seed: the run's seed (random per run in live mode, fixed to reproduce a batch).
        call_index: 0 for the run's first model call, 1 for the second, ...
    """
    if run_seed is None:
        return None
    digest = hashlib.sha256(f"trajguard-call\x1f{run_seed}\x1f{call_index}".encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFF_FFFF


@dataclass(frozen=True)
class AgentConfig:
    """How the reference agent behaves.

    Attributes:
        system_prompt: the system prompt (json mode appends the tool list and reply format).
        tools: Python functions (sync or async, type-hinted) or :class:`Tool` objects.
        mode: ``native`` (provider tool calls) or ``json`` (JSON-constrained actions).
        max_steps: the most model calls in one run; reaching it is an agent error.
        tool_budget: after this many tool calls, one last call without tools asks for the
            answer; ``None`` for no budget.
        temperature: sampling temperature; ``None`` leaves the provider default.
        max_tokens: completion cap per call; ``None`` leaves the provider default.
        seed: the default run seed; :meth:`ReferenceAgent.run` can override it per run.
    """

    system_prompt: str = ""
    tools: Sequence[Callable[..., Any] | Tool] = ()
    mode: AgentMode = "json"
    max_steps: int = 10
    tool_budget: int | None = None
    temperature: float | None = None
    max_tokens: int | None = None
    seed: int | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)
    """Recorded in ``agent.extra`` next to the mode, step cap and budget."""
    faults: ToolFaults | None = None
    """Faults to inject into the tool calls of a run (:mod:`trajguard.faults`; by default the
    faults of an enclosing ``inject_faults`` block); they are recorded on the steps that meet
    them."""
    state: MutableMapping[str, Any] | None = None
    """The state shared by the tools that take ``state`` (a run of the batch runner passes its
    own copy of the scenario's ``state:``); ``None``: a new empty dict for each run."""


@dataclass(frozen=True)
class AgentResult:
    """The outcome of one run.

    Attributes:
        trajectory: the finished ATIF trajectory.
        final_answer: the answer text, ``None`` when the run ended without one.
        status: ``ok`` (answered) or ``agent_error`` (ended without an answer).
        error_type: the reason for ``agent_error``: ``max_steps``, ``context_overflow`` or
            ``model_request_error``.
        error_message: a human-readable explanation.
    """

    trajectory: Trajectory
    final_answer: str | None
    status: Literal["ok", "agent_error"]
    error_type: str | None = None
    error_message: str | None = None


class ReferenceAgent:
    """A plain tool-calling loop; one instance can run many times, concurrently.

    Args:
        config: an :class:`AgentConfig`; or pass its fields as keyword arguments.

    Raises:
        ValueError: an invalid option or tool (duplicate names, a tool named final_answer in
            json mode, ``max_steps < 1``).
    """

    def __init__(self, config: AgentConfig | None = None, **options: Any) -> None:
        self.config = config if config is not None else AgentConfig(**options)
        if config is not None and options:
            raise ValueError("pass either an AgentConfig or keyword options, not both")
        cfg = self.config
        if cfg.mode not in ("native", "json"):
            raise ValueError(f"mode must be 'native' or 'json', not {cfg.mode!r}")
        if cfg.max_steps < 1:
            raise ValueError(f"max_steps must be at least 1, not {cfg.max_steps}")
        if cfg.tool_budget is not None and cfg.tool_budget < 0:
            raise ValueError(f"tool_budget must be >= 0 or None, not {cfg.tool_budget}")
        self.tools: dict[str, Tool] = {}
        for item in cfg.tools:
            made = tool(item)
            if made.name in self.tools:
                raise ValueError(f"two tools are named {made.name!r}")
            if cfg.mode == "json" and made.name == FINAL_ANSWER:
                raise ValueError(f"{FINAL_ANSWER!r} is reserved for the answer in json mode")
            self.tools[made.name] = made

    @property
    def system_text(self) -> str:
        """The system prompt the model sees (json mode adds the tools and the reply format)."""
        if self.config.mode == "native":
            return self.config.system_prompt
        section = action_instructions(list(self.tools.values()))
        return f"{self.config.system_prompt}\n\n{section}" if self.config.system_prompt else section

    def tool_definitions(self) -> list[dict[str, Any]]:
        """OpenAI-style definitions of the agent's tools."""
        return [t.definition() for t in self.tools.values()]

    def new_recorder(self, model: ChatModel) -> TrajectoryRecorder:
        """A recorder set up for one run of this agent on ``model``."""
        cfg = self.config
        return TrajectoryRecorder(
            agent_name=AGENT_NAME,
            agent_version=__version__,
            model_name=model.model_name,
            tool_definitions=self.tool_definitions(),
            agent_extra={
                "mode": cfg.mode,
                "max_steps": cfg.max_steps,
                "tool_budget": cfg.tool_budget,
                **cfg.extra,
            },
        )

    async def run(
        self,
        model: ChatModel,
        user_input: str,
        *,
        seed: int | None = None,
        recorder: TrajectoryRecorder | None = None,
    ) -> AgentResult:
        """Run the agent once.

        Args:
            model: the model to call.
            user_input: the user's message.
            seed: the run seed (overrides ``config.seed``); call ``i`` is sent
                ``derive_seed(seed, i)``.
            recorder: record into this recorder instead of a new one (so a caller can read
                the trajectory even if the run is cancelled).

        Returns:
            The result, with a finished trajectory, whether the run answered or not.

        Raises:
            ModelUnavailable: the model could not be reached. This and any other exception
                that escapes carries the finished (``extra.crashed``) trajectory as
                ``exc.trajectory``.
        """
        rec = recorder if recorder is not None else self.new_recorder(model)
        run_seed = seed if seed is not None else self.config.seed
        try:
            return await self._run(model, user_input, rec, run_seed)
        except BaseException as exc:
            trajectory = rec.finish(error=exc)
            with contextlib.suppress(AttributeError):  # exceptions with __slots__
                exc.trajectory = trajectory  # type: ignore[attr-defined]
            raise

    async def _run(
        self, model: ChatModel, user_input: str, rec: TrajectoryRecorder, run_seed: int | None
    ) -> AgentResult:
        messages = self.open_conversation(rec)
        rec.user(user_input)
        messages.append({"role": "user", "content": user_input})
        turns = self.new_turns(rec, messages)
        answer = await self.answer(model, turns, question=user_input, seed=run_seed)
        if isinstance(answer, AgentFailure):
            return _failed(rec, answer.reason, answer.message)
        return AgentResult(rec.finish(), answer, "ok")

    def open_conversation(self, rec: TrajectoryRecorder) -> list[Message]:
        """The conversation before the first user message: the system prompt, if any."""
        if not self.system_text:
            return []
        rec.system(self.system_text)
        return [{"role": "system", "content": self.system_text}]

    def new_turns(self, rec: TrajectoryRecorder, messages: list[Message]) -> Turns:
        """The mutable state of one run (its conversation, its tool calls so far)."""
        cfg = self.config
        faults = cfg.faults if cfg.faults is not None else active_faults()
        state = cfg.state if cfg.state is not None else {}
        return Turns(
            self.tools, rec, messages, tool_budget=cfg.tool_budget, faults=faults, state=state
        )

    async def answer(
        self, model: ChatModel, turns: Turns, *, question: str, seed: int | None
    ) -> str | AgentFailure:
        """Answer the last user message: at most ``max_steps`` model calls, call ``i`` of the
        run (counted across a conversation's answers) sent ``derive_seed(seed, i)``. The answer
        joins the conversation as an assistant message."""
        cfg = self.config
        rec, messages = turns.recorder, turns.messages
        definitions = self.tool_definitions() or None
        for _ in range(cfg.max_steps):
            index = turns.model_calls
            turns.model_calls += 1
            final_call = turns.budget_spent
            if final_call:
                notice = FINAL_NOTICE.format(question=question)
                rec.system(notice, extra={"notice": "tool_budget_spent"})
                messages.append({"role": "user", "content": notice})
            native, json_mode = cfg.mode == "native", cfg.mode == "json"
            try:
                response = await model.complete(
                    list(messages),
                    tools=definitions if native and not final_call else None,
                    response_format=turns.response_format()
                    if json_mode and not final_call
                    else None,
                    temperature=cfg.temperature,
                    max_tokens=cfg.max_tokens,
                    seed=derive_seed(seed, index),
                )
            except ModelRequestError as exc:
                reason = "context_overflow" if exc.context_overflow else "model_request_error"
                return AgentFailure(reason, exc.message)
            if final_call:
                answer = final_text(response.content or "") if json_mode else response.content or ""
                rec.agent_step(response, message=answer)
                messages.append({"role": "assistant", "content": response.content or ""})
                return answer
            try:
                answered = await (turns.native(response) if native else turns.json(response))
            except UserCodeError as exc:  # a tool raised SystemExit or the like: it ends the run
                return AgentFailure(exc.error_type, exc.message)
            if answered is not None:
                messages.append({"role": "assistant", "content": response.content or ""})
                return answered
        return AgentFailure(
            "max_steps", f"no final answer after {cfg.max_steps} model calls (max_steps)"
        )


@dataclass(frozen=True)
class AgentFailure:
    """Why an answer was not given (the run's ``extra.agent_error``)."""

    reason: str
    message: str


def _failed(rec: TrajectoryRecorder, reason: str, message: str) -> AgentResult:
    rec.agent_error(reason, message)
    return AgentResult(rec.finish(), None, "agent_error", reason, message)
