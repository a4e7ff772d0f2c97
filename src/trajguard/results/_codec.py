"""Result objects to JSON-compatible data and back, driven by their dataclasses' type hints.

:func:`to_data` and :func:`from_data` know no result class by name: each type hint is
classified once (``_forms``) and compiled into a converter (``_encode``, ``_decode``), cached
per hint, so a new field or class needs no change here.

Forms: a dataclass is an object in field order (every init field is written; on input a field
with a default may be left out); an enum is its value; a ``frozenset`` a sorted array; a
mapping with string keys (``str``, string enums or literals) an object in the mapping's own
order (renderers iterate in it), other keys an array of ``[key, value]`` pairs; tuples, lists
and sequences arrays; properties and methods are not data.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from trajguard._json import JSONLimitError, loads_bounded
from trajguard.errors import InvalidResultData
from trajguard.results._decode import decoder
from trajguard.results._encode import encoder
from trajguard.results._failure import Failure

__all__ = ["VERSION_KEY", "dumps", "from_data", "loads", "to_data"]

VERSION_KEY = "schema_version"
"""The property a versioned document carries its schema version in (first, before the fields)."""

_HINT = (
    "the document does not match this trajguard's result types: was it written by another "
    "version, or edited by hand?"
)


def _snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", name).lower()


def to_data(obj: Any, *, hint: Any = None, root: str | None = None) -> Any:
    """``obj`` as JSON-compatible data (dicts, lists, str, int, float, bool, None).

    Args:
        obj: the value, usually a result dataclass.
        hint: its type; defaults to ``type(obj)``.
        root: the first part of an error's path; defaults to the class name in snake case.

    Raises:
        ValueError: a value does not fit its declared type, or is NaN or infinite; the message
            names its path (``comparison.scenarios[3].metrics[2].estimate``).
        TypeError: a type hint has no JSON form.
    """
    try:
        return encoder(type(obj) if hint is None else hint)(obj)
    except Failure as failure:
        where = failure.path(_snake(type(obj).__name__) if root is None else root)
        raise ValueError(f"cannot encode {where}: {failure.message}") from None


def from_data(tp: Any, data: Any, *, root: str = "$", file: str | Path | None = None) -> Any:
    """The value of type ``tp`` that ``data`` (as :func:`to_data` writes it) describes.

    Raises:
        InvalidResultData: ``data`` does not fit ``tp`` (wrong type, missing or unknown field,
            unknown enum value); its ``path`` says where (``$.scenarios[3].verdict``).
        TypeError: a type hint has no JSON form.
    """
    try:
        return decoder(tp)(data)
    except Failure as failure:
        raise InvalidResultData(
            failure.message, file=file, path=failure.path(root), hint=_HINT
        ) from None


def dumps(obj: Any, *, version: str | int | None = None, indent: int | None = 1) -> str:
    """``obj`` as JSON text: deterministic (field order, sorted sets), floats exact, ending
    in a newline; with ``version``, the object's first property is ``schema_version``.

    Raises:
        ValueError, TypeError: as :func:`to_data`.
    """
    data = to_data(obj)
    if version is not None:
        if not isinstance(data, dict) or VERSION_KEY in data:
            raise TypeError(f"a versioned document is a dataclass without a {VERSION_KEY} field")
        data = {VERSION_KEY: version, **data}
    return json.dumps(data, indent=indent, ensure_ascii=False, allow_nan=False) + "\n"


def _no_constant(name: str) -> Any:
    raise InvalidResultData(f"{name} is not a JSON number", hint=_HINT)


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise InvalidResultData(f"the key {key!r} appears twice in one object", hint=_HINT)
            seen.add(key)
    return out


def loads(
    tp: Any, text: str | bytes, *, version: str | int | None = None, file: str | Path | None = None
) -> Any:
    """The value of type ``tp`` in JSON ``text`` (as :func:`dumps` writes it).

    Args:
        tp: the type of the document's value.
        text: the document.
        version: the schema version the document must carry in ``schema_version`` (``None``:
            an unversioned document).
        file: where the text came from, for error messages.

    Raises:
        InvalidResultData: not JSON (with its line), NaN or a repeated key, another schema
            version, or data that does not fit ``tp``.
    """
    try:
        data = loads_bounded(text, parse_constant=_no_constant, object_pairs_hook=_no_duplicates)
    except json.JSONDecodeError as error:
        raise InvalidResultData(
            f"not JSON: {error.msg} (column {error.colno})", file=file, line=error.lineno
        ) from None
    except JSONLimitError as error:
        raise InvalidResultData(f"the document is {error}", file=file, path="$") from None
    except InvalidResultData as error:
        error.file = None if file is None else str(file)
        raise
    if version is not None:
        if not isinstance(data, dict) or VERSION_KEY not in data:
            raise InvalidResultData(
                f"no {VERSION_KEY} (this trajguard reads version {version})", file=file, path="$"
            )
        found = data.pop(VERSION_KEY)
        if found != version or type(found) is not type(version):
            raise InvalidResultData(
                f"schema version {found!r}, but this trajguard reads version {version!r}",
                file=file,
                path=f"$.{VERSION_KEY}",
                hint="render it with the trajguard version that wrote it, or compare again",
            )
    return from_data(tp, data, file=file)
