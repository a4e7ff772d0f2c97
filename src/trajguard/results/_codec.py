"""Result objects to JSON-compatible data and back, through pydantic: one adapter per type.

The result types are frozen stdlib dataclasses; pydantic reads their type hints. A
:class:`~pydantic.TypeAdapter` is built per type on first use (never at import) and cached. It
reads strictly, as the JSON Schema says: a bool is never an int, an int field takes no float,
every field must be known and every field without a default present, an enum is one of its
values; the dataclasses' ``__post_init__`` checks run too. It writes dataclasses as objects in
field order, enums as their values, tuples as arrays, mappings in their own order and sets
(:data:`~trajguard._json_sets.SortedNames`) sorted, so equal results are equal bytes; a value
that does not fit its field (a list for a tuple, a numpy integer for an ``int``) or a NaN is
refused. Text is parsed by the bounded reader first (depth, NaN, repeated keys) and its
``schema_version`` checked; a :class:`pydantic.ValidationError` becomes an
:class:`~trajguard.errors.InvalidResultData` naming the JSON path of each problem.
"""

from __future__ import annotations

import functools
import json
import math
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trajguard._json import JSONLimitError, loads_bounded
from trajguard.errors import InvalidResultData, TrajguardError

if TYPE_CHECKING:
    from pydantic import TypeAdapter, ValidationError

__all__ = ["VERSION_KEY", "adapter", "dumps", "from_data", "loads", "parse", "to_data"]

VERSION_KEY = "schema_version"
"""The property a versioned document carries its schema version in (first, before the fields)."""

_HINT = (
    "the document does not match this trajguard's result types: was it written by another "
    "version, or edited by hand?"
)
_SHOWN = 20


@functools.cache
def adapter(tp: Any, *, described: bool = False) -> TypeAdapter[list[Any]]:
    """The adapter of a list of ``tp`` (a list, so that the strict config reaches the
    dataclasses, which pydantic will not configure directly); ``described`` also reads the
    fields' attribute docstrings, which only the JSON Schema needs."""
    from pydantic import ConfigDict, PydanticSchemaGenerationError, TypeAdapter

    config = ConfigDict(
        strict=True,
        extra="forbid",
        allow_inf_nan=False,
        ser_json_inf_nan="constants",
        use_attribute_docstrings=described,
    )
    try:
        return TypeAdapter(list[tp], config=config)
    except PydanticSchemaGenerationError as error:
        found = re.search(r"schema for (.+?)\. ", str(error))
        what = found.group(1).strip('"') if found else repr(tp)
        raise TypeError(f"{what} has no JSON form (in {tp!r})") from None


def _snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", name).lower()


def _path(root: str, loc: tuple[int | str, ...]) -> str:
    """A JSON path from pydantic's location (its leading list index left out)."""
    parts = [f"[{p}]" if isinstance(p, int) else f".{p}" for p in loc[1:] if p != "[key]"]
    return root + "".join(
        part if part[0] == "[" or part[1:].isidentifier() else f"[{json.dumps(part[1:])}]"
        for part in parts
    )


def _non_finite(data: Any, path: str) -> tuple[str, float] | None:
    """The first NaN or infinity in ``data`` and where it is."""
    stack = [(path, data)]
    while stack:
        where, value = stack.pop()
        if isinstance(value, float) and not math.isfinite(value):
            return where, value
        if isinstance(value, dict):
            stack.extend((f"{where}.{k}", v) for k, v in reversed(value.items()))
        elif isinstance(value, list):
            stack.extend((f"{where}[{i}]", v) for i, v in reversed(list(enumerate(value))))
    return None


def _dump(obj: Any, hint: Any, where: str) -> Any:
    from pydantic_core import PydanticSerializationError

    tp: Any = type(obj) if hint is None else hint
    try:
        (data,) = adapter(tp).dump_python([obj], mode="json", warnings="error")
    except PydanticSerializationError as error:
        raise ValueError(f"cannot encode {where}: {error}") from None
    return data


def _refuse_non_finite(data: Any, where: str) -> None:
    bad = _non_finite(data, where)
    if bad is not None:
        raise ValueError(
            f"cannot encode {bad[0]}: {bad[1]} is not a JSON number (results hold None where "
            "undefined)"
        )


def to_data(obj: Any, *, hint: Any = None, root: str | None = None) -> Any:
    """``obj`` as JSON-compatible data (dicts, lists, str, int, float, bool, None).

    Args:
        obj: the value, usually a result dataclass.
        hint: its type; defaults to ``type(obj)``.
        root: the first part of an error's path; defaults to the class name in snake case.

    Raises:
        ValueError: a value does not fit its declared type, or is NaN or infinite; the message
            names its path (``comparison.scenarios[3].metrics[2].estimate``) or its field.
        TypeError: a type hint has no JSON form.
    """
    where = _snake(type(obj).__name__) if root is None else root
    data = _dump(obj, hint, where)
    _refuse_non_finite(data, where)
    return data


