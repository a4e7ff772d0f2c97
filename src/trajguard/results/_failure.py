"""What encoding and decoding share: the failure that collects its path, and how to word it."""

from __future__ import annotations

import enum
import json
from typing import Any

from trajguard.results._forms import Form, form_of, key_is_text

__all__ = ["Failure", "describe", "expected", "plain", "segment", "union_order"]


class Failure(Exception):
    """A value that does not fit its hint; the path is collected while the stack unwinds, so
    the converters build no path on the way down."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message
        self.segments: list[str] = []  # innermost first

    def at(self, part: str) -> Failure:
        """This failure, one level further out (``.field`` or ``[3]``)."""
        self.segments.append(part)
        return self

    def path(self, root: str) -> str:
        """The whole path, from ``root``."""
        return root + "".join(reversed(self.segments))


def describe(value: Any) -> str:
    """A value in an error message: its type and a short repr."""
    text = repr(value)
    return f"{type(value).__name__} {text[:60] + '...' if len(text) > 60 else text}"


def segment(key: Any) -> str:
    """The path part of a mapping key: ``.name`` for identifiers, ``["a b"]`` otherwise."""
    if not isinstance(key, str):
        return f"[{key!r}]"
    return f".{key}" if key.isidentifier() else f"[{json.dumps(key)}]"


def plain(value: Any) -> Any:
    """An enum member's value; anything else as it is."""
    return value.value if isinstance(value, enum.Enum) else value


def expected(form: Form) -> str:
    """What a value of ``form`` looks like, in words."""
    if form.kind in ("enum", "dataclass"):
        return str(form.hint.__name__)
    if form.kind == "literal":
        return " or ".join(json.dumps(plain(v)) for v in form.args)
    if form.kind == "union":
        return " or ".join(expected(form_of(a)) for a in form.args)
    if form.kind == "fixed":
        return f"an array of {len(form.args)} items"
    if form.kind == "map" and not key_is_text(form.args[0]):
        return "an array of [key, value] pairs"
    return {
        "str": "a string",
        "int": "an integer",
        "float": "a number",
        "bool": "true or false",
        "none": "null",
        "array": "an array",
        "set": "an array",
        "map": "an object",
    }[form.kind]


def union_order(args: tuple[Any, ...]) -> tuple[Any, ...]:
    """A union's members with floats last, so that an int stays an int through
    ``float | int`` (a float member accepts ints too)."""
    return tuple(sorted(args, key=lambda a: form_of(a).kind == "float"))
