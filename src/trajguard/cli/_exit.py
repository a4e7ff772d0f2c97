"""Ending the command line's own process without the interpreter's module teardown.

After a batch the process holds about 4,000 modules (litellm's, mostly) and half a million
objects; tearing them down one by one at exit takes about 2 s on a 2-core machine and does
nothing for a command that has finished. So the console script exits as the interpreter would
(non-daemon threads joined, ``atexit`` handlers run: the embedded model's servers stop there;
stdout and stderr flushed) and then ends the process at once. Only the console script does
this: :func:`trajguard.cli.main`, called in-process by tests and users, returns as usual.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import sys
import threading
from typing import NoReturn

__all__ = ["exit_now"]


def exit_now(code: int) -> NoReturn:
    """Exit with ``code`` after what the interpreter's own exit does first, skipping its
    teardown of every module."""
    for thread in threading.enumerate():
        if thread is not threading.main_thread() and not thread.daemon:
            thread.join()
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a closed pipe (`… | head`) or stream
            stream.flush()
    os._exit(code)
