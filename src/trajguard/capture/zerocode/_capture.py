"""Zero-code capture: record an agent that calls ``litellm.completion`` itself.

::

    async with capture_litellm(agent_name="my-agent") as cap:
        await my_agent("What is the weather in Paris?")   # unmodified, calls litellm.acompletion
    trajectory = cap.trajectory

    with capture_litellm() as cap:                        # the same for sync code
        my_sync_agent()

How it works. A capture registers one trajguard callback object in ``litellm.callbacks`` while
at least one capture is open (reference-counted) and removes it, from every list litellm copied
it into, when the last one closes; nothing else in litellm is touched. Each chat call is routed
to the captures active *in the caller's context*:

* ``log_pre_api_call`` runs synchronously in the caller before the request is sent: in the
  calling thread for ``completion``, and for ``acompletion`` in the calling task or in the
  executor thread litellm runs it in under ``contextvars.copy_context()``. There the capture's
  ContextVar is visible, so the call's ``litellm_call_id`` is mapped to the active capture(s)
  and the request messages are copied.
* Success and failure events arrive later (a logging thread pool for sync calls, a background
  logging task for async ones, often after the next call has started) and are matched by
  ``litellm_call_id``; they never rely on the ContextVar, which only serves as a fallback for
  calls litellm reports without a pre-call event (e.g. cache hits).
* Leaving the block waits (bounded by ``settle_timeout_s``; awaited, not blocking, under
  ``async with``) for the outcomes of calls still in flight, then builds the trajectory in the
  order the calls were made.

So concurrent captures (``asyncio.gather`` of captured agents, or threads each opening their own
capture) never mix their steps, and a capture opened around a block sees the calls of the tasks
that block spawns (they inherit its context). Nested captures: a call is recorded by every
capture active where it was made (the outer one sees the inner one's calls too).

How calls become ATIF: the first request's ``system`` and ``user`` messages become the first
steps; each successful call becomes one agent step (message, tool calls with the provider's
ids and parsed JSON arguments, raw text kept in ``extra.raw_arguments`` if unparsable, token
metrics, model name); on each later request, ``role: tool`` messages whose ``tool_call_id``
matches a call of an earlier agent step become that step's observation results, and messages
not present in any earlier request (a new ``user`` turn, a changed system prompt) become new
steps. A failed call produces no step (no response exists); it is listed in the trajectory's
``extra.llm_errors`` (``after_step``, ``type``, ``message``), and when the last call of the run
failed, ``extra.agent_error`` has reason ``llm_error``. An exception escaping the block is
stamped as ``extra.crashed`` / ``extra.error`` and propagates. Streaming calls are recorded
once the stream has been consumed: litellm then reports the assembled response.

What zero-code capture cannot see:

* Tool results the agent never sends back to the model, typically those of the run's last tool
  calls: the step keeps its tool calls without observation results.
* Tool executions themselves: their timing, their errors, tools that ran without a model call
  in between, and anything the agent does between calls.
* Calls made through other clients (the OpenAI SDK, LangChain's native clients, raw HTTP),
  and non-chat litellm calls (embeddings, ``litellm.responses``, images).
* Calls made in a thread that does not inherit the caller's context: ``threading.Thread`` and
  ``loop.run_in_executor`` start from an empty context. Run the target under
  ``contextvars.copy_context().run(...)`` (``asyncio.to_thread`` already does).
* A stream that is never fully consumed, and a call cancelled while in flight: litellm reports
  no outcome; the step is kept with ``extra.response = "unseen"`` after ``settle_timeout_s``.
* An outcome litellm drops (its logging is best-effort; a dropped async success event was
  observed with ``mock_response`` in litellm 1.110): the response is then taken from the
  assistant message the agent sends back in its next request (``extra.response =
  "from_next_request"``; content and tool calls, but zero token counts), else it is unseen.
* A plain ``with`` around async code (in a thread with a running event loop) cannot wait for
  outcomes of ``acompletion`` calls still queued on that loop: those calls are unseen and a
  ``RuntimeWarning`` says so (after the hook is removed, so a warnings-as-errors filter leaves
  litellm as it was). Use ``async with`` there. Sync calls made from such code (e.g. through
  ``asyncio.to_thread``) are waited for: litellm reports them from its logging threads.
* Only the first choice of a response (``n > 1``), and no ``reasoning_content``. Assistant
  messages the agent injects itself (few-shot history) are not steps. With
  ``litellm.turn_off_message_logging`` litellm redacts what callbacks see.
* If user code rebinds ``litellm.callbacks`` while a capture is open, its later calls go unseen
  (the next capture to open registers the callback again).
"""

from __future__ import annotations

import asyncio
import time
import warnings
from types import TracebackType
from typing import Literal

from trajguard.atif import Trajectory
from trajguard.capture.zerocode._build import CallRecord, build_trajectory
from trajguard.capture.zerocode._route import ACTIVE, STATE, forget, hook_acquire, hook_release

__all__ = ["LiteLLMCapture", "capture_litellm"]


def _loop_running_here() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


