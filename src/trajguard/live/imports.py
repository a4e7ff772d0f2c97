"""Resolve ``module:function`` import paths named in suite files."""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["ImportPathError", "import_object"]


class ImportPathError(Exception):
    """An import path that does not resolve; ``hint`` says what to check."""

    def __init__(self, message: str, hint: str) -> None:
        super().__init__(message)
        self.hint = hint


def import_object(target: str) -> Any:
    """Import ``module.sub:attr.attr`` and return the attribute.

    Raises:
        ImportPathError: the string is malformed, the module cannot be imported, or the
            attribute does not exist.
    """
    module_name, sep, attribute = target.partition(":")
    if not sep or not module_name or not attribute:
        raise ImportPathError(
            f"{target!r} is not an import path", "write it as module.submodule:function"
        )
    try:
        value: Any = importlib.import_module(module_name)
    except ImportError as exc:
        raise ImportPathError(
            f"cannot import module {module_name!r} (from {target!r}): {exc}",
            "the module must be importable from the directory you run trajguard in "
            "(or installed); check its spelling",
        ) from None
    for part in attribute.split("."):
        try:
            value = getattr(value, part)
        except AttributeError:
            raise ImportPathError(
                f"module {module_name!r} has no attribute {attribute!r} (from {target!r})",
                f"check the function name defined in {module_name}",
            ) from None
    if not callable(value):
        raise ImportPathError(f"{target!r} is not callable", "point it at a function")
    return value
