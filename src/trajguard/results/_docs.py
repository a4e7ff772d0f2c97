"""What a class's docstrings say about it and its fields, for the schema's descriptions.

Best effort: a field is described by its entry in the class docstring's Google-style
``Attributes:`` section or by the string right after its annotation in the class body (an
attribute docstring); a class by its docstring up to the first section. Base classes are read
too, the class's own words first. Source that cannot be read (a class made at run time, a
frozen application) gives no attribute docstrings, never an error.
"""

from __future__ import annotations

import ast
import functools
import inspect
import itertools
import re
import textwrap

__all__ = ["class_description", "field_descriptions"]

_SECTION = re.compile(r"^(\w[\w ]*):\s*$")
_ENTRY = re.compile(r"^(\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)$")


def _words(lines: list[str]) -> str:
    return " ".join(" ".join(lines).split())


def _own_doc(cls: type) -> str:
    doc = cls.__dict__.get("__doc__") or ""
    # dataclasses write a signature as the docstring of a class without one: not a description.
    if doc.startswith(f"{cls.__name__}("):
        return ""
    return inspect.cleandoc(doc)


def class_description(cls: type) -> str:
    """The class docstring up to its first section (``Attributes:``, ``Args:``), in one line."""
    lines = []
    for line in _own_doc(cls).splitlines():
        if _SECTION.match(line):
            break
        lines.append(line)
    return _words(lines)


def _attributes_section(doc: str) -> dict[str, str]:
    out: dict[str, list[str]] = {}
    inside, current, entry_depth = False, None, 0
    for line in doc.splitlines():
        if not line.strip():
            continue
        indented = line.startswith((" ", "\t"))
        if not indented:
            inside, current = line.strip() == "Attributes:", None
            continue
        if not inside:
            continue
        text = textwrap.dedent(line)
        depth = len(line) - len(line.lstrip())
        entry = _ENTRY.match(text)
        if entry and (current is None or depth <= entry_depth):
            current, entry_depth = entry.group(1), depth
            out[current] = [entry.group(2)]
        elif current is not None:
            out[current].append(text)
    return {name: _words(lines) for name, lines in out.items()}


def _attribute_docstrings(cls: type) -> dict[str, str]:
    try:
        source = textwrap.dedent(inspect.getsource(cls))
        tree = ast.parse(source)
    except (OSError, TypeError, SyntaxError):
        return {}
    body = next((n.body for n in tree.body if isinstance(n, ast.ClassDef)), [])
    out = {}
    for statement, following in itertools.pairwise(body):
        if (
            isinstance(statement, ast.AnnAssign)
            and isinstance(statement.target, ast.Name)
            and isinstance(following, ast.Expr)
            and isinstance(following.value, ast.Constant)
            and isinstance(following.value.value, str)
        ):
            out[statement.target.id] = _words(inspect.cleandoc(following.value.value).splitlines())
    return out


@functools.cache
def field_descriptions(cls: type) -> dict[str, str]:
    """Field name to description, from ``cls`` and its bases (the class's own words first)."""
    out: dict[str, str] = {}
    for klass in reversed(cls.__mro__):
        if klass is object:
            continue
        out |= _attributes_section(_own_doc(klass))
        out |= _attribute_docstrings(klass)
    return {name: text for name, text in out.items() if text}
