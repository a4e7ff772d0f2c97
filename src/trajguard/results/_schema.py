"""The JSON Schema (draft 2020-12) of what :func:`~trajguard.results.to_data` writes for a type,
as pydantic generates it.

One ``$defs`` entry per dataclass and per enum; every object is closed
(``additionalProperties: false``); ``required`` lists the fields without a default. A class is
described by its docstring up to its first section (``Args:``, ``Raises:``), a field by its
attribute docstring (the string right after it in the class body), each in one line.
"""

from __future__ import annotations

import re
from typing import Any

from trajguard.results._codec import VERSION_KEY, adapter

__all__ = ["DRAFT", "json_schema"]

DRAFT = "https://json-schema.org/draft/2020-12/schema"

_SECTION = re.compile(r"^\w[\w ]*:\s*$")


def _one_line(text: str) -> str:
    """A docstring's words up to its first section, on one line."""
    lines = []
    for line in text.splitlines():
        if _SECTION.match(line):
            break
        lines.append(line)
    return " ".join(" ".join(lines).split())


def _tidy(node: Any) -> None:
    """Descriptions on one line, and no titles (pydantic's are the field names again)."""
    stack = [node]
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            stack.extend(node)
        elif isinstance(node, dict):
            if isinstance(node.get("title"), str):
                del node["title"]
            if isinstance(node.get("description"), str):
                node["description"] = _one_line(node["description"])
            properties = node.get("properties")
            stack.extend(properties.values() if isinstance(properties, dict) else ())
            stack.extend(v for k, v in node.items() if k != "properties")


def json_schema(tp: Any, *, title: str, version: str | int) -> dict[str, Any]:
    """The JSON Schema of a document holding a ``tp`` as ``dumps(value, version=version)``
    writes it: ``tp``'s object with ``schema_version`` (the constant ``version``) first.

    Args:
        tp: the document's dataclass.
        title: the schema's title.
        version: the schema version a document must carry.

    Raises:
        TypeError: ``tp``'s schema is no object, or it has a ``schema_version`` field.
    """
    generated = adapter(tp, described=True).json_schema(mode="validation")
    defs = generated.get("$defs", {})
    name = generated["items"]["$ref"].rpartition("/")[2] if "$ref" in generated["items"] else None
    root = defs.get(name) if name else None
    if root is None or root.get("type") != "object":
        raise TypeError(f"a versioned document holds a dataclass, not {tp!r}")
    if VERSION_KEY in root["properties"]:
        raise TypeError(f"{tp.__name__} has a field {VERSION_KEY!r}, which the version takes")
    if not _refers_to(defs, f"#/$defs/{name}"):  # no entry for the document but itself
        del defs[name]
    _tidy(defs)
    _tidy(root)
    version_property = {
        "const": version,
        "description": "the version of this schema the document was written in",
    }
    return {
        "$schema": DRAFT,
        "title": title,
        **{k: v for k, v in root.items() if k not in ("properties", "required")},
        "properties": {VERSION_KEY: version_property, **root["properties"]},
        "required": [VERSION_KEY, *root.get("required", [])],
        "$defs": dict(sorted(defs.items())),
    }


def _refers_to(defs: dict[str, Any], ref: str) -> bool:
    """Whether any definition holds ``ref``."""
    stack: list[Any] = list(defs.values())
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if node.get("$ref") == ref:
                return True
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return False
