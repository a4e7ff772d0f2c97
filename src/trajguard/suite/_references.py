"""Resolve what suite files name outside themselves: ``module:function`` import paths, tools,
and the executables of command agents — at load time, so a bad name fails before any run."""

from __future__ import annotations

import difflib
import importlib
import inspect
import os
import shutil
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any

from trajguard.errors import ImportPathError

__all__ = ["DENIED_MODULES", "check_executable", "import_object", "import_tool"]

DENIED_MODULES = frozenset(
    {
        "builtins",
        "code",
        "ctypes",
        "importlib",
        "io",
        "marshal",
        "multiprocessing",
        "nt",
        "os",
        "pickle",
        "posix",
        "pty",
        "runpy",
        "shelve",
        "shutil",
        "signal",
        "socket",
        "subprocess",
        "sys",
        "tempfile",
    }
)
"""Modules a suite may not name a function of (a tool, an agent, a predicate) unless the suite
allows the module explicitly: their functions run programs, touch files or the interpreter,
and a model chooses a tool's arguments."""


_IMPLEMENTED_IN = {"os": ("posix", "nt"), "subprocess": ("posixsubprocess",)}
"""Modules whose functions are defined in a C module of another name (``os.getcwd`` is
``posix.getcwd``): allowing the first allows those."""


def _defined_in(value: Any) -> str:
    module = getattr(value, "__module__", None) or getattr(type(value), "__module__", "")
    return str(module or "")


def import_object(target: str, *, allowed_modules: Collection[str] = ()) -> Any:
    """Import ``module.sub:attr.attr`` and return the attribute.

    Args:
        target: the import path.
        allowed_modules: modules of :data:`DENIED_MODULES` the suite allows explicitly.

    Raises:
        ImportPathError: the string is malformed, the module cannot be imported, the
            attribute does not exist or is not callable, or it is a function of a denied module
            or a builtin.
    """
    module_name, sep, attribute = target.partition(":")
    if not sep or not module_name or not attribute:
        raise ImportPathError(
            f"{target!r} is not an import path", hint="write it as module.submodule:function"
        )
    try:
        value: Any = importlib.import_module(module_name)
    except ImportError as exc:
        raise ImportPathError(
            f"cannot import module {module_name!r} (from {target!r}): {exc}",
            hint="the module must be importable from the directory you run trajguard in "
            "(or installed); check its spelling",
        ) from None
    except Exception as exc:  # the module itself fails: a syntax error, or raises on import
        where = ""
        if isinstance(exc, SyntaxError) and exc.filename:
            where = f" at {exc.filename}" + (f":{exc.lineno}" if exc.lineno else "")
        message = exc.msg if isinstance(exc, SyntaxError) else str(exc)
        raise ImportPathError(
            f"importing module {module_name!r} (from {target!r}) failed with "
            f"{type(exc).__name__}{where}: {message}",
            hint=f"fix the error in {module_name}; `python -c 'import {module_name}'` shows the "
            "full traceback",
        ) from None
    for part in attribute.split("."):
        try:
            value = getattr(value, part)
        except AttributeError:
            names = [n for n in dir(value) if not n.startswith("_")]
            close = difflib.get_close_matches(part, names, n=1)
            guess = f"; did you mean {close[0]!r}?" if close else ""
            raise ImportPathError(
                f"module {module_name!r} has no attribute {attribute!r} (from {target!r}){guess}",
                hint=f"check the function name defined in {module_name}",
            ) from None
    if not callable(value):
        raise ImportPathError(f"{target!r} is not callable", hint="point it at a function")
    _refuse_denied(target, value, allowed_modules)
    return value


def _refuse_denied(target: str, value: Any, allowed: Collection[str]) -> None:
    allowed = {*allowed, *(alias for name in allowed for alias in _IMPLEMENTED_IN.get(name, ()))}
    named = target.partition(":")[0].split(".")[0]
    defined = _defined_in(value).split(".")[0].lstrip("_")  # _io, _socket, _posixsubprocess ...
    for module in (named, defined):
        if module in DENIED_MODULES and module not in allowed:
            raise ImportPathError(
                f"{target!r} is a function of module {module!r}, which a suite may not use: its "
                "functions run programs, touch files or the interpreter",
                hint=f"write your own function that does only what the agent needs, or allow "
                f"the module explicitly in the suite (allow_modules: [{module}])",
            )
    if inspect.isbuiltin(value) and defined not in allowed:
        raise ImportPathError(
            f"{target!r} is a builtin, not a function defined in a Python module",
            hint="wrap it in a function of your own module",
        )


def import_tool(target: str, *, allowed_modules: Collection[str] = ()) -> str:
    """Import a tool's function and build its schema as the builtin agent will; its name.

    Raises:
        ImportPathError: the path does not resolve, or the function cannot be a tool (e.g. it
            takes ``*args``, or its type hints do not make a JSON schema).
    """
    from trajguard.agent.tools import tool

    function = import_object(target, allowed_modules=allowed_modules)
    try:
        return tool(function).name
    except Exception as exc:  # any failure to build the schema is the suite's to fix
        raise ImportPathError(
            f"{target!r} cannot be a tool: {exc}",
            hint="a tool is a function with named, type-hinted parameters (no *args or **kwargs); "
            "wrap the function in one of your own",
        ) from None


def check_executable(program: str, base_dir: Path, env: Mapping[str, str] | None = None) -> None:
    """Check that a command agent's ``argv[0]`` can be started from ``base_dir``.

    A name without ``/`` is looked up on ``PATH`` — the agent's own ``env`` PATH if it sets one,
    as the run will; a path is taken relative to ``base_dir`` (the suite's directory, where the
    command runs). A placeholder (``{...}``) is not checked.

    Raises:
        ImportPathError: the program is not found or not executable.
    """
    if "{" in program:
        return
    if "/" not in program:
        search = None
        if env is not None and "PATH" in env:
            # the process starts in base_dir, so relative entries are relative to it
            search = os.pathsep.join(
                str(base_dir / entry) for entry in env["PATH"].split(os.pathsep)
            )
        if shutil.which(program, path=search) is None:
            where = "the PATH set in the agent's env" if search is not None else "PATH"
            raise ImportPathError(
                f"command {program!r} is not found on {where}",
                hint="install it, or give its path (relative to the suite file)",
            )
        return
    path = base_dir / program
    if not path.is_file() or shutil.which(str(path)) is None:
        what = "not executable" if path.is_file() else "not found"
        raise ImportPathError(
            f"command {program!r} is {what} (resolved to {path})",
            hint="the path is relative to the suite file; a script needs its executable bit, "
            "or run it through an interpreter: [python, script.py, ...]",
        )
