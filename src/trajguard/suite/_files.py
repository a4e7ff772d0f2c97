"""The suite file and the prompt files it names, read bounded: regular files only, so large.

A suite may come from a pull request, and a ``system_prompt_file`` names any file beside it: a
FIFO would block ``validate`` for ever, and a file of gigabytes would fill memory before the
first check ran (YAML takes some hundred times its size once composed). Each is read through
:func:`trajguard._json.read_regular_bytes`; ``$TRAJGUARD_MAX_FILE_BYTES`` replaces both limits.
"""

from __future__ import annotations

from pathlib import Path

from trajguard._json import read_regular_bytes

__all__ = ["MAX_PROMPT_BYTES", "MAX_SUITE_BYTES", "read_prompt_text", "read_suite_bytes"]

MAX_SUITE_BYTES = 2 * 1024 * 1024
"""Largest suite file read: a suite of thousands of scenarios is a few hundred KB (2 MiB of the
shortest scenarios is some 44,000, read in about 21 s and 300 MB); rows beyond that belong in a
``scenarios_from`` data file."""

MAX_PROMPT_BYTES = 1024 * 1024
"""Largest ``system_prompt_file`` read: a system prompt is sent with every model call, and one
of a megabyte is already far over any model's context."""


def read_suite_bytes(path: Path) -> bytes:
    """The suite file's bytes.

    Raises:
        FileNotFoundError / FileKindError / OSError: missing, no regular file, too large.
    """
    return read_regular_bytes(path, max_bytes=MAX_SUITE_BYTES)


def read_prompt_text(path: Path) -> str:
    """A ``system_prompt_file``'s text.

    Raises:
        FileNotFoundError / FileKindError / OSError: missing, no regular file, too large.
        UnicodeDecodeError: not UTF-8.
    """
    return read_regular_bytes(path, max_bytes=MAX_PROMPT_BYTES).decode("utf-8")
