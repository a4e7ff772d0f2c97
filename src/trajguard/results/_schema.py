"""The JSON Schema (draft 2020-12) of what :func:`~trajguard.results.to_data` writes for a type.

One ``$defs`` entry per dataclass and per enum, named after the class; two classes of one name
in different modules are both named by module and class instead, so they never merge. Every
object is closed (``additionalProperties: false``); ``required`` lists the fields without a
default; a property's ``description`` comes from the class's docstrings (``_docs``) and its
``default`` is the field's default as it would be written.

The schema is a little looser than the reader in one place JSON Schema cannot express: it takes
``3.0`` as an integer, which ``from_data`` refuses for an ``int`` field (the writer never
writes one).
"""

from __future__ import annotations

import contextlib
import enum
import re
import typing
from collections import defaultdict
from typing import Any

from trajguard.results._codec import VERSION_KEY, to_data
from trajguard.results._docs import class_description, field_descriptions
from trajguard.results._forms import Form, fields_of, form_of, key_is_text

__all__ = ["DRAFT", "json_schema"]

DRAFT = "https://json-schema.org/draft/2020-12/schema"

_TYPES = {"str": "string", "int": "integer", "float": "number", "bool": "boolean", "none": "null"}


def _classes(root: Any) -> list[type]:
    """Every dataclass and enum reachable from ``root``, depth first, each once."""
    found: list[type] = []
    seen: set[Any] = set()

    def walk(hint: Any) -> None:
        if hint in seen:
            return
        seen.add(hint)
        form = form_of(hint)
        if form.kind in ("dataclass", "enum"):
            found.append(form.hint)
        if form.kind == "dataclass":
            for f in fields_of(form.hint):
                walk(f.hint)
        elif form.kind != "literal":
            for arg in form.args:
                walk(arg)

    walk(root)
    return found


def _names(classes: list[type]) -> dict[type, str]:
    """Each class's ``$defs`` name: its own, or module and qualified name where two share one."""
    by_name: dict[str, list[type]] = defaultdict(list)
    for cls in classes:
        by_name[cls.__name__].append(cls)
    names: dict[type, str] = {}
    for name, group in by_name.items():
        if len(group) == 1:
            names[group[0]] = name
            continue
        for cls in group:
            full = re.sub(
                r"[^\w.-]", "", f"{cls.__module__}.{cls.__qualname__}".replace("<locals>.", "")
            )
            taken = set(names.values())
            unique, n = full, 2
            while unique in taken:
                unique, n = f"{full}-{n}", n + 1
            names[cls] = unique
    return names


class _Builder:
    def __init__(self, names: dict[type, str]) -> None:
        self.names = names
        self.referenced: set[str] = set()

    def ref(self, cls: type) -> dict[str, Any]:
        name = self.names[cls]
        self.referenced.add(name)
        return {"$ref": f"#/$defs/{name}"}

    def schema(self, hint: Any) -> dict[str, Any]:
        form = form_of(hint)
        kind = form.kind
        if kind in _TYPES:
            return {"type": _TYPES[kind]}
        if kind in ("dataclass", "enum"):
            return self.ref(form.hint)
        if kind == "literal":
            values = [to_data(v, hint=type(v)) for v in form.args]
            return {"const": values[0]} if len(values) == 1 else {"enum": values}
        if kind == "union":
            return {"anyOf": [self.schema(a) for a in form.args]}
        if kind == "array":
            return {"type": "array", "items": self.schema(form.args[0])}
        if kind == "set":
            return {"type": "array", "items": self.schema(form.args[0]), "uniqueItems": True}
        if kind == "fixed":
            return self.fixed(form.args)
        return self.mapping(form)

    def fixed(self, args: tuple[Any, ...]) -> dict[str, Any]:
        return {
            "type": "array",
            "prefixItems": [self.schema(a) for a in args],
            "items": False,
            "minItems": len(args),
            "maxItems": len(args),
        }

    def mapping(self, form: Form) -> dict[str, Any]:
        key, value = form.args
        if not key_is_text(key):
            return {"type": "array", "items": self.fixed((key, value))}
        out: dict[str, Any] = {"type": "object", "additionalProperties": self.schema(value)}
        if form_of(key).kind != "str":
            out["propertyNames"] = self.schema(key)
        return out

    def definition(self, cls: type) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if description := class_description(cls):
            out["description"] = description
        if form_of(cls).kind == "enum":
            values = [member.value for member in typing.cast(type[enum.Enum], cls)]
            if all(isinstance(v, str) for v in values):
                out["type"] = "string"
            return out | {"enum": values}
        docs = field_descriptions(cls)
        properties = {}
        for f in fields_of(cls):
            prop = self.schema(f.hint)
            if f.name in docs:
                prop["description"] = docs[f.name]
            if f.default is not None:
                # A default without a JSON form is no reason to have no schema.
                with contextlib.suppress(ValueError, TypeError):
                    prop["default"] = to_data(f.default(), hint=f.hint)
            properties[f.name] = prop
        return out | {
            "type": "object",
            "properties": properties,
            "required": [f.name for f in fields_of(cls) if f.required],
            "additionalProperties": False,
        }


def json_schema(tp: Any, *, title: str, version: str | int) -> dict[str, Any]:
    """The JSON Schema of a document holding a ``tp`` as ``dumps(value, version=version)``
    writes it: ``tp``'s object with ``schema_version`` (the constant ``version``) first.

    Args:
        tp: the document's dataclass.
        title: the schema's title.
        version: the schema version a document must carry.

    Raises:
        TypeError: ``tp`` is no dataclass, has a ``schema_version`` field, or a hint has no
            JSON form.
    """
    if form_of(tp).kind != "dataclass":
        raise TypeError(f"a versioned document holds a dataclass, not {tp!r}")
    if any(f.name == VERSION_KEY for f in fields_of(tp)):
        raise TypeError(f"{tp.__name__} has a field {VERSION_KEY!r}, which the version takes")
    classes = _classes(tp)
    builder = _Builder(_names(classes))
    defs = {builder.names[cls]: builder.definition(cls) for cls in classes}
    root = defs[builder.names[tp]]
    if builder.names[tp] not in builder.referenced:  # only the document itself is one
        del defs[builder.names[tp]]
    version_property = {
        "const": version,
        "description": "the version of this schema the document was written in",
    }
    return {
        "$schema": DRAFT,
        "title": title,
        **{k: v for k, v in root.items() if k != "properties" and k != "required"},
        "properties": {VERSION_KEY: version_property, **root["properties"]},
        "required": [VERSION_KEY, *root["required"]],
        "$defs": dict(sorted(defs.items())),
    }