def _describe(value: Any) -> str:
    text = repr(value)
    return f"{type(value).__name__} {text[:60] + '...' if len(text) > 60 else text}"


def _problem(error: Any) -> str:
    kind, loc = error["type"], error["loc"]
    if kind == "missing":
        return "missing item" if isinstance(loc[-1], int) else "missing field"
    if kind in ("extra_forbidden", "unexpected_keyword_argument"):
        return "unknown field"
    if kind in ("value_error", "assertion_error"):
        return f"not valid: {error['ctx']['error']}"
    key = "the key: " if loc[-1] == "[key]" else ""
    return f"{key}{error['msg']}, got {_describe(error['input'])}"


def _invalid(error: ValidationError, root: str, file: str | Path | None) -> InvalidResultData:
    found = [(_path(root, e["loc"]), _problem(e)) for e in error.errors(include_url=False)]
    (path, first), rest = found[0], found[1 : _SHOWN + 1]
    return InvalidResultData(
        first, file=file, path=path, hint=_HINT, details=[f"{p}: {m}" for p, m in rest]
    )


def from_data(tp: Any, data: Any, *, root: str = "$", file: str | Path | None = None) -> Any:
    """The value of type ``tp`` that ``data`` (as :func:`to_data` writes it) describes.

    Raises:
        InvalidResultData: ``data`` does not fit ``tp`` (wrong type, missing or unknown field,
            unknown enum value, refused by the type's own checks); its ``path`` says where
            (``$.scenarios[3].verdict``).
        TypeError: a type hint has no JSON form.
    """
    from pydantic import ValidationError

    try:
        return adapter(tp).validate_json(json.dumps([data], allow_nan=False))[0]
    except ValidationError as error:
        raise _invalid(error, root, file) from None
    except ValueError as error:  # a NaN in data
        raise InvalidResultData(str(error), file=file, path=root, hint=_HINT) from None
    except TrajguardError as error:  # a type's own check (CompareConfig's settings)
        raise InvalidResultData(error.message, file=file, path=root, hint=_HINT) from None


def dumps(obj: Any, *, version: str | int | None = None, indent: int | None = 1) -> str:
    """``obj`` as JSON text: deterministic (field order, sorted sets), floats exact, ending
    in a newline; with ``version``, the object's first property is ``schema_version``.

    Raises:
        ValueError: as :func:`to_data`.
        TypeError: ``version`` for a value that is no object, or has a ``schema_version``.
    """
    where = _snake(type(obj).__name__)
    data = _dump(obj, None, where)
    if version is not None:
        if not isinstance(data, dict) or VERSION_KEY in data:
            raise TypeError(f"a versioned document is a dataclass without a {VERSION_KEY} field")
        data = {VERSION_KEY: version, **data}
    try:
        return json.dumps(data, indent=indent, ensure_ascii=False, allow_nan=False) + "\n"
    except ValueError:  # a NaN or infinity: find where (only now, the walk costs)
        _refuse_non_finite(data, where)
        raise


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
        InvalidResultData: not JSON (with its line), nested too deep, NaN or a repeated key,
            another schema version, or data that does not fit ``tp``.
    """
    return from_data(tp, parse(text, version=version, file=file), file=file)


def parse(
    text: str | bytes,
    *,
    version: str | int | None = None,
    file: str | Path | None = None,
    upgrades: Mapping[str | int, Callable[[dict[str, Any]], dict[str, Any]]] | None = None,
) -> Any:
    """The JSON data in ``text``, bounded in depth, without NaN or repeated keys, its
    ``schema_version`` checked and taken out.

    Args:
        text: the document.
        version: the schema version to read (``None``: an unversioned document).
        file: where the text came from, for error messages.
        upgrades: earlier versions this trajguard still reads: version → the function that
            turns a document of that version into one of ``version``.

    Raises:
        InvalidResultData: as :func:`loads`, but for the fit to a type.
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
        readable = {version: None, **(upgrades or {})}
        matched = next((v for v in readable if v == found and type(v) is type(found)), None)
        if matched is None:
            versions = " or ".join(repr(v) for v in readable)
            raise InvalidResultData(
                f"schema version {found!r}, but this trajguard reads version {versions}",
                file=file,
                path=f"$.{VERSION_KEY}",
                hint="render it with the trajguard version that wrote it, or compare again",
            )
        upgrade = readable[matched]
        if upgrade is not None:
            data = upgrade(data)
    return data
