"""Where a callable agent's own code raised: ``path:line``, never an absolute path.

The frame named is the deepest one of the traceback in the agent's own code: a file under the
suite's directory (not in an installed package), or the agent function's own module wherever it
lives. A library the agent called may have raised deeper down; the line that called it is the
one the agent's author can act on. The path is relative to the suite's directory; a file
outside it is named as it is imported (relative to the ``sys.path`` entry it was found under:
``pkg/agent.py``), else by its last two parts: a home directory or a user name never reaches the
run set.
"""

from __future__ import annotations

import inspect
import sys
import traceback
from collections.abc import Callable, Iterator
from pathlib import Path
from types import TracebackType
from typing import Any

import trajguard

__all__ = ["raise_site", "shown_path"]

_INSTALLED = frozenset({"site-packages", "dist-packages"})
_TRAJGUARD = Path(trajguard.__file__).resolve().parent


def raise_site(
    error: BaseException, *, function: Callable[..., Any], base_dir: str | Path
) -> str | None:
    """``path:line`` of the agent's own frame the error (or the error it came from) passed
    through last, or ``None`` when no frame of the agent's code is in its traceback."""
    root = Path(base_dir).resolve()
    own = _file_of(function)
    for candidate in (error, error.__cause__, error.__context__):
        if candidate is None:
            continue
        frames = list(_frames(candidate.__traceback__))
        found = [(path, line) for path, line in frames if _is_agents(path, root, own)]
        if found:
            path, line = found[-1]
            return f"{shown_path(path, root)}:{line}"
    return None


def _frames(tb: TracebackType | None) -> Iterator[tuple[Path, int]]:
    for frame, line in traceback.walk_tb(tb):
        name = frame.f_code.co_filename
        if name.startswith("<"):  # <string>, <frozen ...>: no file to name
            continue
        yield Path(name).resolve(), line


def _file_of(function: Callable[..., Any]) -> Path | None:
    try:
        name = inspect.getfile(inspect.unwrap(function))
    except TypeError:  # a callable object, a builtin: its frames are found under the suite
        return None
    return None if name.startswith("<") else Path(name).resolve()


def _is_agents(path: Path, root: Path, own: Path | None) -> bool:
    if path == own:
        return True
    if path.is_relative_to(_TRAJGUARD) or not path.is_relative_to(root):
        return False
    return not _INSTALLED.intersection(path.relative_to(root).parts)


def shown_path(path: Path, root: Path) -> str:
    """``path`` relative to ``root`` (the suite's directory), else as imported, else its last
    two parts: never absolute."""
    root = root.resolve()
    if path.is_relative_to(root):
        return path.relative_to(root).as_posix()
    entries = [Path(entry or ".").resolve() for entry in sys.path if isinstance(entry, str)]
    under = [entry for entry in entries if path.is_relative_to(entry)]
    if under:  # the deepest entry: the module's own import path
        return path.relative_to(max(under, key=lambda entry: len(entry.parts))).as_posix()
    return "/".join(path.parts[-2:])
