"""Values to JSON-compatible data, one converter per type hint (compiled once, cached).

Encoding follows the declared type, not the value's: a value that does not fit its field (a
list where a tuple is declared, a string where an enum is, a NaN) is a :class:`Failure`. numpy
scalars fit the numeric and boolean fields they stand for and are written as Python ones.
"""

from __future__ import annotations

import collections.abc as abc
import functools
import json
import math
import numbers
import typing
from collections.abc import Callable
from typing import Any

from trajguard.results._failure import Failure, describe, expected, plain, segment, union_order
from trajguard.results._forms import Form, fields_of, form_of, key_is_text

__all__ = ["encoder"]

Converter = Callable[[Any], Any]


def _is_bool(value: Any) -> bool:
    # numpy's bool is no subclass of bool, and a result computed with numpy can hold one.
    if value is True or value is False:
        return True
    kind = type(value)
    return kind.__module__ == "numpy" and kind.__name__ in ("bool", "bool_")


def _is_number(value: Any) -> bool:
    return type(value) is float or (isinstance(value, numbers.Real) and not _is_bool(value))


def _is_integer(value: Any) -> bool:
    return type(value) is int or (isinstance(value, numbers.Integral) and not _is_bool(value))


def fitter(form: Form) -> Callable[[Any], bool]:
    """Whether a value has the shape of ``form`` (shallow: it picks a union's member)."""
    kind, hint = form.kind, form.hint
    if kind == "dataclass":
        return lambda v: type(v) is hint
    if kind == "enum":
        return lambda v: isinstance(v, hint)
    if kind == "literal":
        return lambda v: any(type(v) is type(x) and v == x for x in form.args)
    if kind in ("array", "fixed"):
        if typing.get_origin(hint) is abc.Sequence:
            return lambda v: isinstance(v, list | tuple)
        container = form.container or tuple
        return lambda v: isinstance(v, container)
    checks: dict[str, Callable[[Any], bool]] = {
        "str": lambda v: isinstance(v, str),
        "int": _is_integer,
        "float": _is_number,
        "bool": _is_bool,
        "none": lambda v: v is None,
        "set": lambda v: isinstance(v, set | frozenset),
        "map": lambda v: type(v) is dict or isinstance(v, abc.Mapping),
    }
    return checks[kind]


def _finite(value: Any) -> float:
    number = float(value)
    if not math.isfinite(number):
        raise Failure(f"{number} is not a JSON number (results hold None where undefined)")
    return number


_SCALARS: dict[str, Converter] = {
    "str": str.__str__,  # a plain str, also from a str subclass
    "int": int,
    "float": _finite,
    "bool": bool,
    "none": lambda value: None,
    "enum": plain,
    "literal": plain,
}


_COMPILED: dict[Any, Converter] = {}


def encoder(hint: Any) -> Converter:
    """The converter of values of type ``hint`` to JSON-compatible data (compiled once per hint)."""
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
    if form.kind in ("array", "fixed", "set"):
        return _array(form)
    if form.kind == "map":
        return _mapping(form)
    convert, fits = _SCALARS[form.kind], fitter(form)

    def encode(value: Any) -> Any:
        if not fits(value):
            raise _refuse(form, value)
        return convert(value)

    return encode


def _refuse(form: Form, value: Any) -> Failure:
    return Failure(f"expected {expected(form)}, got {describe(value)}")


def _union(form: Form) -> Converter:
    members = [(fitter(form_of(a)), encoder(a)) for a in union_order(form.args)]

    def encode(value: Any) -> Any:
        failure = None
        for fits, convert in members:
            if fits(value):
                try:
                    return convert(value)
                except Failure as error:
                    failure = failure or error
        raise failure or _refuse(form, value)

    return encode


def _comparable(items: list[Any]) -> bool:
    """All strings, or all numbers: sorted as they are (others by their JSON text)."""
    return all(type(x) is str for x in items) or all(type(x) in (int, float) for x in items)


def _array(form: Form) -> Converter:
    items = [encoder(a) for a in form.args]
    fixed, is_set = form.kind == "fixed", form.kind == "set"
    fits = fitter(form)

    def encode(value: Any) -> list[Any]:
        if not fits(value) or (fixed and len(value) != len(items)):
            raise _refuse(form, value)
        out = []
        index, convert = 0, items[0]
        try:
            for index, item in enumerate(value):
                out.append(items[index](item) if fixed else convert(item))
        except Failure as failure:
            raise failure.at(f"[{index}]") from None
        if is_set:
            # A set has no order: sorted, so that equal sets are equal bytes.
            out.sort(
                key=None if _comparable(out) else functools.partial(json.dumps, sort_keys=True)
            )
        return out

    return encode


def _mapping(form: Form) -> Converter:
    keys, values = encoder(form.args[0]), encoder(form.args[1])
    text = key_is_text(form.args[0])
    fits = fitter(form)

    def encode(value: Any) -> Any:
        if not fits(value):
            raise _refuse(form, value)
        out: Any = {} if text else []
        for key, item in value.items():
            try:
                pair = keys(key), values(item)
            except Failure as failure:
                raise failure.at(segment(key)) from None
            if text:
                out[pair[0]] = pair[1]
            else:
                out.append(list(pair))
        return out

    return encode


def _dataclass(cls: type) -> Converter:
    # Compiled on first use, not here: a class may hold itself (through a tuple or an Optional).
    compiled: list[tuple[str, Converter]] | None = None

    def encode(value: Any) -> dict[str, Any]:
        nonlocal compiled
        if type(value) is not cls:
            raise Failure(f"expected {cls.__name__}, got {describe(value)}")
        if compiled is None:
            compiled = [(f.name, encoder(f.hint)) for f in fields_of(cls)]
        out = {}
        for name, convert in compiled:
            try:
                out[name] = convert(getattr(value, name))
            except Failure as failure:
                raise failure.at(f".{name}") from None
        return out

    return encode
