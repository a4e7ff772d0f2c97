"""The user's code at its worst, for the reliability corpus (cases.yaml) and tests: predicates,
tools and callable agents that never return, raise what Python raises to stop, fork, or return
what cannot be shown. Each must end only its own run, as README "Whose fault it was" says."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Iterator
from typing import Any


class Abort(BaseException):
    """A BaseException of the user's own."""


class Unprintable:
    """An object whose ``str()`` (and ``repr()``) raise."""

    def __str__(self) -> str:
        raise RuntimeError("no str for you")

    def __repr__(self) -> str:
        raise RuntimeError("no repr either")


class Untrue:
    def __bool__(self) -> bool:
        raise ValueError("no truth here")


class UnprintableError(Exception):
    def __str__(self) -> str:
        raise RuntimeError("the message itself is broken")


# --- predicates: module:function(trajectory) -------------------------------------------------


def forever(trajectory: Any) -> bool:
    time.sleep(3600)
    return True


def exits(trajectory: Any) -> bool:
    raise SystemExit(7)


def interrupts(trajectory: Any) -> bool:
    raise KeyboardInterrupt


def generator_exit(trajectory: Any) -> bool:
    raise GeneratorExit


def own_base_exception(trajectory: Any) -> bool:
    raise Abort("stop everything")


def untrue(trajectory: Any) -> Any:
    return Untrue()


def forks(trajectory: Any) -> bool:
    """Fork; the child returns into trajguard (which must make it exit at once), the parent
    waits for it and passes."""
    child = os.fork()
    if child == 0:
        return True
    os.waitpid(child, 0)
    return True


# --- tools of the builtin agent ---------------------------------------------------------------


def cycle() -> dict[str, Any]:
    """Returns a dict that contains itself."""
    value: dict[str, Any] = {"name": "loop"}
    value["self"] = value
    return value


def unprintable() -> Any:
    """Returns an object whose str() raises."""
    return Unprintable()


def generator() -> Iterator[int]:
    """Returns a generator that never ends."""

    def count() -> Iterator[int]:
        number = 0
        while True:
            number += 1
            yield number

    return count()


def raises_unprintable() -> str:
    """Raises an exception whose message cannot be made."""
    raise UnprintableError()


def tool_exits() -> str:
    """Raises SystemExit."""
    raise SystemExit(3)


def tool_interrupts() -> str:
    """Raises KeyboardInterrupt."""
    raise KeyboardInterrupt


async def async_tool_exits() -> str:
    """An async tool that raises SystemExit on the loop."""
    raise SystemExit(4)


def tool_hangs() -> str:
    """Never returns."""
    time.sleep(3600)
    return "never"


def tool_escapes_text() -> str:
    """Returns text full of terminal escapes."""
    return "\x1b]0;pwned\x07\x1b[31mred\x1b]8;;http://evil.example\x1b\\click\x1b]8;;\x1b\\"


# --- callable agents --------------------------------------------------------------------------


def agent_exits(ctx: Any) -> str:
    raise SystemExit(5)


async def async_agent_exits(ctx: Any) -> str:
    raise SystemExit(6)


async def agent_swallows_cancellation(ctx: Any) -> str:
    """Ignores every cancellation: past its deadline, or at Ctrl-C."""
    while True:
        try:
            await asyncio.sleep(3600)
        except BaseException:
            continue


def agent_hangs(ctx: Any) -> str:
    time.sleep(3600)
    return "never"
