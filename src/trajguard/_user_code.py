"""The user's code — a callable agent, a tool, a predicate — run under the run's rules.

trajguard calls code it did not write and cannot trust to behave: it may never return, raise
``SystemExit`` or ``KeyboardInterrupt`` of its own, or fork. The rules (README, "Whose fault it
was"; :data:`trajguard.outcome.USER_CODE_FAILURES`):

* **Its own thread.** Synchronous user code runs in a daemon thread of its own, never on the
  event loop: a hang holds neither the other runs nor Ctrl-C (which reaches the main thread
  only, where no user code runs), nor the interpreter's exit. A thread cannot be killed: after
  its deadline the run moves on and the thread's result is discarded whenever it comes.
* **A deadline.** Agents and tools run within the run's ``timeout_s``; a predicate within its
  own bound (:data:`PREDICATE_TIMEOUT_S`, or the run's ``timeout_s`` if shorter), after the
  agent ended.
* **No way out of the process.** ``SystemExit``, ``KeyboardInterrupt`` and ``GeneratorExit``
  raised by the code (and a ``StopIteration``, which a future refuses) become
  :class:`UserCodeError`: the run's failure, with the reason, never the end of the batch.
* **A fork stays in the child.** A child forked by the code that returns into trajguard exits
  at once (``os._exit``), before it could touch the run set or run the rest of the batch.
* **Abandoned, not collected.** Code given up on (a thread past its deadline, a task that
  swallowed its cancellation) is kept referenced (:func:`abandoned`): collecting a coroutine
  runs it once more (``close()``), and one that swallows that too never ends. The command line
  then leaves the process without the interpreter's teardown (``os._exit``, after flushing).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import os
import threading
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from trajguard._text import safe_str
from trajguard.errors import UserCodeError

__all__ = [
    "CANCEL_GRACE_S",
    "ESCAPES",
    "PREDICATE_TIMEOUT_S",
    "abandon",
    "abandoned",
    "as_user_code_error",
    "bounded_call",
    "in_thread",
    "is_signal_interrupt",
    "within",
]

CANCEL_GRACE_S = 2.0
"""How long cancelled user code (an async agent past its deadline, or at Ctrl-C) is given to
finish before the run goes on without it: code that swallows the cancellation holds nothing."""

PREDICATE_TIMEOUT_S = 60.0
"""The longest one predicate call may take (or the run's ``timeout_s``, if shorter); past it the
criterion fails with a criterion error and the run goes on."""

_T = TypeVar("_T")
_ABANDONED: list[object] = []


def abandon(work: object) -> None:
    """Keep ``work`` (a task, a thread) referenced for the rest of the process: see the module
    docstring."""
    _ABANDONED.append(work)


def abandoned() -> int:
    """How many pieces of user code this process gave up on and left running."""
    return len(_ABANDONED)


ESCAPES: tuple[type[BaseException], ...] = (SystemExit, KeyboardInterrupt, GeneratorExit)
"""The exceptions a Python program raises to stop, which user code must not stop a batch with."""


def as_user_code_error(error: BaseException, what: str) -> UserCodeError:
    """The run's failure for ``error``, a :data:`ESCAPES` exception (or ``StopIteration``)
    raised by ``what`` (``tool calculator``, ``predicate checks:ok``)."""
    detail = safe_str(error)
    shown = f"{type(error).__name__}({detail})" if detail else type(error).__name__
    return UserCodeError(f"{what} raised {shown}", error_type=type(error).__name__)


def is_signal_interrupt(error: BaseException) -> bool:
    """Whether a ``KeyboardInterrupt`` came from Ctrl-C (a second one, which asyncio raises in
    its signal handler) rather than from the code itself (``raise KeyboardInterrupt``)."""
    if not isinstance(error, KeyboardInterrupt):
        return False
    trace = error.__traceback__
    while trace is not None and trace.tb_next is not None:
        trace = trace.tb_next
    return trace is not None and trace.tb_frame.f_code.co_name == "_on_sigint"


def _exit_if_forked(parent: int) -> None:
    if os.getpid() != parent:  # a child the code forked, returning into trajguard
        os._exit(0)


def _run_guarded(function: Callable[..., Any], args: tuple[Any, ...], what: str) -> Any:
    """Call ``function(*args)``; an escape becomes :class:`UserCodeError`; a forked child
    exits."""
    parent = os.getpid()
    try:
        return function(*args)
    except StopIteration as exc:  # a Future refuses it: the run would never settle
        raise as_user_code_error(exc, what) from None
    except Exception:
        raise
    except BaseException as exc:  # the escapes, and any BaseException subclass of the code's
        raise as_user_code_error(exc, what) from None
    finally:
        _exit_if_forked(parent)


async def in_thread(function: Callable[..., Any], *args: Any, what: str, name: str) -> Any:
    """``function(*args)`` in a daemon thread of its own, under a copy of the caller's context
    (so zero-code capture sees a callable agent's litellm calls); awaited on the loop.

    Like ``asyncio.to_thread``, but a call that hangs neither occupies a slot of the loop's
    shared executor (starving later runs) nor keeps the process from exiting (``asyncio.run``
    and the interpreter wait for executor threads). Cancel the await to give up on it.

    Raises:
        UserCodeError: the code raised an escape (:data:`ESCAPES`) or ``StopIteration``.
        Exception: whatever else it raised.
    """
    loop = asyncio.get_running_loop()
    future: asyncio.Future[Any] = loop.create_future()
    copied = contextvars.copy_context()

    def settle(value: Any, error: BaseException | None) -> None:
        if future.done():  # given up on (a timeout, Ctrl-C): the result is discarded
            return
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(value)

    def target() -> None:
        value: Any = None
        error: BaseException | None = None
        try:
            value = copied.run(_run_guarded, function, args, what)
        except BaseException as exc:  # an Exception or a UserCodeError: handed to the run
            error = exc
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
            loop.call_soon_threadsafe(settle, value, error)

    threading.Thread(target=target, name=name, daemon=True).start()
    return await future


def bounded_call(function: Callable[..., Any], *args: Any, what: str, timeout_s: float) -> Any:
    """``function(*args)`` from synchronous code, in a daemon thread, waited for at most
    ``timeout_s`` (the caller must not be the event loop's thread: it blocks that long).

    Raises:
        UserCodeError: it did not return within ``timeout_s`` (its thread is left to finish
            alone), or it raised an escape.
        Exception: whatever else it raised.
    """
    done = threading.Event()
    outcome: dict[str, Any] = {}

    def target() -> None:
        try:
            outcome["value"] = _run_guarded(function, args, what)
        except BaseException as exc:
            outcome["error"] = exc
        finally:
            done.set()

    thread = threading.Thread(target=target, name=f"trajguard-{what}", daemon=True)
    thread.start()
    if not done.wait(timeout_s):
        abandon(thread)
        raise UserCodeError(f"{what} did not return within {timeout_s:g} s", error_type="timeout")
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


async def within(awaitable: Awaitable[_T], timeout_s: float) -> _T:
    """``await awaitable`` for at most ``timeout_s``, like ``asyncio.wait_for`` — except that
    code which swallows its cancellation (an async agent's ``except BaseException``) holds the
    caller no longer than :data:`CANCEL_GRACE_S`, past the deadline or at Ctrl-C alike.

    Raises:
        TimeoutError: the deadline passed; raised from the cancelled code's own exception (the
            reference agent stamps its trajectory on it), when it ended within the grace.
        asyncio.CancelledError: the caller was cancelled (the code was cancelled too).
    """
    task = asyncio.ensure_future(awaitable)
    try:
        await asyncio.wait({task}, timeout=timeout_s)
    except asyncio.CancelledError:
        task.cancel()
        await asyncio.shield(asyncio.wait({task}, timeout=CANCEL_GRACE_S))
        if not task.done():
            abandon(task)
        raise
    if task.done():
        return task.result()
    task.cancel()
    await asyncio.wait({task}, timeout=CANCEL_GRACE_S)
    if not task.done():
        abandon(task)
        raise TimeoutError()
    try:
        return task.result()  # as asyncio.wait_for: it may have finished as it was cancelled
    except asyncio.CancelledError as cancelled:
        raise TimeoutError() from cancelled
