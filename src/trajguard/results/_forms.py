"""What a type hint means to the codec and the schema: one :class:`Form` per hint.

The vocabulary is the one of trajguard's result types: dataclasses, enums, ``Literal``, the
JSON scalars, unions (``X | None`` included), tuples (variable and fixed length), lists,
sequences, mappings and frozensets. Anything else (``Any``, a DataFrame, a bare ``dict``) is a
:class:`TypeError` naming the type, raised when the type is first used, never half-way
through a document.
"""

from __future__ import annotations

import collections.abc as abc
import dataclasses
import enum
import functools
import types
import typing
from dataclasses import dataclass
from typing import Any, Literal

__all__ = ["Field", "Form", "fields_of", "form_of", "key_is_text"]

Kind = Literal[
    "str",
    "int",
    "float",
    "bool",
    "none",
    "enum",
    "literal",
    "union",
    "array",
    "fixed",
    "set",
    "map",
    "dataclass",
]

_SCALARS: dict[Any, Kind] = {
    str: "str",
    int: "int",
    float: "float",
    bool: "bool",
    type(None): "none",
    None: "none",
}
_ARRAYS: dict[Any, type] = {
    tuple: tuple,
    list: list,
    abc.Sequence: tuple,
}
# ``type X = ...`` aliases (Python 3.12 on).
_ALIAS: Any = getattr(typing, "TypeAliasType", None)
_SETS = {frozenset, set, abc.Set}
_MAPS = {dict, abc.Mapping, abc.MutableMapping}


@dataclass(frozen=True, kw_only=True)
class Form:
    """One type hint, classified.

    Attributes:
        kind: what the hint is.
        hint: the hint itself (the class for enums and dataclasses).
        args: member hints: a union's members, an array's or set's item, a fixed tuple's items,
            a mapping's key and value, a ``Literal``'s values.
        container: the Python type an array or set decodes to (``tuple``, ``list``,
            ``frozenset``, ``set``).
    """

    kind: Kind
    hint: Any
    args: tuple[Any, ...] = ()
    container: type | None = None


@dataclass(frozen=True, kw_only=True)
class Field:
    """One field of a dataclass as the codec sees it.

    Attributes:
        name: the attribute (and JSON property) name.
        hint: its resolved type hint.
        required: it has no default, so a document must give it.
        default: a callable giving its default (``None`` when required).
    """

    name: str
    hint: Any
    required: bool
    default: abc.Callable[[], Any] | None


def _unwrap(hint: Any) -> Any:
    """Strip what does not change the JSON form: ``Annotated`` metadata, ``type`` aliases."""
    while True:
        if typing.get_origin(hint) is typing.Annotated:
            hint = typing.get_args(hint)[0]
        elif _ALIAS is not None and isinstance(hint, _ALIAS):
            hint = hint.__value__
        else:
            return hint


def _literal_values(hint: Any) -> tuple[Any, ...]:
    values = typing.get_args(hint)
    for value in values:
        if not isinstance(value, str | int | bool | enum.Enum) and value is not None:
            raise TypeError(f"Literal value {value!r} has no JSON form")
    return values


@functools.cache
def form_of(hint: Any) -> Form:
    """The :class:`Form` of a type hint (cached).

    Raises:
        TypeError: the hint has no JSON form in this vocabulary.
    """
    hint = _unwrap(hint)
    if hint in _SCALARS:
        return Form(kind=_SCALARS[hint], hint=hint)
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        for member in hint:
            if not isinstance(member.value, str | int) or isinstance(member.value, bool):
                raise TypeError(f"enum {hint.__qualname__} has a value without a JSON form")
        return Form(kind="enum", hint=hint)
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return Form(kind="dataclass", hint=hint)
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is Literal:
        return Form(kind="literal", hint=hint, args=_literal_values(hint))
    if origin in (typing.Union, types.UnionType):
        return Form(kind="union", hint=hint, args=args)
    if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
        return Form(kind="array", hint=hint, args=args[:1], container=tuple)
    if origin is tuple and args and Ellipsis not in args:
        return Form(kind="fixed", hint=hint, args=args, container=tuple)
    if origin in _ARRAYS and len(args) == 1:
        return Form(kind="array", hint=hint, args=args, container=_ARRAYS[origin])
    if origin in _SETS and len(args) == 1:
        return Form(kind="set", hint=hint, args=args, container=set if origin is set else frozenset)
    if origin in _MAPS and len(args) == 2:
        return Form(kind="map", hint=hint, args=args)
    raise TypeError(
        f"{_name(hint)} has no JSON form (supported: dataclasses, enums, Literal, "
        "str, int, float, bool, None, unions, tuple, list, Sequence, Mapping, "
        "frozenset)"
    )


def key_is_text(hint: Any) -> bool:
    """Mapping keys of this hint are JSON object keys (strings); other keys become pairs."""
    form = form_of(hint)
    if form.kind == "str":
        return True
    if form.kind == "enum":
        return all(isinstance(m.value, str) for m in form.hint)
    if form.kind == "literal":
        return all(isinstance(v, str) for v in form.args)
    return False


_FIELDS: dict[type, tuple[Field, ...]] = {}


def fields_of(cls: type) -> tuple[Field, ...]:
    """The init fields of dataclass ``cls`` with their resolved hints, in declaration order
    (resolved once per class).

    Fields with ``init=False`` are left out: the constructor computes them.

    Raises:
        TypeError: a hint cannot be resolved (a name the class's module does not define).
    """
    fields = _FIELDS.get(cls)
    if fields is None:
        fields = _FIELDS[cls] = _resolve(cls)
    return fields


def _resolve(cls: type) -> tuple[Field, ...]:
    try:
        hints = typing.get_type_hints(cls, include_extras=True)
    except NameError as error:
        raise TypeError(f"cannot resolve the type hints of {_name(cls)}: {error}") from error
    out = []
    for f in dataclasses.fields(cls):
        if not f.init:
            continue
        default: abc.Callable[[], Any] | None = None
        if f.default is not dataclasses.MISSING:
            default = functools.partial(_same, f.default)
        elif f.default_factory is not dataclasses.MISSING:
            default = f.default_factory
        out.append(
            Field(name=f.name, hint=hints[f.name], required=default is None, default=default)
        )
    return tuple(out)


def _same(value: Any) -> Any:
    return value


def _name(hint: Any) -> str:
    if isinstance(hint, type):
        return f"{hint.__module__}.{hint.__qualname__}"
    return repr(hint)
