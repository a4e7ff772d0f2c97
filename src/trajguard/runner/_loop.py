"""The event loop of a batch: ``asyncio.run``, with a teardown that cannot hang.

``asyncio.run`` ends by cancelling every task still pending and waiting for all of them, then
for the loop's default executor: a task of the user's code that swallows its cancellation (an
async agent's ``except BaseException: pass``), or a thread of the default executor that never
returns, would hold the process forever after Ctrl-C. Here the same steps are bounded
(:data:`TEARDOWN_S`); what is still running then is left behind (daemon threads end with the
process). Ctrl-C behaves as under ``asyncio.run``: the first cancels the batch (which saves
what it finished), a second raises ``KeyboardInterrupt`` at once.
"""

from __future__ import annotations

import asyncio
import signal
import threading
from collections.abc import Coroutine
from types import FrameType
from typing import Any, TypeVar

from trajguard._user_code import abandon

__all__ = ["TEARDOWN_S", "run_to_end"]

TEARDOWN_S = 5.0
"""How long the loop's teardown waits for tasks that ignore their cancellation."""

_T = TypeVar("_T")


def run_to_end(main: Coroutine[Any, Any, _T]) -> _T:
    """Run ``main`` on a new event loop and close the loop, within :data:`TEARDOWN_S`.

    Raises:
        KeyboardInterrupt: Ctrl-C (the first one cancels ``main``, which may clean up).
    """
    loop = asyncio.new_event_loop()
    task = loop.create_task(main)
    interrupts = 0

    def _on_sigint(signum: int, frame: FrameType | None) -> None:  # the name asyncio uses
        nonlocal interrupts
        interrupts += 1
        if interrupts == 1 and not task.done():
            task.cancel()
            loop.call_soon_threadsafe(lambda: None)  # wake the loop's select
            return
        raise KeyboardInterrupt()

    installed = threading.current_thread() is threading.main_thread() and (
        signal.getsignal(signal.SIGINT) is signal.default_int_handler
    )
    if installed:
        signal.signal(signal.SIGINT, _on_sigint)
    try:
        return loop.run_until_complete(task)
    except asyncio.CancelledError:
        if interrupts:
            raise KeyboardInterrupt() from None
        raise
    finally:
        if installed and signal.getsignal(signal.SIGINT) is _on_sigint:
            signal.signal(signal.SIGINT, signal.default_int_handler)
        try:
            _teardown(loop)
        finally:
            asyncio.set_event_loop(None)
            loop.close()


def _teardown(loop: asyncio.AbstractEventLoop) -> None:
    pending = [t for t in asyncio.all_tasks(loop) if not t.done()]
    for task in pending:
        task.cancel()
    if pending:
        loop.run_until_complete(asyncio.wait(pending, timeout=TEARDOWN_S))
    for task in pending:
        if not task.done():
            abandon(task)  # collected, it would run again: see trajguard._user_code
    for step in (loop.shutdown_asyncgens(), loop.shutdown_default_executor()):
        loop.run_until_complete(_bounded(step))


async def _bounded(step: Coroutine[Any, Any, None]) -> None:
    done, _ = await asyncio.wait({asyncio.ensure_future(step)}, timeout=TEARDOWN_S)
    for finished in done:
        finished.exception()  # retrieved, so a failed step is not logged as never retrieved
