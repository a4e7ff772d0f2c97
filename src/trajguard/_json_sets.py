"""A set in a JSON document: an array without repeats, written sorted, so that equal sets are
equal bytes.

``frozenset`` has no order (a set of strings iterates differently in every process), so a
result type declares a set field as :data:`SortedNames`; the :class:`JsonSet` marker tells
pydantic to refuse an array that repeats an item and to write the items sorted. pydantic is
imported only when it builds the field's schema, not here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

__all__ = ["JsonSet", "SortedNames"]


def _unique(value: Any, handler: Callable[[Any], Any]) -> Any:
    items = handler(value)
    if isinstance(value, list) and len(items) != len(value):
        raise ValueError("an item appears twice in a set")
    return items


class JsonSet:
    """``Annotated`` metadata of a set field: no repeats on input, sorted on output."""

    def __get_pydantic_core_schema__(self, source: Any, handler: Any) -> Any:
        from pydantic_core import core_schema

        schema = handler(source)
        schema["strict"] = False  # a function hands it a list, not JSON: its items stay strict
        schema["serialization"] = core_schema.plain_serializer_function_ser_schema(sorted)
        return core_schema.no_info_wrap_validator_function(
            _unique, schema, serialization=schema["serialization"]
        )


SortedNames = Annotated[frozenset[str], JsonSet()]
"""A set of names (metrics, statuses): a JSON array without repeats, written sorted."""
