"""Exclusive locks on shared state: a baseline being promoted, a run set being written.

A lock is an advisory ``flock`` on a small lock file, so the operating system releases it when
its holder exits, however it exits (``kill -9`` included): a lock is never left held by a dead
process. The holder removes the file while it still holds the lock, and whoever takes a lock
checks that the file it locked is still the one at the path (it may have locked a file another
holder removed meanwhile); so no lock file is left behind and two holders are impossible.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from trajguard.errors import StoreBusy

__all__ = ["LOCK_WAIT_S", "exclusive"]

LOCK_WAIT_S = 300.0
"""How long a waiting writer waits for the lock before it gives up (a promote holds it for
well under a second; five minutes means its holder is stuck)."""


def _try_lock(descriptor: int) -> bool:
    if sys.platform == "win32":  # pragma: no cover - not tested there
        import msvcrt

        try:
            msvcrt.locking(descriptor, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True
    import fcntl

    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _same_file(descriptor: int, path: Path) -> bool:
    try:
        at_path = os.stat(path)
    except FileNotFoundError:
        return False
    held = os.fstat(descriptor)
    return (held.st_dev, held.st_ino) == (at_path.st_dev, at_path.st_ino)


@contextlib.contextmanager
def exclusive(path: Path, *, what: str, wait_s: float | None = None) -> Iterator[None]:
    """Hold the lock ``path`` (a file beside the state it guards) for the ``with`` block.

    Args:
        what: the state guarded, for the error (``the baseline of suite 'demo'``).
        wait_s: how long to wait for another holder to finish (default :data:`LOCK_WAIT_S`);
            0 to fail at once.

    Raises:
        StoreBusy: another process held the lock for all of ``wait_s``.
        OSError: the lock file cannot be created (the caller names the directory).
    """
    wait_s = LOCK_WAIT_S if wait_s is None else wait_s
    deadline = time.monotonic() + wait_s
    pause = 0.01
    while True:
        descriptor = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
        if _try_lock(descriptor):
            if _same_file(descriptor, path):
                break
            os.close(descriptor)  # locked a file its holder had removed: take the new one
            continue
        os.close(descriptor)
        if time.monotonic() >= deadline:
            raise StoreBusy(
                f"another trajguard process is writing {what}"
                + (f", and has been for {wait_s:g} s" if wait_s else ""),
                file=path.parent,
                hint="let it finish, then run this again"
                + ("" if wait_s else " (one writer at a time)"),
            )
        time.sleep(pause)
        pause = min(pause * 2, 0.25)
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            os.unlink(path)  # while still held: see the module docstring
        os.close(descriptor)