class LiteLLMCapture:
    """A zero-code capture of the litellm chat calls made in its context.

    Use it through :func:`capture_litellm`, as ``with`` or ``async with``. After the block,
    :attr:`trajectory` is the ATIF trajectory of the calls made inside it.
    """

    def __init__(self, *, agent_name: str, agent_version: str, settle_timeout_s: float) -> None:
        self._agent_name = agent_name
        self._agent_version = agent_version
        self._settle_timeout_s = settle_timeout_s
        self.records: list[CallRecord] = []
        """The calls routed here so far (guarded by the module lock; read after finishing)."""
        self._state: Literal["new", "open", "closed", "finished"] = "new"
        self._result: Trajectory | None = None

    @property
    def accepting(self) -> bool:
        """Whether new calls are routed to this capture (only inside its block)."""
        return self._state == "open"

    @property
    def open(self) -> bool:
        """Whether outcomes of calls already made are still recorded (until finished)."""
        return self._state in ("open", "closed")

    @property
    def trajectory(self) -> Trajectory:
        """The trajectory of the captured calls.

        Raises:
            RuntimeError: the capture has not finished (its block has not been left).
        """
        if self._result is None:
            raise RuntimeError("the capture is still open: read .trajectory after its block")
        return self._result

    def _enter(self) -> LiteLLMCapture:
        if self._state != "new":
            raise RuntimeError("a capture can be entered once; open a new capture_litellm()")
        hook_acquire()
        ACTIVE.set((*ACTIVE.get(), self))
        self._state = "open"
        return self

    def _leave_scope(self) -> None:
        if self._state != "open":
            return
        # Not ContextVar.reset(): captures may be closed out of order, and resetting would
        # also drop a capture opened after this one.
        ACTIVE.set(tuple(c for c in ACTIVE.get() if c is not self))
        self._state = "closed"

    def _pending(self, *, sync: bool = True, async_: bool = True) -> bool:
        return any(
            not record.done and (async_ if record.async_call else sync) for record in self.records
        )

    def finish(self, *, error: BaseException | None = None) -> Trajectory:
        """Stop capturing and return the trajectory (later calls return the same one).

        Waits up to ``settle_timeout_s`` for outcomes of calls still in flight, except those of
        async calls when an event loop runs in this thread (it would have to deliver them): use
        :meth:`afinish` there.

        Args:
            error: the exception that ended the run, if any (``extra.crashed``).
        """
        return self._finish(error, stacklevel=3)

    def _finish(self, error: BaseException | None, *, stacklevel: int) -> Trajectory:
        if self._result is not None:
            return self._result
        if self._state == "new":
            raise RuntimeError("the capture was never entered")
        self._leave_scope()
        loop_running = _loop_running_here()
        with STATE:
            # Outcomes of sync calls arrive from litellm's logging threads, so they can be
            # waited for even here; those of async calls are queued on a running loop in this
            # thread, which blocking would starve.
            STATE.wait_for(
                lambda: not self._pending(async_=not loop_running),
                timeout=self._settle_timeout_s,
            )
            unseen_async = loop_running and self._pending(sync=False)
        # Build (which releases the litellm hook) before warning: with warnings turned into
        # errors, raising first would leave trajguard's callback in the user's litellm.
        result = self._build(error)
        if unseen_async:
            warnings.warn(
                "capture_litellm() was closed with async model calls whose responses litellm "
                "has not reported yet, inside a running event loop; they are recorded as "
                "unseen. Use `async with capture_litellm()` in async code.",
                RuntimeWarning,
                stacklevel=stacklevel,
            )
        return result

    async def afinish(self, *, error: BaseException | None = None) -> Trajectory:
        """:meth:`finish` for async code: waits for outcomes without blocking the loop."""
        if self._result is not None:
            return self._result
        if self._state == "new":
            raise RuntimeError("the capture was never entered")
        self._leave_scope()
        deadline = time.monotonic() + self._settle_timeout_s
        while time.monotonic() < deadline:
            with STATE:
                if not self._pending():
                    break
            await asyncio.sleep(0.005)
        return self._build(error)

    def _build(self, error: BaseException | None) -> Trajectory:
        with STATE:
            self._state = "finished"
            records = list(self.records)
            forget(records)
        hook_release()
        self._result = build_trajectory(
            records,
            agent_name=self._agent_name,
            agent_version=self._agent_version,
            error=error,
        )
        return self._result

    def __enter__(self) -> LiteLLMCapture:
        return self._enter()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> Literal[False]:
        self._finish(exc, stacklevel=3)
        return False

    async def __aenter__(self) -> LiteLLMCapture:
        return self._enter()

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> Literal[False]:
        await self.afinish(error=exc)
        return False


def capture_litellm(
    *,
    agent_name: str = "litellm-agent",
    agent_version: str = "0",
    settle_timeout_s: float = 2.0,
) -> LiteLLMCapture:
    """Capture the litellm chat calls made in a ``with`` / ``async with`` block, zero-code.

    Args:
        agent_name: ``agent.name`` of the trajectory.
        agent_version: ``agent.version``.
        settle_timeout_s: how long leaving the block waits for outcomes of calls still in
            flight (litellm reports them from background threads and tasks).

    Returns:
        The capture; after the block its :attr:`~LiteLLMCapture.trajectory` holds the run.
        If the block raised, the trajectory has ``extra.crashed = true`` and the error, and
        the exception propagates.
    """
    return LiteLLMCapture(
        agent_name=agent_name, agent_version=agent_version, settle_timeout_s=settle_timeout_s
    )
