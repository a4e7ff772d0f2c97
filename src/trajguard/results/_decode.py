"""JSON data to values, one converter per type hint (compiled once, cached).

The reader is strict where the writer is: a bool is never an int, an int field takes no float,
every field must be known and every field without a default present, an enum value must be
one of its members. A JSON integer read into a float field becomes a float. Dataclasses are
built through their constructor, so whatever their ``__post_init__`` checks is checked here too.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from trajguard.errors import TrajguardError
from trajguard.results._failure import Failure, describe, expected, plain, segment, union_order
from trajguard.results._forms import Form, fields_of, form_of, key_is_text

__all__ = ["decoder"]

Converter = Callable[[Any], Any]

# The forms a JSON value of each Python type can be read as (which union members to try).
_READABLE: dict[type, frozenset[str]] = {
    str: frozenset({"str", "enum", "literal"}),
    int: frozenset({"int", "float", "enum", "literal"}),
    float: frozenset({"float"}),
    bool: frozenset({"bool", "literal"}),
    type(None): frozenset({"none", "literal"}),
    dict: frozenset({"dataclass", "map"}),
    list: frozenset({"array", "fixed", "set", "map"}),
}


def _readable(form: Form, data: Any) -> bool:
    if form.kind not in _READABLE.get(type(data), frozenset()):
        return False
    if form.kind == "map":  # an object for text keys, an array of pairs for others
        return isinstance(data, dict) == key_is_text(form.args[0])
    return True


def _scalar(kind: str) -> Callable[[Any], bool]:
    checks: dict[str, Callable[[Any], bool]] = {
        "str": lambda d: type(d) is str,
        "int": lambda d: type(d) is int,
        "float": lambda d: type(d) in (int, float) and math.isfinite(d),
        "bool": lambda d: type(d) is bool,
        "none": lambda d: d is None,
    }
    return checks[kind]


_COMPILED: dict[Any, Converter] = {}


def decoder(hint: Any) -> Converter:
    """The converter of JSON data to values of type ``hint`` (compiled once per hint)."""
    convert = _COMPILED.get(hint)
    if convert is None:
        convert = _COMPILED[hint] = _compile(hint)
    return convert


def _compile(hint: Any) -> Converter:
    form = form_of(hint)
    if form.kind == "dataclass":
        return _dataclass(form.hint)
    if form.kind == "union":
        return _union(form)
    if form.kind in ("enum", "literal"):
        return _choice(form)
    if form.kind in ("array", "fixed", "set"):
        return _array(form)
    if form.kind == "map":
        return _mapping(form)
    valid = _scalar(form.kind)
    to_float = form.kind == "float"

    def decode(data: Any) -> Any:
        if not valid(data):
            raise _refuse(form, data)
        return float(data) if to_float else data

    return decode


def _refuse(form: Form, data: Any) -> Failure:
    return Failure(f"expected {expected(form)}, got {describe(data)}")


def _choice(form: Form) -> Converter:
    """An enum (by value) or a ``Literal``; keyed by type too, so that ``true`` is not ``1``."""
    members = list(form.hint) if form.kind == "enum" else list(form.args)
    table = {(type(plain(m)), plain(m)): m for m in members}
    known = ", ".join(repr(plain(m)) for m in members)
    what = f"{form.hint.__name__} value" if form.kind == "enum" else "value"

    def decode(data: Any) -> Any:
        try:
            return table[type(data), data]
        except (KeyError, TypeError):
            raise Failure(f"unknown {what} {data!r} (known: {known})") from None

    return decode


def _union(form: Form) -> Converter:
    members = [(form_of(a), decoder(a)) for a in union_order(form.args)]

    def decode(data: Any) -> Any:
        candidates = [convert for member, convert in members if _readable(member, data)]
        if len(candidates) == 1:  # its own error, with the deeper path, is the useful one
            return candidates[0](data)
        failures = []
        for convert in candidates:
            try:
                return convert(data)
            except Failure as failure:
                failures.append(failure)
        if not failures:
            raise _refuse(form, data)
        words = "; ".join(
            f"{f.path('')}: {f.message}" if f.segments else f.message for f in failures
        )
        raise Failure(f"matches no member of {expected(form)} ({words})")

    return decode


def _items(convert: Callable[[int, Any], Any], data: list[Any]) -> list[Any]:
    out = []
    index = 0
    try:
        for index, item in enumerate(data):
            out.append(convert(index, item))
    except Failure as failure:
        raise failure.at(f"[{index}]") from None
    return out


def _array(form: Form) -> Converter:
    items = [decoder(a) for a in form.args]
    fixed, is_set = form.kind == "fixed", form.kind == "set"
    container = form.container or tuple

    def decode(data: Any) -> Any:
        if type(data) is not list or (fixed and len(data) != len(items)):
            raise _refuse(form, data)
        out = _items(lambda i, item: items[i if fixed else 0](item), data)
        value = container(out)
        if is_set and len(value) != len(out):
            raise Failure("an item appears twice in a set")
        return value

    return decode


def _mapping(form: Form) -> Converter:
    keys, values = decoder(form.args[0]), decoder(form.args[1])
    text = key_is_text(form.args[0])

    def decode(data: Any) -> dict[Any, Any]:
        if text:
            if type(data) is not dict:
                raise _refuse(form, data)
            out = {}
            for key, item in data.items():
                try:
                    out[keys(key)] = values(item)
                except Failure as failure:
                    raise failure.at(segment(key)) from None
            return out

        def pair(index: int, item: Any) -> tuple[Any, Any]:
            if type(item) is not list or len(item) != 2:
                raise Failure(f"expected a [key, value] pair, got {describe(item)}")
            try:
                key = keys(item[0])
            except Failure as failure:
                raise failure.at("[0]") from None
            try:
                return key, values(item[1])
            except Failure as failure:
                raise failure.at("[1]") from None

        if type(data) is not list:
            raise _refuse(form, data)
        pairs = _items(pair, data)
        out = dict(pairs)
        if len(out) != len(pairs):
            raise Failure("a key appears twice in a mapping")
        return out

    return decode


def _dataclass(cls: type) -> Converter:
    # Compiled on first use, not here: a class may hold itself (through a tuple or an Optional).
    compiled: list[tuple[str, Converter, bool]] | None = None
    names: frozenset[str] = frozenset()

    def decode(data: Any) -> Any:
        nonlocal compiled, names
        if type(data) is not dict:
            raise Failure(f"expected an object ({cls.__name__}), got {describe(data)}")
        if compiled is None:
            fields = fields_of(cls)
            names = frozenset(f.name for f in fields)
            compiled = [(f.name, decoder(f.hint), f.required) for f in fields]
        unknown = [key for key in data if key not in names]
        if unknown:
            known = ", ".join(name for name, _, _ in compiled)
            raise Failure(f"unknown field of {cls.__name__} (its fields: {known})").at(
                segment(unknown[0])
            )
        kwargs = {}
        for name, convert, required in compiled:
            if name in data:
                try:
                    kwargs[name] = convert(data[name])
                except Failure as failure:
                    raise failure.at(f".{name}") from None
            elif required:
                raise Failure(f"missing field {name!r} of {cls.__name__}").at(f".{name}")
        try:
            return cls(**kwargs)
        except (TrajguardError, ValueError, TypeError) as error:
            message = error.message if isinstance(error, TrajguardError) else str(error)
            raise Failure(f"not a valid {cls.__name__}: {message}") from None

    return decode
